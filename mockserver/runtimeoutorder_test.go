package mockserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
