package mockserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// A notification whose channel cannot be reached is recorded as failed, with no status and
// the transport's error, and is not retried.
func TestNotificationToAnUnreachableChannelIsRecordedFailed(t *testing.T) {
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()

	gone := httptest.NewServer(http.NotFoundHandler())
	target := gone.URL
	gone.Close() // nothing listens there any more

	_, err := c.Notifications.Channels.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: target,
		Events: []string{"task.expiring"}})
	require.NoError(t, err)
	_, err = c.Notifications.Sequences.Create(ctx, taskrouting.CreateNotificationSequenceParams{Name: "Stale",
		FilterTags: []string{"billing"}, Steps: []taskrouting.NotificationStep{{Trigger: "matched", Offset: time.Minute, EventType: "task.expiring"}}})
	require.NoError(t, err)
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"billing"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"billing"}})
	require.NoError(t, err)
	_, err = c.Decisions.Accept(ctx, ref.ID, "agent_1") // matched once: one step scheduled
	require.NoError(t, err)

	clk.Advance(time.Minute)
	got := srv.Notifications()
	require.Equal(t, 1, len(got), "notifications due")
	n := got[0]
	if n.StatusCode != 0 || n.Err == "" || n.Outcome != mockserver.OutcomeFailed || !n.At.Equal(t0.Add(time.Minute)) {
		t.Errorf("notification to %s: status %d, err %q, outcome %s, at %v; want 0, a transport error, %s, t0+1m",
			target, n.StatusCode, n.Err, n.Outcome, n.At, mockserver.OutcomeFailed)
	}
	clk.Advance(time.Hour)
	if n := len(srv.Notifications()); n != 1 {
		t.Errorf("%d notifications an hour later, want 1: a failed notification is not retried", n)
	}
}
