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
	"github.com/taskrouting/taskrouting-go/webhook"
)

// TestNotificationStepsFireAtTheirTimeWithinOneAdvance holds sequence steps to the manual
// clock's promise (ManualClock.Advance): whatever falls due on the way runs at its own time,
// in time order, even when one Advance passes several of them. Steps due at +30 s, +2 min
// and +5 min (listed latest first) are sent at those times, and signed with them, by a
// single Advance of ten minutes, not at its end; an offer left unanswered beside them
// expires at +60 s, its own deadline, between the first two; and a template recurring every
// 90 s has an occurrence cut at each boundary on the way.
func TestNotificationStepsFireAtTheirTimeWithinOneAdvance(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()

	sink, url := startSink(t, http.StatusNoContent)
	_, err := c.Notifications.Channels.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: url,
		Events: []string{"task.expiring", "task.late"}})
	require.NoError(t, err)
	seq, err := c.Notifications.Sequences.Create(ctx, taskrouting.CreateNotificationSequenceParams{Name: "Nudge", FilterTags: []string{"billing"},
		Steps: []taskrouting.NotificationStep{
			{Trigger: "matched", Offset: 5 * time.Minute, EventType: "task.late"},
			{Trigger: "matched", Offset: 2 * time.Minute, EventType: "task.expiring"},
			{Trigger: "matched", Offset: 30 * time.Second, EventType: "task.expiring"},
		}})
	require.NoError(t, err)
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"billing"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"billing"}})
	require.NoError(t, err)
	_, err = c.Decisions.Accept(ctx, ref.ID, "agent_1") // one offer, so one matched trigger
	require.NoError(t, err)
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_2", Tags: []string{"sales"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	unanswered, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"sales"}}) // offered to agent_2 for 60 s
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "every-90s", Tags: []string{"ops"},
		Recurrence: &taskrouting.Recurrence{Every: 90 * time.Second}}) // an occurrence now, then every 90 s
	require.NoError(t, err)

	clk.Advance(10 * time.Minute)
	type sent struct {
		EventType string
		DueAt, At time.Time
	}
	var got []sent
	for _, n := range srv.Notifications() {
		got = append(got, sent{n.EventType, n.DueAt, n.At})
	}
	want := []sent{
		{"task.expiring", t0.Add(30 * time.Second), t0.Add(30 * time.Second)},
		{"task.expiring", t0.Add(2 * time.Minute), t0.Add(2 * time.Minute)},
		{"task.late", t0.Add(5 * time.Minute), t0.Add(5 * time.Minute)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications of sequence %s (-want +got):\n%s", seq.ID, diff)
	}
	require.Len(t, sink.requests(), 3, "each was POSTed")
	expired := srv.EventsWhere(mockserver.EventFilter{TaskID: unanswered.ID, Kind: webhook.KindTaskExpired})
	require.NotEmpty(t, expired)
	require.Equal(t, t0.Add(time.Minute), expired[0].CreatedAt, "the offer's own deadline")
	templates, err := c.Tasks.Recurring.List(ctx)
	require.NoError(t, err)
	require.Len(t, templates, 1)
	require.Equal(t, []any{7, t0.Add(630 * time.Second)}, []any{templates[0].Occurrences, templates[0].NextAt},
		"an occurrence cut at each boundary on the way (0, 90 s, ... 540 s), none skipped")
}
