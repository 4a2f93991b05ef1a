package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIdempotency(t *testing.T) {
	t.Parallel()
	clk := NewManualClock(t0)
	srv := Start(t, WithClock(clk))
	body := map[string]any{"tags": []string{"english"}}

	first := api(t, srv, "POST", "/tasks", body, "Idempotency-Key", "key-1")
	require.Equal(t, 202, first.Status)
	again := api(t, srv, "POST", "/tasks", body, "Idempotency-Key", "key-1")
	assert.Equal(t, 202, again.Status)
	assert.Equal(t, string(first.Body), string(again.Body), "the stored answer is replayed")
	assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	assert.Len(t, srv.Events(), 0, "no worker, no match")
	assert.Equal(t, "999999", again.Header.Get("X-Quota-Queued-Tasks-Remaining"), "one task exists, not two")

	conflict := api(t, srv, "POST", "/tasks", map[string]any{"tags": []string{"billing"}}, "Idempotency-Key", "key-1")
	assert.Equal(t, 409, conflict.Status)
	assert.Equal(t, CodeIdempotencyConflict, conflict.errCode(t))

	clk.Advance(IdempotencyWindow)
	later := api(t, srv, "POST", "/tasks", body, "Idempotency-Key", "key-1")
	assert.Equal(t, 202, later.Status)
	assert.NotEqual(t, string(first.Body), string(later.Body), "after 24h the key is forgotten and a new task made")
}

func TestIdempotencyIsPerWorkspace(t *testing.T) {
	t.Parallel()
	const keyB = "sk_test_b"
	srv := Start(t, WithExtraAPIKey(keyB))
	a := api(t, srv, "POST", "/tasks", map[string]any{"id": "task_a", "tags": []string{"x"}}, "Idempotency-Key", "same")
	b := call(t, srv, keyB, "POST", "/tasks", map[string]any{"id": "task_b", "tags": []string{"x"}}, "Idempotency-Key", "same")
	assert.Equal(t, []int{202, 202}, []int{a.Status, b.Status})
	assert.Contains(t, string(b.Body), "task_b")
}

func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cases := []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/nope", 404, CodeNotFound},
		{"GET", "/tasks/a/b/c", 404, CodeNotFound},
		{"PUT", "/tasks", 405, CodeMethodNotAllowed},
		{"DELETE", "/workers", 405, CodeMethodNotAllowed},
		{"GET", "/tasks/bad%20id", 400, CodeValidationFailed},
	}
	for _, tc := range cases {
		a := api(t, srv, tc.method, tc.path, nil)
		assert.Equal(t, tc.status, a.Status, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.code, a.errCode(t), "%s %s", tc.method, tc.path)
	}
	a := api(t, srv, "PUT", "/tasks", nil)
	assert.Equal(t, "POST, GET", a.Header.Get("Allow"))
}

func TestFaults(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	require.NoError(t, srv.InjectFault(Fault{Method: "POST", Path: "/tasks", Status: 503, RetryAfter: 1500 * time.Millisecond, Times: 1}))
	a := api(t, srv, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"x"}})
	assert.Equal(t, 503, a.Status)
	assert.Equal(t, "2", a.Header.Get("Retry-After"), "seconds, rounded up")
	assert.Equal(t, 404, api(t, srv, "GET", "/tasks/task_1", nil).Status, "a status fault changes nothing")
	assert.Equal(t, 202, api(t, srv, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"x"}}).Status, "Times: 1 is used up")

	require.NoError(t, srv.InjectFault(Fault{Path: "/v1/tasks/*", Status: 500, Times: 1}))
	assert.Equal(t, 500, api(t, srv, "GET", "/tasks/task_1", nil).Status, "a pattern with the base path matches too")

	require.NoError(t, srv.InjectFault(Fault{Method: "POST", Path: "/tasks", DropAfterCommit: true, Times: 1}))
	req, _ := http.NewRequest("POST", srv.URL()+"/tasks", strings.NewReader(`{"id":"task_3","tags":["x"]}`))
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	_, err := http.DefaultClient.Do(req)
	require.Error(t, err)
	assert.Equal(t, 200, api(t, srv, "GET", "/tasks/task_3", nil).Status, "dropped after commit: the task exists")

	require.NoError(t, srv.InjectFault(Fault{Method: "POST", Path: "/tasks", DropBeforeCommit: true, Times: 1}))
	req, _ = http.NewRequest("POST", srv.URL()+"/tasks", strings.NewReader(`{"id":"task_4","tags":["x"]}`))
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err)
	assert.Equal(t, 404, api(t, srv, "GET", "/tasks/task_4", nil).Status, "dropped before commit: nothing happened")

	var faults []string
	for _, r := range srv.Requests() {
		faults = append(faults, r.Fault)
	}
	assert.Contains(t, faults, "drop-before-commit")
	assert.Contains(t, faults, "drop-after-commit")
	assert.Contains(t, faults, "status")
}

func TestFaultFractionIsSeeded(t *testing.T) {
	t.Parallel()
	hits := func() []int {
		srv := Start(t)
		require.NoError(t, srv.InjectFault(Fault{Method: "GET", Status: 500, Fraction: 0.3, Seed: 42}))
		var out []int
		for i := range 50 {
			if api(t, srv, "GET", "/workers", nil).Status == 500 {
				out = append(out, i)
			}
		}
		return out
	}
	first, second := hits(), hits()
	assert.Empty(t, cmp.Diff(first, second), "the same seed faults the same requests")
	assert.InDelta(t, 15, len(first), 10)
}

func TestInvalidFaultsAreRefused(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	for _, f := range []Fault{{}, {Status: 200}, {Status: 500, Fraction: 2}, {Status: 500, DropAfterCommit: true}, {Path: "[", Status: 500}} {
		assert.ErrorIs(t, srv.InjectFault(f), ErrInvalidFault, "%+v", f)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	clk := NewManualClock(t0)
	srv := Start(t, WithClock(clk), WithLimits(Limits{TaskRate: 2, TaskRateWindow: 10 * time.Second, QueuedTasks: 3, Workers: 1, WorkerSkills: 2}))
	for range 2 {
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"tags": []string{"x"}})
	}
	limited := api(t, srv, "POST", "/tasks", map[string]any{"tags": []string{"x"}})
	assert.Equal(t, 429, limited.Status)
	assert.Equal(t, CodeRateLimited, limited.errCode(t))
	assert.Equal(t, "10", limited.Header.Get("Retry-After"))
	assert.Equal(t, "0", limited.Header.Get("X-Quota-Task-Rate-Remaining"))
	clk.Advance(10 * time.Second)
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"tags": []string{"x"}})
	clk.Advance(10 * time.Second)
	plan := api(t, srv, "POST", "/tasks", map[string]any{"tags": []string{"x"}})
	assert.Equal(t, 402, plan.Status, "three open tasks is the plan's limit")
	assert.Equal(t, "0", plan.Header.Get("X-Quota-Queued-Tasks-Remaining"))

	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a", "b"}})
	assert.Equal(t, 402, api(t, srv, "POST", "/workers", map[string]any{"id": "w2"}).Status, "one worker is the limit")
	assert.Equal(t, 402, api(t, srv, "PATCH", "/workers/w1", map[string]any{"tags": []string{"a", "b", "c"}}).Status)
	mustAPI(t, srv, 200, "PATCH", "/workers/w1", map[string]any{"tags": []string{"c"}})
}

func TestRequestsAreRecordedWithoutTheKey(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	api(t, srv, "GET", "/workers", nil)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/v1/workers", reqs[0].Path)
	assert.Equal(t, 200, reqs[0].StatusCode)
	assert.Equal(t, "Bearer [REDACTED]", reqs[0].Header.Get("Authorization"))
	for _, r := range reqs {
		for _, vs := range r.Header {
			for _, v := range vs {
				assert.NotContains(t, v, srv.APIKey())
			}
		}
	}
}

func TestResetAndClose(t *testing.T) {
	t.Parallel()
	srv, err := New(WithClock(NewManualClock(t0)))
	require.NoError(t, err)
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "a", "tags": []string{"x"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t", "tags": []string{"x"}})
	require.NoError(t, srv.InjectFault(Fault{Method: "DELETE", Status: 500}))
	srv.Reset()
	assert.Empty(t, srv.Events())
	assert.Equal(t, 404, api(t, srv, "GET", "/tasks/t", nil).Status)
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "a", "tags": []string{"x"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t", "tags": []string{"x"}})
	assert.NotEqual(t, "evt_1", srv.Events()[0].ID, "event ids after a reset do not repeat earlier ones")
	assert.Equal(t, 204, api(t, srv, "DELETE", "/tasks/t", nil).Status, "faults were cleared")

	srv.Close()
	srv.Close()
	_, err = http.Get(srv.URL() + "/workers")
	assert.Error(t, err, "closed")
}

func TestHandlerWithoutSocket(t *testing.T) {
	t.Parallel()
	srv, err := NewUnstarted()
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	req, _ := http.NewRequestWithContext(context.Background(), "POST", BasePath+"/workers", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	rec := newRecorder()
	srv.Handler().ServeHTTP(rec, req)
	assert.Equal(t, 200, rec.status)
	assert.Contains(t, rec.body.String(), `"id":"wrk_`)
	assert.Equal(t, "999999", rec.header.Get("X-Quota-Workers-Remaining"))
}

// The same seed makes the same server-generated ids.
func TestSeedMakesIDsReproducible(t *testing.T) {
	t.Parallel()
	ids := func() []string {
		srv := Start(t, WithSeed(7), WithClock(NewManualClock(t0)))
		var out []string
		for range 3 {
			out = append(out, mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"tags": []string{"x"}}).json(t)["id"].(string))
			out = append(out, mustAPI(t, srv, 200, "POST", "/workers", map[string]any{}).json(t)["id"].(string))
		}
		return out
	}
	first := ids()
	assert.Empty(t, cmp.Diff(first, ids()))
	assert.Regexp(t, `^task_[a-z0-9]{12}$`, first[0])
	assert.Regexp(t, `^wrk_[a-z0-9]{12}$`, first[1])
}

func TestAdminEndpoints(t *testing.T) {
	t.Parallel()
	real := Start(t)
	cases := []struct {
		srv          *Server
		key          string
		method, path string
		body         any
		status       int
	}{
		{real, real.APIKey(), "POST", "/_mock/clock/advance", map[string]any{"ms": 1}, 409},
		{real, real.APIKey(), "POST", "/_mock/faults", map[string]any{"status": 200}, 400},
		{real, real.APIKey(), "POST", "/_mock/faults", map[string]any{"bogus": 1}, 400},
		{real, real.APIKey(), "GET", "/_mock/nothing", nil, 404},
		{real, "", "GET", "/_mock/events", nil, 401},
		{real, real.APIKey(), "GET", "/_mock/clock", nil, 200},
		{real, real.APIKey(), "POST", "/_mock/flush", nil, 204},
		{real, real.APIKey(), "GET", "/_mock/deliveries", nil, 200},
		{real, real.APIKey(), "GET", "/_mock/requests", nil, 200},
		{real, real.APIKey(), "DELETE", "/_mock/faults", nil, 204},
	}
	for _, tc := range cases {
		root := strings.TrimSuffix(tc.srv.URL(), BasePath)
		var rd io.Reader
		if tc.body != nil {
			raw, _ := json.Marshal(tc.body)
			rd = bytes.NewReader(raw)
		}
		req, err := http.NewRequest(tc.method, root+tc.path, rd)
		require.NoError(t, err)
		if tc.key != "" {
			req.Header.Set("Authorization", "Bearer "+tc.key)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, tc.status, resp.StatusCode, "%s %s", tc.method, tc.path)
	}
}
