package mockserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// noticeSink is a channel's endpoint: it keeps every request's body and signature header.
type noticeSink struct {
	mu   sync.Mutex
	got  []sinkRequest
	code int
}

type sinkRequest struct {
	body   []byte
	header string
}

func (k *noticeSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.got = append(k.got, sinkRequest{body: body, header: r.Header.Get(webhook.SignatureHeader)})
	w.WriteHeader(k.code)
}

func (k *noticeSink) requests() []sinkRequest {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]sinkRequest(nil), k.got...)
}

func startSink(t *testing.T, code int) (*noticeSink, string) {
	k := &noticeSink{code: code}
	hs := httptest.NewServer(k)
	t.Cleanup(hs.Close)
	return k, hs.URL
}

// TestNotificationSequenceFiresOnTheClock drives a sequence across its offsets: a task
// carrying a filter tag is matched, accepted and completed, and each step is POSTed, signed,
// to the channels subscribed to its event type exactly when its offset has passed.
func TestNotificationSequenceFiresOnTheClock(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()

	ops, opsURL := startSink(t, http.StatusNoContent)
	audit, auditURL := startSink(t, http.StatusInternalServerError)
	const opsSecret = "whsec_ops_channel"
	opsCh, err := c.Notifications.Channels.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: opsURL,
		Events: []string{"task.expiring", "task.done"}, Secret: taskrouting.NewSecret(opsSecret)})
	require.NoError(t, err)
	auditCh, err := c.Notifications.Channels.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: auditURL,
		Events: []string{"task.expiring"}}) // no secret: signed with the server's
	require.NoError(t, err)
	_, err = c.Notifications.Channels.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "websocket", Target: "wss://example.invalid",
		Events: []string{"task.expiring"}})
	require.NoError(t, err)

	seq, err := c.Notifications.Sequences.Create(ctx, taskrouting.CreateNotificationSequenceParams{Name: "Escalate stale billing",
		FilterTags: []string{"billing"}, Steps: []taskrouting.NotificationStep{
			{Trigger: "matched", Offset: 5 * time.Minute, EventType: "task.expiring"},
			{Trigger: "completed", EventType: "task.done"},
			{Trigger: "expiring", EventType: "task.expiring"}, // the mock has no such moment: never fires
		}})
	require.NoError(t, err)
	_, err = c.Notifications.Sequences.Create(ctx, taskrouting.CreateNotificationSequenceParams{Name: "Other tags",
		FilterTags: []string{"sales"}, Steps: []taskrouting.NotificationStep{{Trigger: "matched", EventType: "task.expiring"}}})
	require.NoError(t, err)

	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"billing"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	clk.Advance(time.Second)
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"billing"}})
	require.NoError(t, err)
	matchedAt := t0.Add(time.Second)
	// Accepted before the offer runs out, so the task is matched once.
	_, err = c.Decisions.Accept(ctx, ref.ID, "agent_1")
	require.NoError(t, err)

	clk.Advance(5*time.Minute - time.Millisecond)
	assert.Empty(t, srv.Notifications(), "one millisecond before the offset")
	clk.Advance(time.Millisecond)
	due := matchedAt.Add(5 * time.Minute)
	offset := int64(300000)
	want := []mockserver.Notification{
		{SequenceID: seq.ID, ChannelID: opsCh.ID, URL: opsURL, EventType: "task.expiring", Trigger: "matched", TaskID: ref.ID,
			DueAt: due, At: due, StatusCode: http.StatusNoContent, Outcome: mockserver.OutcomeDelivered},
		{SequenceID: seq.ID, ChannelID: auditCh.ID, URL: auditURL, EventType: "task.expiring", Trigger: "matched", TaskID: ref.ID,
			DueAt: due, At: due, StatusCode: http.StatusInternalServerError, Outcome: mockserver.OutcomeFailed},
	}
	got := srv.Notifications()
	ignore := cmp.FilterPath(func(p cmp.Path) bool { f := p.Last().String(); return f == ".ID" || f == ".Payload" }, cmp.Ignore())
	if d := cmp.Diff(want, got, ignore); d != "" {
		t.Fatalf("notifications (-want +got):\n%s", d)
	}
	var body map[string]any
	require.NoError(t, json.Unmarshal(got[0].Payload, &body))
	assert.Equal(t, map[string]any{"event": "task.expiring", "id": got[0].ID, "createdAt": float64(due.UnixMilli()),
		"sequenceId": seq.ID, "channelId": opsCh.ID, "trigger": "matched", "offsetMs": float64(offset), "taskId": ref.ID,
		"workerId": "agent_1", "triggeredAt": float64(matchedAt.UnixMilli())}, body)

	// What the endpoints received is what was recorded, signed with each channel's secret at
	// the server clock's time.
	reqs := ops.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, string(got[0].Payload), string(reqs[0].body))
	v, err := webhook.NewVerifier(opsSecret, webhook.WithClock(clk.Now))
	require.NoError(t, err)
	assert.NoError(t, v.Verify(reqs[0].body, reqs[0].header), "signed with the channel's secret")
	assert.Equal(t, webhook.Sign(reqs[0].body, opsSecret, due), reqs[0].header)
	auditReqs := audit.requests()
	require.Len(t, auditReqs, 1, "a failed notification is not retried")
	sv, err := webhook.NewVerifier(srv.SigningSecret(), webhook.WithClock(clk.Now))
	require.NoError(t, err)
	assert.NoError(t, sv.Verify(auditReqs[0].body, auditReqs[0].header), "a channel without a secret is signed with the server's")
	assert.Error(t, v.Verify(auditReqs[0].body, auditReqs[0].header), "and not with another channel's")

	// A step without offset fires with its trigger: the completion sends task.done at once.
	clk.Advance(time.Minute)
	_, err = c.Decisions.Complete(ctx, ref.ID, "agent_1", nil)
	require.NoError(t, err)
	got = srv.Notifications()
	require.Len(t, got, 3)
	assert.Equal(t, []string{"task.done", "completed", opsCh.ID}, []string{got[2].EventType, got[2].Trigger, got[2].ChannelID})
	assert.Equal(t, due.Add(time.Minute), got[2].At)

	// A disabled sequence sends nothing, even for a step already scheduled.
	ref2, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"billing"}})
	require.NoError(t, err)
	_, err = c.Notifications.Sequences.Update(ctx, seq.ID, taskrouting.UpdateNotificationSequenceParams{Enabled: taskrouting.Ptr(false)})
	require.NoError(t, err)
	clk.Advance(time.Hour)
	assert.Len(t, srv.Notifications(), 3, "task %s was matched while enabled, but the sequence was disabled before its step was due", ref2.ID)
	assert.Len(t, ops.requests(), 2)

	// Tests in other languages read the same record from the admin endpoint.
	req, err := http.NewRequest(http.MethodGet, srv.AdminURL()+"/notifications", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var admin struct {
		Notifications []struct {
			ID      string          `json:"id"`
			Event   string          `json:"event"`
			DueAt   int64           `json:"dueAt"`
			Outcome string          `json:"outcome"`
			Payload json.RawMessage `json:"payload"`
		} `json:"notifications"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&admin))
	require.Len(t, admin.Notifications, 3)
	first := admin.Notifications[0]
	assert.Equal(t, []any{got[0].ID, "task.expiring", due.UnixMilli(), "delivered", string(got[0].Payload)},
		[]any{first.ID, first.Event, first.DueAt, first.Outcome, string(first.Payload)})

	srv.Reset()
	assert.Empty(t, srv.Notifications())
}
