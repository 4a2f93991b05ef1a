package e2e

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// long reports whether the full sizes of docs/reliability.md were asked for.
func long() bool { return os.Getenv("TASKROUTING_LONG") == "1" }

// size picks the CI size or, with TASKROUTING_LONG=1, the full one.
func size(short, full int) int {
	if long() {
		return full
	}
	return short
}

// t0 is the story clock the manual-clock tests start from: 2025-11-21T04:40:00Z.
var t0 = time.UnixMilli(1763700000000).UTC()

// reliabilityFaults are the faults of docs/reliability.md section 1 on every POST, in the order the server checks them:
// 30% of answers dropped after the change is committed, 10% refused with 503 and
// Retry-After, 5% of connections reset before anything runs. Each has its own seed so a
// failure replays with the same dice (the goroutine schedule still varies).
func reliabilityFaults(seed uint64) []mockserver.Fault {
	return []mockserver.Fault{
		{Method: "POST", DropAfterCommit: true, Fraction: 0.30, Seed: seed},
		{Method: "POST", Status: 503, RetryAfter: time.Second, Fraction: 0.10, Seed: seed + 1},
		{Method: "POST", DropBeforeCommit: true, Fraction: 0.05, Seed: seed + 2},
	}
}

func injectAll(t *testing.T, srv *mockserver.Server, faults []mockserver.Fault) {
	t.Helper()
	for _, f := range faults {
		require.NoError(t, srv.InjectFault(f))
	}
}

// faultCounts tallies what the server did to the requests it recorded, by fault kind.
func faultCounts(srv *mockserver.Server) map[string]int {
	counts := map[string]int{}
	for _, r := range srv.Requests() {
		kind := r.Fault
		if kind == "" {
			kind = "none"
		}
		counts[kind]++
	}
	return counts
}

// failureBudget is the retry budget the exactly-once tests use. A POST attempt fails with
// probability 1-(0.70*0.90*0.95) ≈ 0.40 under reliabilityFaults (drops after commit are followed
// by a replayed answer, which can fail again), so a call fails after 1+r attempts with
// probability about 0.40^(1+r): with r = 20 that is below 1e-8 per call, so no call of
// even the 10,000-call run is expected to fail. With the default budget (2 retries) up to
// 6.5% would, which TestCreateExactlyOnce/default-budget shows and recovers from.
const failureBudget = 20

// newClient builds a client for srv with the given retry budget; a negative budget keeps the
// client's default. The backoff between attempts without Retry-After is kept short so the
// tests spend their time on the faults, not on waiting.
func newClient(t testing.TB, srv *mockserver.Server, retries int) *taskrouting.Client {
	t.Helper()
	opts := []taskrouting.RequestOption{taskrouting.WithRetryWait(time.Millisecond, 20*time.Millisecond)}
	if retries >= 0 {
		opts = append(opts, taskrouting.WithMaxRetries(retries))
	}
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), opts...)
	require.NoError(t, err)
	return c
}

// fanOut runs fn(i) for i in [0, n) on the given number of goroutines and returns when all
// calls have returned.
func fanOut(n, goroutines int, fn func(i int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				fn(i)
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// allTasks lists every task of the workspace through the client, following cursors.
func allTasks(ctx context.Context, t *testing.T, c *taskrouting.Client) []taskrouting.Task {
	t.Helper()
	var out []taskrouting.Task
	for tk, err := range c.Tasks.List(ctx, taskrouting.ListTasksParams{Status: taskrouting.TaskStatusAll, Limit: 100}) {
		require.NoError(t, err)
		out = append(out, tk)
	}
	return out
}

// metaIndex reads the "n" member the exactly-once tests put in every task's meta, which
// names the call that created it independently of the id the server chose.
func metaIndex(tk taskrouting.Task) (int, error) {
	v, ok := tk.Meta["n"].(float64)
	if !ok {
		return 0, fmt.Errorf("task %s has no meta.n: %v", tk.ID, tk.Meta)
	}
	return int(v), nil
}
