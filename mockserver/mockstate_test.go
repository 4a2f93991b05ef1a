package mockserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// movedMembers are the members the mock server used to add to platform answers and now keeps
// on its admin surface only, by the operation whose answer carried them.
var movedMembers = map[string][]string{
	"tasks.get":       {"queuedAt", "offerExpiresAt", "vetoedWorkers", "rejectedBy", "description", "context", "references"},
	"workers.get":     {"onBreak", "createdAt", "lastMatchedAt"},
	"worker.me":       {"queueDepth", "breakReason"},
	"learning.status": {"learnedVeto", "halfLifeMs"},
}

// TestMockBookkeepingIsOnTheAdminSurface: the queue clock, offer deadline, vetoes,
// rejections, a worker's clocks and its break reason are read with Server.TaskState and
// Server.WorkerState (and GET /_mock/tasks/{id}, /_mock/workers/{id}), and no platform answer
// carries them (docs/contract.md, "Platform answers carry only platform members").
func TestMockBookkeepingIsOnTheAdminSurface(t *testing.T) {
	t.Parallel()
	srv, c, w := portalSetup(t)
	ctx := context.Background()
	t0 := time.UnixMilli(1763700000000)
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_3", Tags: []string{"french"},
		VetoedWorkers: []string{"agent_9"}, Description: "Call back"})
	require.NoError(t, err)
	_, err = w.Reject(ctx, "task_1") // agent_1 turns its offer down
	require.NoError(t, err)
	_, err = w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
	require.NoError(t, err)

	task1, err := srv.TaskState("task_1")
	require.NoError(t, err)
	assert.True(t, t0.Equal(task1.QueuedAt), "queuedAt %v", task1.QueuedAt)
	assert.Equal(t, []string{"agent_1"}, task1.RejectedBy)
	assert.True(t, task1.OfferExpiresAt.IsZero(), "queued again: no offer runs")
	task2, err := srv.TaskState("task_2")
	require.NoError(t, err)
	assert.True(t, t0.Add(time.Minute).Equal(task2.OfferExpiresAt), "offered at t0 for the default 60s: %v", task2.OfferExpiresAt)
	task3, err := srv.TaskState("task_3")
	require.NoError(t, err)
	assert.Equal(t, []string{"agent_9"}, task3.VetoedWorkers)
	_, err = srv.TaskState("nope")
	assert.ErrorIs(t, err, mockserver.ErrTaskNotFound)

	agent1, err := srv.WorkerState("agent_1")
	require.NoError(t, err)
	if diff := cmp.Diff(mockserver.WorkerState{ID: "agent_1", CreatedAt: t0, LastMatchedAt: t0, OnBreak: true, BreakReason: "lunch"},
		agent1, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("Server.WorkerState (-want +got):\n%s", diff)
	}
	_, err = srv.WorkerState("nope")
	assert.ErrorIs(t, err, mockserver.ErrWorkerNotFound)

	overHTTP := map[string]any{}
	require.Equal(t, http.StatusOK, adminJSON(t, srv, "/tasks/task_1", &overHTTP))
	assert.Equal(t, map[string]any{"id": "task_1", "queuedAt": float64(t0.UnixMilli()), "offerExpiresAt": nil,
		"vetoedWorkers": []any{}, "rejectedBy": []any{"agent_1"}}, overHTTP, "GET /_mock/tasks/{id}")
	overHTTP = map[string]any{}
	require.Equal(t, http.StatusOK, adminJSON(t, srv, "/workers/agent_1", &overHTTP))
	assert.Equal(t, map[string]any{"id": "agent_1", "createdAt": float64(t0.UnixMilli()), "lastMatchedAt": float64(t0.UnixMilli()),
		"onBreak": true, "breakReason": "lunch"}, overHTTP, "GET /_mock/workers/{id}")
	assert.Equal(t, http.StatusNotFound, adminJSON(t, srv, "/tasks/nope", nil))
	assert.Equal(t, http.StatusNotFound, adminJSON(t, srv, "/workers/nope", nil))

	answers := map[string]json.RawMessage{}
	task, err := c.Tasks.Get(ctx, "task_3")
	require.NoError(t, err)
	answers["tasks.get"] = task.Raw
	worker, err := c.Workers.Get(ctx, "agent_1")
	require.NoError(t, err)
	answers["workers.get"] = worker.Raw
	me, err := w.Me(ctx)
	require.NoError(t, err)
	answers["worker.me"] = me.Raw
	answers["learning.status"] = rawGet(t, srv, "/learning/status")
	for op, members := range movedMembers {
		var got map[string]any
		require.NoError(t, json.Unmarshal(answers[op], &got), op)
		for _, m := range members {
			assert.NotContains(t, got, m, "%s answers the platform's members only", op)
		}
	}
}

// adminJSON sends GET to an admin endpoint (path under /_mock) with the server's key,
// decodes a 200 answer into out and returns the status.
func adminJSON(t *testing.T, srv *mockserver.Server, path string, out any) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.AdminURL()+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if resp.StatusCode == http.StatusOK && out != nil {
		require.NoError(t, json.Unmarshal(body, out), "%s", body)
	}
	return resp.StatusCode
}

// rawGet is a workspace-plane GET answered 200, its body as received.
func rawGet(t *testing.T, srv *mockserver.Server, path string) json.RawMessage {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL()+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	return body
}
