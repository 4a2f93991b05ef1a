package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// errorClass names why a call failed, so a test can require that every failure is one the
// faults explain: an *APIError carrying the injected status, or a connection error.
func errorClass(err error) string {
	var apiErr *taskrouting.APIError
	var urlErr *url.Error
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &apiErr):
		return fmt.Sprintf("api-%d-%s", apiErr.StatusCode, apiErr.Code)
	case errors.As(err, &urlErr):
		return "connection"
	default:
		return "other: " + err.Error()
	}
}

// TestCreateExactlyOnce is the "no duplicate, no loss" of docs/reliability.md section 1,
// through the SDK client: N Tasks.Create calls from 16 goroutines while the mock server drops
// 30% of answers after committing, refuses 10% with 503 + Retry-After and resets 5% of
// connections before doing anything. Every call carries meta.n, so the check is per call, not
// only a count: each n exists exactly once. (mockserver's TestNoDuplicateNoLoss checks the total count from
// inside the server; this test checks identity through the public API.)
//
// With the default budget (2 retries) some calls must fail: each attempt fails with
// probability ≈ 0.40, so at most 0.40^3 ≈ 6.5% of calls; fewer in practice (about 2%),
// because net/http's Transport itself resends, once, a request that carries an
// Idempotency-Key when its reused connection closes without an answer. Those calls return
// a typed error (503 APIError or a connection error) and may or may not have created their
// task; calling again with the same idempotency key finishes them without a duplicate.
// With failureBudget retries no call is expected to fail.
func TestCreateExactlyOnce(t *testing.T) {
	t.Parallel()
	n := size(1000, 10_000)
	const goroutines = 16
	cases := []struct {
		name    string
		retries int // -1: the client's default budget
		seed    uint64
		// maxFailed bounds the calls allowed to fail on the first pass: twice the upper
		// estimate n*0.065 (see above), room for the variance of a small run.
		maxFailed int
	}{
		{name: "budget-20", retries: failureBudget, seed: 10, maxFailed: 0},
		{name: "default-budget", retries: -1, seed: 20, maxFailed: n * 65 * 2 / 1000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := mockserver.Start(t, mockserver.WithClock(mockserver.NewManualClock(t0)), mockserver.WithRequestLog(n*4))
			injectAll(t, srv, reliabilityFaults(tc.seed))
			c := newClient(t, srv, tc.retries)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()

			params := func(i int) taskrouting.CreateTaskParams {
				return taskrouting.CreateTaskParams{Tags: []string{"english"}, Meta: map[string]any{"n": i}}
			}
			key := func(i int) string { return fmt.Sprintf("e2e-create-%d", i) }
			var mu sync.Mutex
			failed := map[int]string{} // call index -> error class
			fanOut(n, goroutines, func(i int) {
				_, err := c.Tasks.Create(ctx, params(i), taskrouting.WithIdempotencyKey(key(i)))
				if err != nil {
					mu.Lock()
					failed[i] = errorClass(err)
					mu.Unlock()
				}
			})
			classes := map[string]int{}
			for _, cl := range failed {
				classes[cl]++
			}
			t.Logf("%d calls, %d failed on the first pass %v; server saw %v", n, len(failed), classes, faultCounts(srv))
			assert.LessOrEqual(t, len(failed), tc.maxFailed, "calls failed beyond the expected count: %v", classes)
			for cl := range classes {
				assert.Contains(t, []string{"connection", "api-503-service_unavailable"}, cl, "a failure the faults do not explain")
			}

			// The recovery a caller makes: the same call again with the same key. It must
			// replay or finish the first attempt, never add a second task.
			retry := newClient(t, srv, failureBudget)
			for i := range failed {
				_, err := retry.Tasks.Create(ctx, params(i), taskrouting.WithIdempotencyKey(key(i)))
				require.NoError(t, err, "call %d again with its key", i)
			}

			srv.ClearFaults()
			seen := make([]int, n)
			for _, tk := range allTasks(ctx, t, c) {
				i, err := metaIndex(tk)
				require.NoError(t, err)
				require.True(t, i >= 0 && i < n, "meta.n %d out of range", i)
				seen[i]++
			}
			want := make([]int, n)
			for i := range want {
				want[i] = 1
			}
			assert.Empty(t, cmp.Diff(want, seen), "every call's task exists exactly once (index = call, value = copies)")
			counts := faultCounts(srv)
			assert.Positive(t, counts["drop-after-commit"], "the faults did fire")
			assert.Positive(t, counts["status"])
			assert.Positive(t, counts["drop-before-commit"])
		})
	}
}
