package mockserver_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestRunTimeoutsFireAtTheirTimeWithinOneAdvance holds workflow step timeouts to the manual
// clock's promise (ManualClock.Advance): one Advance of ten minutes fails each waiting step
// at its own deadline, earliest first, whichever run started first, and a sequence step
// due before either is still sent at its own time.
func TestRunTimeoutsFireAtTheirTimeWithinOneAdvance(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()

	waiting := func(id string, timeout time.Duration) string {
		t.Helper()
		_, err := c.Workflows.Save(ctx, id, taskrouting.SaveWorkflowParams{Name: id, InitialStepID: "wait", Steps: []taskrouting.WorkflowStep{
			{ID: "wait", Name: "Wait", TaskType: "external", External: map[string]any{"name": "callback"}, Timeout: timeout, EndWorkflow: true}}})
		require.NoError(t, err)
		run, err := c.Workflows.Run(ctx, id, taskrouting.StartRunParams{})
		require.NoError(t, err)
		return run.ID
	}
	slow := waiting("wf_slow", 5*time.Minute+2*time.Second) // started first, times out last
	fast := waiting("wf_fast", 2*time.Minute+time.Second)

	_, url := startSink(t, http.StatusNoContent)
	_, err := c.Notifications.Channels.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: url, Events: []string{"task.expiring"}})
	require.NoError(t, err)
	_, err = c.Notifications.Sequences.Create(ctx, taskrouting.CreateNotificationSequenceParams{Name: "Nudge", FilterTags: []string{"billing"},
		Steps: []taskrouting.NotificationStep{{Trigger: "matched", Offset: 31 * time.Second, EventType: "task.expiring"}}})
	require.NoError(t, err)
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"billing"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"billing"}})
	require.NoError(t, err)
	_, err = c.Decisions.Accept(ctx, ref.ID, "agent_1")
	require.NoError(t, err)

	clk.Advance(10 * time.Minute)
	type ended struct {
		Status string
		At     time.Time
	}
	got := map[string]ended{}
	for _, id := range []string{slow, fast} {
		view, err := c.Runs.Steps(ctx, id)
		require.NoError(t, err)
		require.Len(t, view.Steps, 1)
		got[id] = ended{view.Status, view.Steps[0].CompletedAt}
	}
	want := map[string]ended{slow: {"failed", t0.Add(302 * time.Second)}, fast: {"failed", t0.Add(121 * time.Second)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	notes := srv.Notifications()
	require.Len(t, notes, 1)
	require.Equal(t, t0.Add(31*time.Second), notes[0].At, "the sequence step, due before both timeouts")
}
