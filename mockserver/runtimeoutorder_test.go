package mockserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestRunTimeoutComesBeforeALaterOfferExpiry holds the manual clock's time order across run
// step timeouts and the matcher's offer expiries: an assignment step that times out at 30 s
// cancels its task then, so the task's offer (60 s by default) never expires, even while
// another run's step waits until 5 min.
func TestRunTimeoutComesBeforeALaterOfferExpiry(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()

	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	_, err = c.Workflows.Save(ctx, "wf_assign", taskrouting.SaveWorkflowParams{Name: "Assign", InitialStepID: "collect", Steps: []taskrouting.WorkflowStep{
		{ID: "collect", Name: "Collect", TaskType: "assignment", AssignmentTemplate: map[string]any{"tags": []string{"english"}},
			Timeout: 30 * time.Second, EndWorkflow: true}}})
	require.NoError(t, err)
	_, err = c.Workflows.Save(ctx, "wf_wait", taskrouting.SaveWorkflowParams{Name: "Wait", InitialStepID: "wait", Steps: []taskrouting.WorkflowStep{
		{ID: "wait", Name: "Wait", TaskType: "external", External: map[string]any{"name": "callback"}, Timeout: 5 * time.Minute, EndWorkflow: true}}})
	require.NoError(t, err)
	waiting, err := c.Workflows.Run(ctx, "wf_wait", taskrouting.StartRunParams{})
	require.NoError(t, err)
	assign, err := c.Workflows.Run(ctx, "wf_assign", taskrouting.StartRunParams{})
	require.NoError(t, err)
	taskID := assign.CurrentTaskID
	require.NotEmpty(t, taskID)

	clk.Advance(10 * time.Minute)

	type event struct {
		Kind   string
		Worker string
		At     time.Duration
	}
	var got []event
	for _, ev := range srv.Events() {
		if ev.TaskID == taskID {
			got = append(got, event{string(ev.Kind), ev.WorkerID, ev.CreatedAt.Sub(t0)})
		}
	}
	want := []event{{"task.matched", "agent_1", 0}, {"task.cancelled", "agent_1", 30 * time.Second}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events of the step's task (-want +got):\n%s", diff)
	}
	for id, at := range map[string]time.Duration{assign.ID: 30 * time.Second, waiting.ID: 5 * time.Minute} {
		view, err := c.Runs.Steps(ctx, id)
		require.NoError(t, err)
		require.Len(t, view.Steps, 1)
		if diff := cmp.Diff([]any{"failed", t0.Add(at)}, []any{view.Status, view.Steps[0].CompletedAt}); diff != "" {
			t.Errorf("run %s (-want +got):\n%s", id, diff)
		}
	}
}

// TestRunAssignmentStepEdges pins how an assignment step ends outside its worker's decision:
// the caller cancelling its task fails the step, the caller cannot complete or fail it as if
// it were an external step, and a workspace at its queued-task limit fails the step at once.
func TestRunAssignmentStepEdges(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk), mockserver.WithLimits(mockserver.Limits{QueuedTasks: 1}))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()

	_, err := c.Workflows.Save(ctx, "wf_assign", taskrouting.SaveWorkflowParams{Name: "Assign", InitialStepID: "collect", Steps: []taskrouting.WorkflowStep{
		{ID: "collect", Name: "Collect", TaskType: "assignment", AssignmentTemplate: map[string]any{"tags": []string{"english"}}, EndWorkflow: true}}})
	require.NoError(t, err)
	first, err := c.Workflows.Run(ctx, "wf_assign", taskrouting.StartRunParams{})
	require.NoError(t, err)
	require.NotEmpty(t, first.CurrentTaskID)

	for name, call := range map[string]func() (*taskrouting.WorkflowRun, error){
		"complete": func() (*taskrouting.WorkflowRun, error) { return c.Runs.CompleteStep(ctx, first.ID, "collect", nil) },
		"fail":     func() (*taskrouting.WorkflowRun, error) { return c.Runs.FailStep(ctx, first.ID, "collect", "no") },
	} {
		_, err := call()
		require.ErrorIs(t, err, taskrouting.ErrInvalidState, name)
		require.ErrorContains(t, err, "only external (callback) steps are completed by the caller", name)
	}
	require.Equal(t, map[string]string{"collect": "active"}, stepStates(t, c, first.ID), "a refused call leaves the step as it was")

	// The limit of one queued task is taken by the first run's task.
	second, err := c.Workflows.Run(ctx, "wf_assign", taskrouting.StartRunParams{})
	require.NoError(t, err)
	clk.Advance(time.Second)
	require.NoError(t, c.Tasks.Cancel(ctx, first.CurrentTaskID))

	type ended struct {
		Status string
		Task   string
		Result map[string]any
		At     time.Time
	}
	got := map[string]ended{}
	for _, id := range []string{first.ID, second.ID} {
		view, err := c.Runs.Steps(ctx, id)
		require.NoError(t, err)
		require.Len(t, view.Steps, 1)
		got[id] = ended{view.Status + "/" + view.Steps[0].State, view.Steps[0].TaskID, view.Steps[0].Result, view.Steps[0].CompletedAt}
	}
	want := map[string]ended{
		first.ID:  {"failed/failed", first.CurrentTaskID, map[string]any{"error": "the step's task was cancelled"}, t0.Add(time.Second)},
		second.ID: {"failed/failed", "", map[string]any{"error": "plan limit of queued tasks reached"}, t0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	assert.Empty(t, second.CurrentTaskID, "no task was made for the second run")
}
