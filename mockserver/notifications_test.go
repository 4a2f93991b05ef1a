package mockserver_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestNotificationChannelsThroughClient: a channel is stored as created, read back by get and
// list, changed only in what an update sends, and gone after remove; createdAt comes from
// the server's clock.
func TestNotificationChannelsThroughClient(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	chs := c.Notifications.Channels

	created, err := chs.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: "https://hooks.example/tr",
		Events: []string{"task.matched", "task.completed"}, Secret: taskrouting.NewSecret("whsec_first")})
	require.NoError(t, err)
	require.NotEmpty(t, created.ID)
	want := &taskrouting.NotificationChannel{ID: created.ID, Type: "webhook", Target: "https://hooks.example/tr",
		Events: []string{"task.matched", "task.completed"}, CreatedAt: t0}
	assert.Empty(t, cmp.Diff(want, created))

	clk.Advance(time.Minute)
	second, err := chs.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "websocket", Target: "ops-room", Events: []string{"task.expired"}})
	require.NoError(t, err)

	got, err := chs.Get(ctx, created.ID)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(want, got))

	disabled, err := chs.Update(ctx, created.ID, taskrouting.UpdateNotificationChannelParams{Disabled: taskrouting.Ptr(true)})
	require.NoError(t, err)
	want.Disabled = true
	assert.Empty(t, cmp.Diff(want, disabled), "only disabled changed")

	rotated, err := chs.Update(ctx, created.ID, taskrouting.UpdateNotificationChannelParams{Secret: taskrouting.NewSecret("whsec_second")})
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(want, rotated), "a rotation touches nothing an answer shows")

	moved, err := chs.Update(ctx, created.ID, taskrouting.UpdateNotificationChannelParams{Target: "https://hooks.example/v2", Events: []string{"task.cancelled"}})
	require.NoError(t, err)
	want.Target, want.Events = "https://hooks.example/v2", []string{"task.cancelled"}
	assert.Empty(t, cmp.Diff(want, moved))

	list, err := chs.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff([]taskrouting.NotificationChannel{*want, *second}, list), "creation order")

	require.NoError(t, chs.Remove(ctx, created.ID))
	_, err = chs.Get(ctx, created.ID)
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
	assert.ErrorIs(t, chs.Remove(ctx, created.ID), taskrouting.ErrNotFound, "a second remove")
	list, err = chs.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff([]taskrouting.NotificationChannel{*second}, list))
}

// TestNotificationSequencesThroughClient: a sequence is enabled unless created otherwise, an
// update keeps what it does not send (disabling keeps the steps), updatedAt follows the
// clock, and a non-nil empty filter clears the filter.
func TestNotificationSequencesThroughClient(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	seqs := c.Notifications.Sequences

	steps := []taskrouting.NotificationStep{
		{Trigger: "matched", EventType: "task.expiring", Offset: 5 * time.Minute},
		{Trigger: "expired", EventType: "task.expired"},
	}
	created, err := seqs.Create(ctx, taskrouting.CreateNotificationSequenceParams{Name: "Escalate", Steps: steps, FilterTags: []string{"billing"}})
	require.NoError(t, err)
	want := &taskrouting.NotificationSequence{ID: created.ID, Name: "Escalate", Enabled: true, Steps: steps,
		FilterTags: []string{"billing"}, CreatedAt: t0, UpdatedAt: t0}
	assert.Empty(t, cmp.Diff(want, created))

	off, err := seqs.Create(ctx, taskrouting.CreateNotificationSequenceParams{Name: "Quiet", Enabled: taskrouting.Ptr(false), Steps: steps[1:]})
	require.NoError(t, err)
	assert.False(t, off.Enabled)
	assert.Equal(t, []string{}, off.FilterTags, "no filter reads as an empty list")

	clk.Advance(time.Minute)
	disabled, err := seqs.Update(ctx, created.ID, taskrouting.UpdateNotificationSequenceParams{Enabled: taskrouting.Ptr(false)})
	require.NoError(t, err)
	want.Enabled, want.UpdatedAt = false, t0.Add(time.Minute)
	assert.Empty(t, cmp.Diff(want, disabled), "disabling keeps the steps")

	clk.Advance(time.Minute)
	cleared, err := seqs.Update(ctx, created.ID, taskrouting.UpdateNotificationSequenceParams{Name: "Escalate 2", FilterTags: []string{},
		Steps: []taskrouting.NotificationStep{{Trigger: "rejected", EventType: "task.rejected", Offset: -time.Second}}})
	require.NoError(t, err)
	want.Name, want.FilterTags, want.UpdatedAt = "Escalate 2", []string{}, t0.Add(2*time.Minute)
	want.Steps = []taskrouting.NotificationStep{{Trigger: "rejected", EventType: "task.rejected", Offset: -time.Second}}
	assert.Empty(t, cmp.Diff(want, cleared), "steps replaced as a whole, filter cleared")

	got, err := seqs.Get(ctx, created.ID)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(want, got))
	list, err := seqs.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff([]taskrouting.NotificationSequence{*want, *off}, list))

	require.NoError(t, seqs.Remove(ctx, created.ID))
	_, err = seqs.Get(ctx, created.ID)
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
	list, err = seqs.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff([]taskrouting.NotificationSequence{*off}, list))
}

// TestNotificationChannelRemovalKeepsSequences: sequences name event types, not channels,
// so removing every channel leaves the sequences as they were (docs/contract.md).
func TestNotificationChannelRemovalKeepsSequences(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	ch, err := c.Notifications.Channels.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: "https://hooks.example/tr", Events: []string{"task.expiring"}})
	require.NoError(t, err)
	seq, err := c.Notifications.Sequences.Create(ctx, taskrouting.CreateNotificationSequenceParams{Name: "n",
		Steps: []taskrouting.NotificationStep{{Trigger: "matched", EventType: "task.expiring"}}})
	require.NoError(t, err)

	require.NoError(t, c.Notifications.Channels.Remove(ctx, ch.ID))
	got, err := c.Notifications.Sequences.Get(ctx, seq.ID)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(seq, got))
}

// TestNotificationsUnknownOrForeignID: an id that does not exist, or that belongs to another
// workspace, is 404 on every get, update and remove, and the other workspace's objects stay.
func TestNotificationsUnknownOrForeignID(t *testing.T) {
	t.Parallel()
	const otherKey = "sk_test_second_workspace"
	srv := mockserver.Start(t, mockserver.WithExtraAPIKey(otherKey))
	ctx := context.Background()
	owner := newClient(t, srv, otherKey)
	theirCh, err := owner.Notifications.Channels.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: "t", Events: []string{"e"}})
	require.NoError(t, err)
	theirSeq, err := owner.Notifications.Sequences.Create(ctx, taskrouting.CreateNotificationSequenceParams{Name: "n",
		Steps: []taskrouting.NotificationStep{{Trigger: "matched", EventType: "e"}}})
	require.NoError(t, err)
	c := newClient(t, srv, srv.APIKey())
	chs, seqs := c.Notifications.Channels, c.Notifications.Sequences

	calls := map[string]func(id string) error{
		"notifications.channels.get": func(id string) error { _, err := chs.Get(ctx, id); return err },
		"notifications.channels.update": func(id string) error {
			_, err := chs.Update(ctx, id, taskrouting.UpdateNotificationChannelParams{Disabled: taskrouting.Ptr(true)})
			return err
		},
		"notifications.channels.remove": func(id string) error { return chs.Remove(ctx, id) },
		"notifications.sequences.get":   func(id string) error { _, err := seqs.Get(ctx, id); return err },
		"notifications.sequences.update": func(id string) error {
			_, err := seqs.Update(ctx, id, taskrouting.UpdateNotificationSequenceParams{Enabled: taskrouting.Ptr(false)})
			return err
		},
		"notifications.sequences.remove": func(id string) error { return seqs.Remove(ctx, id) },
	}
	for op, call := range calls {
		foreign := theirCh.ID
		if strings.Contains(op, "sequences") {
			foreign = theirSeq.ID
		}
		for _, id := range []string{"nope", foreign} {
			t.Run(op+"/"+id, func(t *testing.T) {
				err := call(id)
				var ae *taskrouting.APIError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, http.StatusNotFound, ae.StatusCode)
				assert.ErrorIs(t, err, taskrouting.ErrNotFound)
			})
		}
	}
	mine, err := chs.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, mine, "the other workspace's channels are not listed")
	gotCh, err := owner.Notifications.Channels.Get(ctx, theirCh.ID)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(theirCh, gotCh), "untouched by the other workspace's calls")
	gotSeq, err := owner.Notifications.Sequences.Get(ctx, theirSeq.ID)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(theirSeq, gotSeq))
}

// TestNotificationsBadInputKeepsState sends what the SDK would refuse: each is a 400
// envelope, and the stored channel and sequence read back as before. A step naming a
// channel is one of them: the platform's steps have no such member.
func TestNotificationsBadInputKeepsState(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	ch, err := c.Notifications.Channels.Create(ctx, taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: "t", Events: []string{"e"}})
	require.NoError(t, err)
	seq, err := c.Notifications.Sequences.Create(ctx, taskrouting.CreateNotificationSequenceParams{Name: "n",
		Steps: []taskrouting.NotificationStep{{Trigger: "matched", EventType: "e"}}})
	require.NoError(t, err)
	chPath, seqPath := "/notification-channels/"+ch.ID, "/notification-sequences/"+seq.ID

	tests := []struct {
		name, op, method, path, body, wantMessage string
	}{
		{"channel of unknown type", "notifications.channels.create", "POST", "/notification-channels", `{"type":"email","target":"t","events":["e"]}`, "body/type"},
		{"channel without events", "notifications.channels.create", "POST", "/notification-channels", `{"type":"webhook","target":"t"}`, "events"},
		{"channel with empty target", "notifications.channels.create", "POST", "/notification-channels", `{"type":"webhook","target":"","events":["e"]}`, "body/target"},
		{"channel secret too long", "notifications.channels.create", "POST", "/notification-channels", `{"type":"webhook","target":"t","events":["e"],"secret":"` + strings.Repeat("s", 513) + `"}`, "body/secret"},
		{"channel update empty events", "notifications.channels.update", "PATCH", chPath, `{"events":[]}`, "body/events"},
		{"channel update unknown member", "notifications.channels.update", "PATCH", chPath, `{"name":"x"}`, "additional propert"},
		{"sequence without steps", "notifications.sequences.create", "POST", "/notification-sequences", `{"name":"n"}`, "steps"},
		{"sequence step naming a channel", "notifications.sequences.create", "POST", "/notification-sequences",
			`{"name":"n","steps":[{"trigger":"matched","eventType":"e","channelId":"` + ch.ID + `"}]}`, "additional propert"},
		{"sequence step of unknown trigger", "notifications.sequences.update", "PATCH", seqPath, `{"steps":[{"trigger":"created","eventType":"e"}]}`, "trigger"},
		{"sequence update empty name", "notifications.sequences.update", "PATCH", seqPath, `{"name":""}`, "body/name"},
		{"sequence update 33 filter tags", "notifications.sequences.update", "PATCH", seqPath, `{"filterTags":["` + strings.Repeat(`t","`, 32) + `t"]}`, "body/filterTags"},
		{"sequence offset not a number", "notifications.sequences.update", "PATCH", seqPath, `{"steps":[{"trigger":"matched","eventType":"e","offsetMs":"5m"}]}`, "offsetMs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := sendRaw(t, srv, srv.APIKey(), tc.op, tc.method, tc.path, tc.body)
			assert.Equal(t, http.StatusBadRequest, status, body)
			assert.Contains(t, body, `"code":"validation_failed"`)
			assert.Contains(t, body, tc.wantMessage)
		})
	}
	chAfter, err := c.Notifications.Channels.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff([]taskrouting.NotificationChannel{*ch}, chAfter))
	seqAfter, err := c.Notifications.Sequences.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff([]taskrouting.NotificationSequence{*seq}, seqAfter))
}

// TestNotificationChannelSecretStaysOut: the signing secret is in no answer, no log line and
// no recorded request, while the rest of the body stays readable in the recording.
func TestNotificationChannelSecretStaysOut(t *testing.T) {
	t.Parallel()
	const first, second = "whsec_first_never_shown", "whsec_second_never_shown"
	var logs bytes.Buffer
	srv := mockserver.Start(t, mockserver.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	ch, err := newClient(t, srv, srv.APIKey()).Notifications.Channels.Create(context.Background(),
		taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: "https://hooks.example/tr", Events: []string{"e"}, Secret: taskrouting.NewSecret(first)})
	require.NoError(t, err)
	status, body := sendRaw(t, srv, srv.APIKey(), "notifications.channels.update", "PATCH", "/notification-channels/"+ch.ID, `{"secret":"`+second+`"}`)
	require.Equal(t, http.StatusOK, status)
	_, listBody := sendRaw(t, srv, srv.APIKey(), "notifications.channels.list", "GET", "/notification-channels", "")

	for name, text := range map[string]string{"update answer": body, "list answer": listBody, "logs": logs.String()} {
		assert.NotContains(t, text, first, name)
		assert.NotContains(t, text, second, name)
	}
	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	for _, r := range reqs {
		assert.NotContains(t, string(r.Body), first)
		assert.NotContains(t, string(r.Body), second)
	}
	assert.Contains(t, string(reqs[0].Body), "hooks.example", "the other members stay readable")
	assert.NotEmpty(t, logs.String(), "the logger saw the calls")
}

// TestNotificationCreateReplaysAndReset: a create repeated under one idempotency key answers
// the first result and stores one object; Reset forgets every channel and sequence.
func TestNotificationCreateReplaysAndReset(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	p := taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: "https://hooks.example/tr", Events: []string{"e"}}
	first, err := c.Notifications.Channels.Create(ctx, p, taskrouting.WithIdempotencyKey("ch-create-1"))
	require.NoError(t, err)
	again, err := c.Notifications.Channels.Create(ctx, p, taskrouting.WithIdempotencyKey("ch-create-1"))
	require.NoError(t, err)
	assert.Equal(t, first.ID, again.ID, "the replay answers the first channel")
	seqParams := taskrouting.CreateNotificationSequenceParams{Name: "n", Steps: []taskrouting.NotificationStep{{Trigger: "matched", EventType: "e"}}}
	s1, err := c.Notifications.Sequences.Create(ctx, seqParams, taskrouting.WithIdempotencyKey("seq-create-1"))
	require.NoError(t, err)
	s2, err := c.Notifications.Sequences.Create(ctx, seqParams, taskrouting.WithIdempotencyKey("seq-create-1"))
	require.NoError(t, err)
	assert.Equal(t, s1.ID, s2.ID)
	chs, err := c.Notifications.Channels.List(ctx)
	require.NoError(t, err)
	assert.Len(t, chs, 1, "one channel stored")
	seqs, err := c.Notifications.Sequences.List(ctx)
	require.NoError(t, err)
	assert.Len(t, seqs, 1, "one sequence stored")

	srv.Reset()
	chs, err = c.Notifications.Channels.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, chs)
	seqs, err = c.Notifications.Sequences.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, seqs)
	_, err = c.Notifications.Channels.Get(ctx, first.ID)
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
}
