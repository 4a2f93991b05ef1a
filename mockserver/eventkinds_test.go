package mockserver_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// TestEveryEventKindDecodes drives the server through a story that emits every event kind it
// has, then decodes each payload exactly as it would be delivered with the webhook package:
// ParseEvent, then the typed accessor of its kind. Each accessor must agree with the server's
// own record of the event and carry its kind's members.
func TestEveryEventKindDecodes(t *testing.T) {
	t.Parallel()
	clk := mockserver.NewManualClock(time.UnixMilli(1763700000000))
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	must := func(_ any, err error) { t.Helper(); require.NoError(t, err) }

	must(c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}, Available: taskrouting.Ptr(true)}))
	must(c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"english"}}))             // task.matched
	must(c.Decisions.Accept(ctx, "t1", "agent_1"))                                                           // task.accepted
	must(c.Decisions.Complete(ctx, "t1", "agent_1", map[string]any{"resolved": true}))                       // task.completed
	must(c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t2", Tags: []string{"english"}}))             // task.matched
	must(c.Decisions.Reject(ctx, "t2", "agent_1"))                                                           // task.rejected
	must(c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t3", Tags: []string{"english"}}))             // task.matched
	clk.Advance(2 * time.Minute)                                                                             // task.expired, matched again
	must(c.Workers.SetAvailability(ctx, "agent_1", taskrouting.SetAvailabilityParams{ReleaseBacklog: true})) // task.released
	require.NoError(t, c.Tasks.Cancel(ctx, "t2"))                                                            // task.cancelled
	must(c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 1", PIN: taskrouting.NewSecret("4921")}))
	w, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	require.NoError(t, sessionErr(w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})))
	must(w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})) // worker.break_started
	must(w.EndBreak(ctx))                                                  // worker.break_ended

	// decode returns the task and worker an accessor read, and checks its kind's own members.
	decode := map[webhook.Kind]func(t *testing.T, ev webhook.Event) (taskID, workerID string, err error){
		webhook.KindTaskMatched: func(t *testing.T, ev webhook.Event) (string, string, error) {
			m, err := ev.TaskMatched()
			assert.NotEmpty(t, m.DecisionID)
			assert.True(t, m.ExpiresAt.After(m.MatchedAt), "the offer runs out after it was made")
			assert.Equal(t, []string{"english"}, m.Tags)
			return m.TaskID, m.WorkerID, err
		},
		webhook.KindTaskAccepted: func(_ *testing.T, ev webhook.Event) (string, string, error) {
			a, err := ev.TaskAccepted()
			return a.TaskID, a.WorkerID, err
		},
		webhook.KindTaskRejected: func(_ *testing.T, ev webhook.Event) (string, string, error) {
			r, err := ev.TaskRejected()
			return r.TaskID, r.WorkerID, err
		},
		webhook.KindTaskCompleted: func(t *testing.T, ev webhook.Event) (string, string, error) {
			d, err := ev.TaskCompleted()
			assert.JSONEq(t, `{"resolved":true}`, string(d.Result))
			return d.TaskID, d.WorkerID, err
		},
		webhook.KindTaskExpired: func(_ *testing.T, ev webhook.Event) (string, string, error) {
			x, err := ev.TaskExpired()
			return x.TaskID, x.WorkerID, err
		},
		webhook.KindTaskCancelled: func(_ *testing.T, ev webhook.Event) (string, string, error) {
			x, err := ev.TaskCancelled()
			return x.TaskID, x.WorkerID, err
		},
		webhook.KindTaskReleased: func(t *testing.T, ev webhook.Event) (string, string, error) {
			r, err := ev.TaskReleased()
			assert.Equal(t, webhook.ReleaseBacklog, r.Reason)
			return r.TaskID, r.WorkerID, err
		},
		webhook.KindWorkerBreakStarted: func(t *testing.T, ev webhook.Event) (string, string, error) {
			b, err := ev.WorkerBreakStarted()
			assert.Equal(t, "lunch", b.Reason)
			return "", b.WorkerID, err
		},
		webhook.KindWorkerBreakEnded: func(t *testing.T, ev webhook.Event) (string, string, error) {
			b, err := ev.WorkerBreakEnded()
			assert.Equal(t, "lunch", b.Reason, "the reason the break was started with")
			return "", b.WorkerID, err
		},
	}

	var seen []webhook.Kind
	for _, rec := range srv.Events() {
		ev, err := webhook.ParseEvent(rec.Payload)
		require.NoError(t, err, "%s", rec.Payload)
		require.Equal(t, rec.Kind, ev.Kind)
		get, ok := decode[ev.Kind]
		if !assert.True(t, ok, "kind %q has no typed accessor", ev.Kind) {
			continue
		}
		t.Run(string(ev.Kind)+"/"+ev.ID, func(t *testing.T) {
			taskID, workerID, err := get(t, ev)
			require.NoError(t, err, "%s", rec.Payload)
			assert.Equal(t, rec.TaskID, taskID)
			assert.Equal(t, rec.WorkerID, workerID)
			assert.Equal(t, rec.ID, ev.ID)
			assert.True(t, rec.CreatedAt.Equal(ev.CreatedAt))
		})
		if !slices.Contains(seen, ev.Kind) {
			seen = append(seen, ev.Kind)
		}
	}
	var all []webhook.Kind
	for k := range decode {
		all = append(all, k)
	}
	slices.Sort(all)
	slices.Sort(seen)
	assert.Equal(t, all, seen, "the story emits every kind once at least")
}
