package taskrouting

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestMoreInputRefusedBeforeSending: each of these calls refuses its input with a
// *ParamError naming the parameter at fault, and sends nothing.
func TestMoreInputRefusedBeforeSending(t *testing.T) {
	srv, rec := serveOnce(t, 200, nil, `{}`)
	c := newTestClient(t, srv.URL+"/v1")
	wc, err := NewWorkerClient(srv.URL + "/v1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	shift := CreateTimeEntryParams{StartedAt: start, EndedAt: start.Add(8 * time.Hour), Note: "forgot to clock in"}
	withBreaks := func(b ...TimeEntryBreak) CreateTimeEntryParams { s := shift; s.Breaks = b; return s }
	for _, tc := range []struct {
		name  string
		call  func() error
		param string
	}{
		{"FeedbackBulk of 101 items", func() error {
			_, err := c.Learning.FeedbackBulk(ctx, make([]FeedbackItem, 101))
			return err
		}, "items"},
		{"Stats.Workers bucket", func() error {
			_, err := c.Stats.Workers(ctx, WorkerStatsParams{StatsWindow: StatsWindow{Bucket: "week"}})
			return err
		}, "WorkerStatsParams.Bucket"},
		{"Stats.Workers to before from", func() error {
			_, err := c.Stats.Workers(ctx, WorkerStatsParams{StatsWindow: StatsWindow{From: start, To: start.Add(-time.Second)}})
			return err
		}, "WorkerStatsParams.To"},
		{"Stats.Workers team id", func() error {
			_, err := c.Stats.Workers(ctx, WorkerStatsParams{TeamID: strings.Repeat("t", 65)})
			return err
		}, "WorkerStatsParams.TeamID"},
		{"Stats.WorkerTimeseries window", func() error {
			_, err := c.Stats.WorkerTimeseries(ctx, "w1", StatsWindow{Bucket: "minute"})
			return err
		}, "StatsWindow.Bucket"},
		{"Stats.SLA tag", func() error { _, err := c.Stats.SLA(ctx, strings.Repeat("a", 129)); return err }, "tag"},
		{"Teams.Presence team id", func() error { _, err := c.Teams.Presence(ctx, strings.Repeat("t", 65)); return err }, "teamID"},
		{"WithResponseInto(nil)", func() error { _, err := c.Workers.List(ctx, WithResponseInto(nil)); return err }, "WithResponseInto"},
		{"UpdateLocation NaN latitude", func() error { _, err := wc.UpdateLocation(ctx, math.NaN(), 0); return err }, "latitude"},
		{"PushSubscribe no endpoint", func() error {
			_, err := wc.PushSubscribe(ctx, PushSubscriptionParams{P256dh: "k", Auth: NewSecret("a")})
			return err
		}, "PushSubscriptionParams.Endpoint"},
		{"PushSubscribe no key", func() error {
			_, err := wc.PushSubscribe(ctx, PushSubscriptionParams{Endpoint: "https://push.example.com/1", Auth: NewSecret("a")})
			return err
		}, "PushSubscriptionParams.P256dh"},
		{"PushSubscribe no auth", func() error {
			_, err := wc.PushSubscribe(ctx, PushSubscriptionParams{Endpoint: "https://push.example.com/1", P256dh: "k"})
			return err
		}, "PushSubscriptionParams.Auth"},
		{"PushUnsubscribe no endpoint", func() error { return wc.PushUnsubscribe(ctx, "") }, "endpoint"},
		{"RegisterDevice no token", func() error { _, err := wc.RegisterDevice(ctx, "", "ios"); return err }, "token"},
		{"UnregisterDevice no token", func() error { return wc.UnregisterDevice(ctx, "") }, "token"},
		{"Resume bad worker id", func() error { return wc.Resume("..", "wt_abc", start) }, "workerID"},
		{"CreateTimeEntry no start", func() error {
			s := shift
			s.StartedAt = time.Time{}
			_, err := c.Workers.CreateTimeEntry(ctx, "w1", s)
			return err
		}, "CreateTimeEntryParams.StartedAt"},
		{"CreateTimeEntry no end", func() error {
			s := shift
			s.EndedAt = time.Time{}
			_, err := c.Workers.CreateTimeEntry(ctx, "w1", s)
			return err
		}, "CreateTimeEntryParams.EndedAt"},
		{"CreateTimeEntry end at start", func() error {
			s := shift
			s.EndedAt = s.StartedAt
			_, err := c.Workers.CreateTimeEntry(ctx, "w1", s)
			return err
		}, "CreateTimeEntryParams.EndedAt"},
		{"CreateTimeEntry break without a start", func() error {
			_, err := c.Workers.CreateTimeEntry(ctx, "w1", withBreaks(
				TimeEntryBreak{StartedAt: start.Add(time.Hour), EndedAt: start.Add(2 * time.Hour)},
				TimeEntryBreak{EndedAt: start.Add(3 * time.Hour)}))
			return err
		}, "CreateTimeEntryParams.Breaks[1].StartedAt"},
		{"CreateTimeEntry open break", func() error {
			_, err := c.Workers.CreateTimeEntry(ctx, "w1", withBreaks(TimeEntryBreak{StartedAt: start.Add(time.Hour)}))
			return err
		}, "CreateTimeEntryParams.Breaks[0].EndedAt"},
		{"CreateTimeEntry short note", func() error {
			s := shift
			s.Note = "ab"
			_, err := c.Workers.CreateTimeEntry(ctx, "w1", s)
			return err
		}, "CreateTimeEntryParams.Note"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != tc.param {
				t.Errorf("got %v, want a *ParamError on %s", err, tc.param)
			}
		})
	}
	if n := len(rec.all()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// TestFeedbackBulkTakesAHundred: 100 items, the platform's batch limit, are sent (101 are
// refused above).
func TestFeedbackBulkTakesAHundred(t *testing.T) {
	srv, rec := serveOnce(t, 200, nil, `{"results":[]}`)
	c := newTestClient(t, srv.URL+"/v1")
	items := make([]FeedbackItem, 100)
	for i := range items {
		items[i] = FeedbackItem{TaskID: "t1"}
	}
	if _, err := c.Learning.FeedbackBulk(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.all()); n != 1 {
		t.Errorf("%d requests sent for 100 items, want 1", n)
	}
}
