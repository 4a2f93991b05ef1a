package mockserver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

func newClient(t *testing.T, srv *mockserver.Server, key string) *taskrouting.Client {
	t.Helper()
	c, err := taskrouting.NewClient(srv.URL(), key, taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	return c
}

// TestClientAgainstServer runs the SDK client over real HTTP through every operation of both
// API tables: this is where the client and the server prove they agree on the wire.
func TestClientAgainstServer(t *testing.T) {
	t.Parallel()
	clk := mockserver.NewManualClock(time.UnixMilli(1763700000000))
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	ignoreRaw := cmpopts.IgnoreFields(taskrouting.WorkerDetail{}, "Raw")

	// workers.upsert, workers.patch, workers.get, workers.list
	ref, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english", "billing"},
		RoutingWeights: map[string]float64{"english": 100}, MaxBacklogSize: taskrouting.Ptr(3),
		Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	assert.Equal(t, "agent_1", ref.ID)
	_, err = c.Workers.Patch(ctx, "agent_1", taskrouting.PatchWorkerParams{RoutingWeights: map[string]float64{"english": 100, "billing": 50}})
	require.NoError(t, err)
	w, err := c.Workers.Get(ctx, "agent_1")
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(&taskrouting.WorkerDetail{ID: "agent_1", Tags: []string{"english", "billing"},
		RoutingWeights: map[string]float64{"english": 100, "billing": 50}, MaxBacklogSize: taskrouting.Ptr(3),
		Available: true}, w, ignoreRaw, cmpopts.EquateEmpty()))
	list, err := c.Workers.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(&taskrouting.WorkerList{Workers: []string{"agent_1"}, Count: 1}, list))

	// tasks.suggestWorkers is a dry run.
	sug, err := c.Tasks.SuggestWorkers(ctx, taskrouting.SuggestWorkersParams{Tags: []string{"english", "billing"}, Priority: taskrouting.Ptr(90.0)})
	require.NoError(t, err)
	require.Len(t, sug.Workers, 1)
	assert.True(t, sug.Workers[0].Eligible)
	assert.InDelta(t, 150, sug.Workers[0].Score, 1e-9)

	// tasks.create with echoed members, tasks.get, tasks.list, workers.queue, decisions.list
	created, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_8fk2", Tags: []string{"english", "billing"}, Priority: 90,
		Meta: map[string]any{"orderId": "o_123"}, Title: "Refund request",
		Escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: time.Minute, OnNoResponse: "allow"}),
		SLA:        taskrouting.Null[taskrouting.SLA]()})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TaskRef{ID: "task_8fk2", Status: taskrouting.TaskStatusQueued}, created)
	task, err := c.Tasks.Get(ctx, "task_8fk2")
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusPending, task.Status, "matching ran before the create returned")
	assert.Equal(t, "agent_1", task.WorkerID)
	assert.Equal(t, "Refund request", task.Title)
	assert.Equal(t, map[string]any{"orderId": "o_123"}, task.Meta)
	assert.Equal(t, &taskrouting.Escalation{RespondWithin: time.Minute, OnNoResponse: "allow"}, task.Escalation)
	assert.Nil(t, task.SLA)
	assert.True(t, task.CreatedAt.Equal(clk.Now()))
	var listed []string
	for tk, err := range c.Tasks.List(ctx, taskrouting.ListTasksParams{Status: taskrouting.TaskStatusPending}) {
		require.NoError(t, err)
		listed = append(listed, tk.ID)
	}
	assert.Equal(t, []string{"task_8fk2"}, listed)
	q, err := c.Workers.Queue(ctx, "agent_1")
	require.NoError(t, err)
	assert.Equal(t, []string{"task_8fk2"}, q.TaskIDs)
	decs, err := c.Decisions.List(ctx, taskrouting.ListDecisionsParams{TaskID: "task_8fk2"})
	require.NoError(t, err)
	require.Len(t, decs, 1)
	assert.Equal(t, "agent_1", decs[0].WorkerID)
	assert.True(t, decs[0].Candidates[0].Chosen)

	// tasks.setPriority, tasks.accept, tasks.complete
	pr, err := c.Tasks.SetPriority(ctx, "task_8fk2", 95)
	require.NoError(t, err)
	assert.Equal(t, 95.0, pr.Priority)
	acc, err := c.Decisions.Accept(ctx, "task_8fk2", "agent_1")
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusAccepted, acc.Status)
	done, err := c.Decisions.Complete(ctx, "task_8fk2", "agent_1", map[string]any{"resolved": true})
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusCompleted, done.Status)
	_, err = c.Decisions.Accept(ctx, "task_8fk2", "agent_1")
	assert.ErrorIs(t, err, taskrouting.ErrInvalidState, "terminal states stay terminal")

	// tasks.reject, tasks.assign, workers.setAvailability, tasks.cancel
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_9aa3", Tags: []string{"english", "billing"}})
	require.NoError(t, err)
	rej, err := c.Decisions.Reject(ctx, "task_9aa3", "agent_1")
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusQueued, rej.Status)
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_2", Tags: []string{"english", "billing"}, MaxBacklogSize: taskrouting.Ptr(0), Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	as, err := c.Tasks.Assign(ctx, "task_9aa3", taskrouting.AssignTaskParams{WorkerID: "agent_2", Force: true})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.Assignment{ID: "task_9aa3", Status: taskrouting.TaskStatusPending, WorkerID: "agent_2"}, as)
	av, err := c.Workers.SetAvailability(ctx, "agent_2", taskrouting.SetAvailabilityParams{Available: false, ReleaseBacklog: true})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.Availability{ID: "agent_2", ReleasedTaskIDs: []string{"task_9aa3"}}, av)
	require.NoError(t, c.Tasks.Cancel(ctx, "task_9aa3"))
	gone, err := c.Tasks.Get(ctx, "task_9aa3")
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusCancelled, gone.Status)

	// learning.status, learning.workerStats, workers.remove
	ls, err := c.Learning.Status(ctx)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.LearningStatus{ShadowMode: true}, ls, "learning off by default, as the platform answers")
	st, err := c.Learning.WorkerStats(ctx, "agent_1")
	require.NoError(t, err)
	assert.Equal(t, "agent_1", st.WorkerID)
	assert.NotEmpty(t, st.Skills)
	require.NoError(t, c.Workers.Remove(ctx, "agent_2"))
	_, err = c.Workers.Get(ctx, "agent_2")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)

	// Errors the client branches on, and the quota snapshot.
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_8fk2", Tags: []string{"english"}})
	assert.ErrorIs(t, err, taskrouting.ErrTaskExists)
	var apiErr *taskrouting.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, 409, apiErr.StatusCode)
	assert.Equal(t, mockserver.Unlimited, c.Quota().TaskRate.Limit)
	assert.Equal(t, 1, mockserver.Unlimited-c.Quota().Workers.Remaining)

	other := newClient(t, srv, "sk_test_not_a_key")
	_, err = other.Workers.List(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized)
}

// Each key reaches its own workspace: ids of one are not found through the other.
func TestClientWorkspacesAreIsolated(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t, mockserver.WithExtraAPIKey("sk_test_second_workspace"))
	ctx := context.Background()
	a, b := newClient(t, srv, srv.APIKey()), newClient(t, srv, "sk_test_second_workspace")
	_, err := a.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_a", Tags: []string{"x"}})
	require.NoError(t, err)
	_, err = b.Tasks.Get(ctx, "task_a")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
	_, err = b.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_a", Tags: []string{"y"}})
	assert.NoError(t, err, "the same id is free in another workspace")
	ta, err := a.Tasks.Get(ctx, "task_a")
	require.NoError(t, err)
	assert.Equal(t, []string{"x"}, ta.Tags)
}

// TestTaskResultReadBack: what Complete stored comes back as Task.Result, without Raw.
func TestTaskResultReadBack(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"x"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"x"}})
	require.NoError(t, err)
	_, err = c.Decisions.Accept(ctx, "t1", "ana")
	require.NoError(t, err)
	_, err = c.Decisions.Complete(ctx, "t1", "ana", map[string]any{"resolved": true})
	require.NoError(t, err)
	got, err := c.Tasks.Get(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"resolved": true}, got.Result)
}
