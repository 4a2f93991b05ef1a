package taskrouting

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRawKeepsTheBodyExactly: when a task, a worker or a worker's profile is
// the call's whole answer, its Raw is the body byte for byte, whitespace
// around it included, as the Raw doc comments promise.
func TestRawKeepsTheBodyExactly(t *testing.T) {
	bodies := map[string]string{
		"/v1/tasks/task_1":   "\n  {\"id\":\"task_1\",\"status\":\"queued\",\"tags\":[],\"createdAt\":1763700000000, \"future\":{\"x\":1}}\t\r\n ",
		"/v1/workers/w1":     " {\"id\":\"w1\",\"tags\":[\"billing\"],\"available\":true}\n",
		"/v1/portal/me":      "\r\n{\"workerId\":\"w1\",\"available\":true,\"onBreak\":false}  ",
		"/v1/tasks/compact":  `{"id":"compact","status":"queued"}`,
		"/v1/workers/spaced": "{ \"id\" : \"spaced\" }",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(bodies[r.URL.Path]))
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1")
	wc := newTestWorkerClient(t, srv.URL+"/v1")
	signIn(wc)
	ctx := context.Background()

	got := map[string]string{}
	for _, id := range []string{"task_1", "compact"} {
		task, err := c.Tasks.Get(ctx, id)
		require.NoError(t, err)
		got["/v1/tasks/"+id] = string(task.Raw)
	}
	for _, id := range []string{"w1", "spaced"} {
		worker, err := c.Workers.Get(ctx, id)
		require.NoError(t, err)
		got["/v1/workers/"+id] = string(worker.Raw)
	}
	me, err := wc.Me(ctx)
	require.NoError(t, err)
	got["/v1/portal/me"] = string(me.Raw)
	diff(t, "Raw per answer", bodies, got)

	task, err := c.Tasks.Get(ctx, "task_1")
	require.NoError(t, err)
	task.Raw[0] = 'X' // Raw is the caller's own copy: changing it changes nothing else
	again, err := c.Tasks.Get(ctx, "task_1")
	require.NoError(t, err)
	assert.Equal(t, bodies["/v1/tasks/task_1"], string(again.Raw))
}
