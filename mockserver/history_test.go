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

// historyScenario plays half an hour from 04:40 UTC on the manual clock:
//
//	04:40:00  t1 offered to ana, t2 to ben
//	04:40:30  ana accepts t1             (waited 30 s)
//	04:40:50  ben accepts t2             (waited 50 s)
//	04:41:00  t3 offered to ana
//	04:41:30  t3 cancelled while ana holds it
//	04:50:00  ana completes t1           (handled 9 m 30 s)
//	05:05:00  ben completes t2           (handled 24 m 10 s), in the next hour
//
// and reads at 05:10.
func historyScenario(t *testing.T) (*taskrouting.Client, time.Time) {
	t.Helper()
	t0 := time.UnixMilli(1763700000000).UTC()
	require.Equal(t, "04:40", t0.Format("15:04"))
	clk := mockserver.NewManualClock(t0)
	// The story was written against the every-tag tie-break (spread by pending offers).
	srv := mockserver.Start(t, mockserver.WithClock(clk), mockserver.WithMatcher(mockserver.MatcherConfig{Rules: mockserver.RulesEveryTag}))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	must := func(_ any, err error) { t.Helper(); require.NoError(t, err) }
	at := func(d time.Duration) { clk.Set(t0.Add(d)) }

	for _, id := range []string{"ana", "ben"} {
		must(c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"english"}, Available: taskrouting.Ptr(true)}))
	}
	require.Equal(t, "ana", offeredTo(t, c, "t1"))
	require.Equal(t, "ben", offeredTo(t, c, "t2"))
	at(30 * time.Second)
	must(c.Decisions.Accept(ctx, "t1", "ana"))
	at(50 * time.Second)
	must(c.Decisions.Accept(ctx, "t2", "ben"))
	at(time.Minute)
	require.Equal(t, "ana", offeredTo(t, c, "t3"))
	at(90 * time.Second)
	require.NoError(t, c.Tasks.Cancel(ctx, "t3"))
	at(10 * time.Minute)
	must(c.Decisions.Complete(ctx, "t1", "ana", nil))
	at(25 * time.Minute)
	must(c.Decisions.Complete(ctx, "t2", "ben", nil))
	at(30 * time.Minute)
	return c, t0
}

func dur(d time.Duration) *time.Duration { return &d }

func TestHistoryTimeseriesFromWhatHappened(t *testing.T) {
	t.Parallel()
	c, t0 := historyScenario(t)
	ctx := context.Background()
	h4 := time.Date(2025, 11, 21, 4, 0, 0, 0, time.UTC)
	at4 := taskrouting.FlowBucket{Start: h4, Completed: 1, Cancelled: 1,
		AvgWait: dur(30 * time.Second), P50Wait: dur(30 * time.Second), P95Wait: dur(30 * time.Second), AvgHandle: dur(570 * time.Second)}
	at5 := taskrouting.FlowBucket{Start: h4.Add(time.Hour), Completed: 1,
		AvgWait: dur(50 * time.Second), P50Wait: dur(50 * time.Second), P95Wait: dur(50 * time.Second), AvgHandle: dur(1450 * time.Second)}

	got, err := c.Stats.Timeseries(ctx, taskrouting.StatsWindow{From: h4, Bucket: "hour"})
	require.NoError(t, err)
	want := &taskrouting.StatsTimeseries{From: h4, To: t0.Add(30 * time.Minute), Bucket: "hour", Buckets: []taskrouting.FlowBucket{at4, at5}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hours (-want +got):\n%s", diff)
	}

	day := time.Date(2025, 11, 21, 0, 0, 0, 0, time.UTC)
	got, err = c.Stats.Timeseries(ctx, taskrouting.StatsWindow{From: day, To: day.Add(24 * time.Hour), Bucket: "day"})
	require.NoError(t, err)
	want = &taskrouting.StatsTimeseries{From: day, To: day.Add(24 * time.Hour), Bucket: "day", Buckets: []taskrouting.FlowBucket{{
		Start: day, Completed: 2, Cancelled: 1, AvgWait: dur(40 * time.Second),
		P50Wait: dur(30 * time.Second), P95Wait: dur(50 * time.Second), // nearest rank of two
		AvgHandle: dur(1010 * time.Second),
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("one day (-want +got):\n%s", diff)
	}

	got, err = c.Stats.Timeseries(ctx, taskrouting.StatsWindow{})
	require.NoError(t, err)
	require.Len(t, got.Buckets, 25, "by default the last 24 hours, in hours")
	assert.Equal(t, t0.Add(30*time.Minute-24*time.Hour), got.From)
	if diff := cmp.Diff([]taskrouting.FlowBucket{at4, at5}, got.Buckets[23:]); diff != "" {
		t.Errorf("default window's last buckets (-want +got):\n%s", diff)
	}
	assert.Equal(t, taskrouting.FlowBucket{Start: h4.Add(-time.Hour)}, got.Buckets[22], "an hour with nothing: zeros, no averages")

	_, err = c.Stats.Timeseries(ctx, taskrouting.StatsWindow{From: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
	assert.ErrorIs(t, err, taskrouting.ErrValidation, "more than 1000 buckets")
}

func TestHistoryWorkersFromWhatHappened(t *testing.T) {
	t.Parallel()
	c, t0 := historyScenario(t)
	ctx := context.Background()
	p := taskrouting.WorkerStatsParams{StatsWindow: taskrouting.StatsWindow{From: t0}}
	got, err := c.Stats.Workers(ctx, p)
	require.NoError(t, err)
	// Both went on shift at 04:40 and are still on it at 05:10: 30 minutes worked, no break.
	// ana was offered t1 (accepted) and t3 (cancelled while offered); ben t2 (accepted).
	shift := 30 * time.Minute
	want := []taskrouting.WorkerProductivity{
		{WorkerID: "ana", Completed: 1, Cancelled: 1, AvgWait: dur(30 * time.Second), AvgHandle: dur(570 * time.Second),
			P50Handle: dur(570 * time.Second), P95Handle: dur(570 * time.Second),
			Offered: 2, Accepted: 1, AcceptanceRate: taskrouting.Ptr(0.5),
			OnShift: shift, Working: shift, ShiftCount: 1, Utilization: taskrouting.Ptr(570.0 / 1800)},
		{WorkerID: "ben", Completed: 1, AvgWait: dur(50 * time.Second), AvgHandle: dur(1450 * time.Second),
			P50Handle: dur(1450 * time.Second), P95Handle: dur(1450 * time.Second),
			Offered: 1, Accepted: 1, AcceptanceRate: taskrouting.Ptr(1.0),
			OnShift: shift, Working: shift, ShiftCount: 1, Utilization: taskrouting.Ptr(1450.0 / 1800)},
	}
	if diff := cmp.Diff(want, got.Workers, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Raw" }, cmp.Ignore())); diff != "" {
		t.Errorf("workers (-want +got):\n%s", diff)
	}
	assert.Equal(t, t0, got.From)

	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "late", Name: "Late shift"})
	require.NoError(t, err)
	_, err = c.Teams.SetMembers(ctx, team.ID, []string{"ben"})
	require.NoError(t, err)
	p.TeamID = team.ID
	got, err = c.Stats.Workers(ctx, p)
	require.NoError(t, err)
	require.Len(t, got.Workers, 1)
	assert.Equal(t, "ben", got.Workers[0].WorkerID)
	p.TeamID = "team_nobody"
	got, err = c.Stats.Workers(ctx, p)
	require.NoError(t, err)
	assert.Empty(t, got.Workers)

	p = taskrouting.WorkerStatsParams{StatsWindow: taskrouting.StatsWindow{From: t0.Add(26 * time.Minute)}}
	got, err = c.Stats.Workers(ctx, p)
	require.NoError(t, err)
	// Nothing finished or was offered after 05:06; the shifts ran on for 4 minutes.
	idle := taskrouting.WorkerProductivity{OnShift: 4 * time.Minute, Working: 4 * time.Minute, ShiftCount: 1, Utilization: taskrouting.Ptr(0.0)}
	ana, ben := idle, idle
	ana.WorkerID, ben.WorkerID = "ana", "ben"
	assert.Equal(t, []taskrouting.WorkerProductivity{ana, ben}, clearRaw(got.Workers), "nothing happened after 05:06")
}

func clearRaw(rows []taskrouting.WorkerProductivity) []taskrouting.WorkerProductivity {
	for i := range rows {
		rows[i].Raw = nil
	}
	return rows
}

func TestHistoryWorkerTimeseriesFromWhatHappened(t *testing.T) {
	t.Parallel()
	c, t0 := historyScenario(t)
	ctx := context.Background()
	day := time.Date(2025, 11, 21, 0, 0, 0, 0, time.UTC)
	n := func(v int) *int { return &v }

	got, err := c.Stats.WorkerTimeseries(ctx, "ana", taskrouting.StatsWindow{From: day, To: day.Add(24 * time.Hour), Bucket: "day"})
	require.NoError(t, err)
	want := &taskrouting.WorkerTimeseries{WorkerID: "ana", From: day, To: day.Add(24 * time.Hour), Bucket: "day", Buckets: []taskrouting.WorkerBucket{{
		FlowBucket: taskrouting.FlowBucket{Start: day, Completed: 1, Cancelled: 1, AvgWait: dur(30 * time.Second),
			P50Wait: dur(30 * time.Second), P95Wait: dur(30 * time.Second), AvgHandle: dur(570 * time.Second)},
		Offered: n(2), Accepted: n(1), Rejected: n(0), Failed: n(0), Expired: n(0), Released: n(0),
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ana's day (-want +got):\n%s", diff)
	}

	got, err = c.Stats.WorkerTimeseries(ctx, "ben", taskrouting.StatsWindow{From: t0, Bucket: "hour"})
	require.NoError(t, err)
	h4 := time.Date(2025, 11, 21, 4, 0, 0, 0, time.UTC)
	want = &taskrouting.WorkerTimeseries{WorkerID: "ben", From: t0, To: t0.Add(30 * time.Minute), Bucket: "hour", Buckets: []taskrouting.WorkerBucket{
		{FlowBucket: taskrouting.FlowBucket{Start: h4}},
		{FlowBucket: taskrouting.FlowBucket{Start: h4.Add(time.Hour), Completed: 1, AvgWait: dur(50 * time.Second),
			P50Wait: dur(50 * time.Second), P95Wait: dur(50 * time.Second), AvgHandle: dur(1450 * time.Second)}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ben's hours: counters are not measured per hour (-want +got):\n%s", diff)
	}

	_, err = c.Stats.WorkerTimeseries(ctx, "zed", taskrouting.StatsWindow{})
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
}

// TestHistoryWorkersCountsOutcomesAndShifts: a worker's row merges its offer outcomes and its
// shift log, as played here on the manual clock:
//
//	+0     on shift; t1 offered and rejected; t2 offered and accepted
//	+9m30s t2 failed; t3 offered
//	+10m   paused, releasing t3 (cancelled then, so it is offered no more): the first
//	       shift ends (10 m)
//	+30m   available again: the second shift starts
//	+40m   break until +50m (10 m)
//	+50m   t4 offered and accepted, completed at +55m (handled 5 m)
//	+60m   read: on shift 40 m, working 30 m
func TestHistoryWorkersCountsOutcomesAndShifts(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	must := func(_ any, err error) { t.Helper(); require.NoError(t, err) }
	at := func(d time.Duration) { clk.Set(t0.Add(d)) }
	task := func(id string) {
		t.Helper()
		require.Equal(t, "ana", offeredTo(t, c, id))
	}

	must(c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"english"}, Available: taskrouting.Ptr(true)}))
	must(c.Workers.SetIdentity(ctx, "ana", taskrouting.SetIdentityParams{Label: "Ana", PIN: taskrouting.NewSecret("4921")}))
	task("t1")
	must(c.Decisions.Reject(ctx, "t1", "ana"))
	task("t2")
	must(c.Decisions.Accept(ctx, "t2", "ana"))
	at(9*time.Minute + 30*time.Second)
	must(c.Tasks.Fail(ctx, "t2", taskrouting.FailTaskParams{WorkerID: "ana", Reason: "no stock"}))
	task("t3")
	at(10 * time.Minute)
	must(c.Workers.SetAvailability(ctx, "ana", taskrouting.SetAvailabilityParams{ReleaseBacklog: true}))
	require.NoError(t, c.Tasks.Cancel(ctx, "t3"))
	at(30 * time.Minute)
	must(c.Workers.SetAvailability(ctx, "ana", taskrouting.SetAvailabilityParams{Available: true}))
	at(40 * time.Minute)
	w, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	require.NoError(t, sessionErr(w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "ana", PIN: taskrouting.NewSecret("4921")})))
	must(w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"}))
	at(50 * time.Minute)
	must(w.EndBreak(ctx))
	task("t4")
	must(c.Decisions.Accept(ctx, "t4", "ana"))
	at(55 * time.Minute)
	must(c.Decisions.Complete(ctx, "t4", "ana", nil))
	at(60 * time.Minute)

	got, err := c.Stats.Workers(ctx, taskrouting.WorkerStatsParams{StatsWindow: taskrouting.StatsWindow{From: t0}})
	require.NoError(t, err)
	want := []taskrouting.WorkerProductivity{{
		WorkerID: "ana", Completed: 1, AvgWait: dur(0), AvgHandle: dur(5 * time.Minute),
		P50Handle: dur(5 * time.Minute), P95Handle: dur(5 * time.Minute),
		Offered: 4, Accepted: 2, Rejected: 1, Failed: 1, Released: 1, AcceptanceRate: taskrouting.Ptr(0.5),
		OnShift: 40 * time.Minute, Break: 10 * time.Minute, Working: 30 * time.Minute, ShiftCount: 2,
		Utilization: taskrouting.Ptr(5.0 / 30),
	}}
	if diff := cmp.Diff(want, clearRaw(got.Workers)); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}
}
