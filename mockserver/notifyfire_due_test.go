package mockserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingSink is a notification channel's target that answers 204 and counts the POSTs.
func countingSink(t *testing.T) (*atomic.Int64, string) {
	t.Helper()
	var n atomic.Int64
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(sink.Close)
	return &n, sink.URL
}

// TestNoticesDueTogetherGoOutInDueThenStepOrder: on a clock that is not manual the time
// can pass several sequence steps before anything looks; the command that comes next sends
// every step due by then, earliest due time first and, at one due time, in the order the
// steps were scheduled (the sequence's step order), not in the order they were stored.
func TestNoticesDueTogetherGoOutInDueThenStepOrder(t *testing.T) {
	clk := &settableClock{now: t0}
	srv := Start(t, WithClock(clk), withoutTimerLoop())
	sent, url := countingSink(t)
	mustAPI(t, srv, 201, "POST", "/notification-channels", map[string]any{"type": "webhook", "target": url,
		"events": []string{"task.late", "task.first", "task.second"}})
	mustAPI(t, srv, 201, "POST", "/notification-sequences", map[string]any{"name": "Nudge", "steps": []any{
		map[string]any{"trigger": "matched", "offsetMs": 30000, "eventType": "task.late"},
		map[string]any{"trigger": "matched", "offsetMs": 10000, "eventType": "task.first"},
		map[string]any{"trigger": "matched", "offsetMs": 10000, "eventType": "task.second"},
	}})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"en"}}) // matched at t0
	mustAPI(t, srv, 200, "POST", "/tasks/t1/accept", map[string]any{"workerId": "ana"})

	clk.add(40 * time.Second) // past all three; nothing fires them until a command
	require.Empty(t, srv.Notifications())
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "bo", "tags": []string{"fr"}, "available": true})

	type notice struct {
		Event     string
		DueAt, At time.Time
	}
	var got []notice
	for _, n := range srv.Notifications() {
		got = append(got, notice{n.EventType, n.DueAt, n.At})
	}
	at := t0.Add(40 * time.Second)
	want := []notice{
		{"task.first", t0.Add(10 * time.Second), at},
		{"task.second", t0.Add(10 * time.Second), at},
		{"task.late", t0.Add(30 * time.Second), at},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("notifications (-want +got):\n%s", d)
	}
	assert.Equal(t, int64(3), sent.Load())
}

// TestRestoreSendsNoNotification: restoring a saved state runs its commands again, and a
// command that made a sequence step due sends it on the original server only: the restore
// posts nothing to the channel (its notifier is paused while the commands run).
func TestRestoreSendsNoNotification(t *testing.T) {
	a := Start(t, WithClock(NewManualClock(t0)))
	sent, url := countingSink(t)
	mustAPI(t, a, 201, "POST", "/notification-channels", map[string]any{"type": "webhook", "target": url, "events": []string{"task.matched"}})
	mustAPI(t, a, 201, "POST", "/notification-sequences", map[string]any{"name": "Now", "steps": []any{
		map[string]any{"trigger": "matched", "offsetMs": 0, "eventType": "task.matched"}}})
	mustAPI(t, a, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}, "available": true})
	mustAPI(t, a, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"en"}})
	require.Equal(t, int64(1), sent.Load(), "the step due at the match is sent by the create")
	saved, err := a.Snapshot(context.Background())
	require.NoError(t, err)

	b := Start(t, WithClock(NewManualClock(t0)))
	require.NoError(t, b.Restore(context.Background(), saved))
	assert.Equal(t, int64(1), sent.Load(), "the restore sent nothing")
	assert.Empty(t, b.Notifications())
}
