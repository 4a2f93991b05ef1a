package mockserver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// t0 of these tests is 2025-11-21T04:40:00Z; the worker's day started at midnight UTC.
var (
	timeT0   = time.UnixMilli(1763700000000).UTC()
	midnight = time.Date(2025, 11, 21, 0, 0, 0, 0, time.UTC)
)

// timeSetup is a server on a manual clock at timeT0 with agent_1 and agent_2 (tag english,
// not on shift) and agent_1 signed in on the worker plane.
func timeSetup(t *testing.T) (*mockserver.ManualClock, *taskrouting.Client, *taskrouting.WorkerClient) {
	t.Helper()
	clk := mockserver.NewManualClock(timeT0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	for _, id := range []string{"agent_1", "agent_2"} {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"english"}})
		require.NoError(t, err)
	}
	_, err := c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)
	w, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)
	return clk, c, w
}

func at(min int) time.Time { return timeT0.Add(time.Duration(min) * time.Minute) }

// TestWorkerTimeFollowsTheClock records a day as it happens and reads it back on both
// planes. agent_1 goes on shift at t0 (an operator), breaks from +30 to +45 min, goes off
// shift at +60 (operator), back on at +120 (the worker itself), is offered task_1 at +120,
// accepts 20 s later (inside the 60 s offer timeout) and completes 10 min after that; the reads
// run at +150. By hand: on shift 60 + 30 = 90 min, break 15 min, worked 75 min; wait 20 s,
// cycle 10 min.
func TestWorkerTimeFollowsTheClock(t *testing.T) {
	t.Parallel()
	clk, c, w := timeSetup(t)
	ctx := context.Background()

	_, err := c.Workers.SetAvailability(ctx, "agent_1", taskrouting.SetAvailabilityParams{Available: true})
	require.NoError(t, err)
	clk.Advance(30 * time.Minute)
	_, err = w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
	require.NoError(t, err)
	clk.Advance(15 * time.Minute)
	_, err = w.EndBreak(ctx)
	require.NoError(t, err)
	clk.Advance(15 * time.Minute)
	_, err = c.Workers.SetAvailability(ctx, "agent_1", taskrouting.SetAvailabilityParams{Available: false})
	require.NoError(t, err)
	clk.Advance(60 * time.Minute)
	_, err = w.SetAvailability(ctx, true)
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"}})
	require.NoError(t, err)
	clk.Advance(20 * time.Second)
	_, err = w.Accept(ctx, "task_1")
	require.NoError(t, err)
	clk.Advance(10 * time.Minute)
	_, err = w.Complete(ctx, "task_1", nil)
	require.NoError(t, err)
	clk.Advance(20*time.Minute - 20*time.Second) // now +150

	wantEntries := []taskrouting.TimeEntry{
		{Type: "shift", ID: "sh_1", StartedAt: at(0), EndedAt: at(60), Duration: time.Hour, Source: "operator", EndReason: "manual"},
		{Type: "break", ID: "br_1", StartedAt: at(30), EndedAt: at(45), Duration: 15 * time.Minute, Reason: "lunch"},
		{Type: "shift", ID: "sh_2", StartedAt: at(120), Duration: 30 * time.Minute, Source: "portal"},
	}
	wantTotals := taskrouting.TimeTotals{ShiftCount: 2, OnShift: 90 * time.Minute, BreakCount: 1, Break: 15 * time.Minute, Working: 75 * time.Minute}

	entries, err := c.Workers.TimeEntries(ctx, "agent_1", taskrouting.TimeEntriesParams{})
	require.NoError(t, err)
	if d := cmp.Diff(&taskrouting.TimeEntries{WorkerID: "agent_1", From: at(150).Add(-7 * 24 * time.Hour), To: at(150),
		Entries: wantEntries, Totals: wantTotals}, entries); d != "" {
		t.Errorf("workers.timeEntries (-want +got):\n%s", d)
	}
	mine, err := w.TimeEntries(ctx)
	require.NoError(t, err)
	assert.Equal(t, entries, mine, "the worker reads the operator's record")

	wantDay := taskrouting.WorkerDay{Since: midnight, CompletedTasks: 1, ShiftCount: 2, OnShift: 90 * time.Minute, BreakCount: 1,
		TotalBreak: 15 * time.Minute, LongestBreak: 15 * time.Minute, Working: 75 * time.Minute, CurrentShiftStartedAt: at(120)}
	wait, cycle, rate := 20*time.Second, 10*time.Minute, 1.0
	metrics, err := c.Workers.Metrics(ctx, "agent_1", taskrouting.WorkerMetricsParams{})
	require.NoError(t, err)
	operatorDay := wantDay
	operatorDay.CurrentShiftStartedAt = time.Time{} // the worker plane's member only
	if d := cmp.Diff(&taskrouting.WorkerMetrics{WorkerID: "agent_1", Today: operatorDay, Window: taskrouting.WorkerPeriod{
		From: midnight.AddDate(0, 0, -6), To: at(150), Days: []taskrouting.DayCompleted{{Day: "2025-11-21", Completed: 1}},
		MedianWait: &wait, MedianCycle: &cycle, ShiftCount: 2, OnShift: 90 * time.Minute, Break: 15 * time.Minute,
		Working: 75 * time.Minute, Offered: 1, Accepted: 1, Completed: 1, AcceptanceRate: &rate,
	}}, metrics); d != "" {
		t.Errorf("workers.metrics (-want +got):\n%s", d)
	}
	today, err := w.MetricsToday(ctx)
	require.NoError(t, err)
	wantDay.WorkerID = "agent_1"
	assert.Equal(t, &wantDay, today)

	window, err := w.Metrics(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.WorkerMetricsWindow{WorkerID: "agent_1", Since: midnight,
		Days: []taskrouting.DayCompleted{{Day: "2025-11-21", Completed: 1}}, MedianWait: &wait, MedianCycle: &cycle}, window)

	breaks, err := w.BreaksToday(ctx)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.BreaksToday{WorkerID: "agent_1", Since: midnight, CompletedTasks: 1, TotalBreak: 15 * time.Minute,
		Breaks: []taskrouting.WorkerBreak{{ID: "br_1", StartedAt: at(30), EndedAt: at(45), Reason: "lunch", Duration: 15 * time.Minute}}}, breaks)

	// agent_2 never worked: its record is empty, and agent_1's session reads only agent_1.
	other, err := c.Workers.TimeEntries(ctx, "agent_2", taskrouting.TimeEntriesParams{})
	require.NoError(t, err)
	assert.Empty(t, other.Entries)
	assert.Equal(t, taskrouting.TimeTotals{}, other.Totals)
	_, err = w.Queue(ctx, "agent_2")
	assert.True(t, errors.Is(err, taskrouting.ErrNotFound), "another worker's id on the worker plane is 404, got %v", err)
}

// TestWorkerTimeQueryBounds checks the window bounds: an explicit window clips the totals,
// a bad bound or window is a 400 and changes nothing.
func TestWorkerTimeQueryBounds(t *testing.T) {
	t.Parallel()
	clk, c, _ := timeSetup(t)
	ctx := context.Background()
	_, err := c.Workers.SetAvailability(ctx, "agent_1", taskrouting.SetAvailabilityParams{Available: true})
	require.NoError(t, err)
	clk.Advance(time.Hour)

	got, err := c.Workers.TimeEntries(ctx, "agent_1", taskrouting.TimeEntriesParams{From: at(15), To: at(45)})
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TimeTotals{ShiftCount: 1, OnShift: 30 * time.Minute, Working: 30 * time.Minute}, got.Totals,
		"the open shift counts only inside the window")
	require.Len(t, got.Entries, 1)
	assert.Equal(t, time.Hour, got.Entries[0].Duration, "an entry's own duration is not clipped")

	_, err = c.Workers.Metrics(ctx, "agent_1", taskrouting.WorkerMetricsParams{WindowDays: 31})
	var pe *taskrouting.ParamError
	assert.ErrorAs(t, err, &pe, "past 30 days is refused before sending")
	_, err = c.Workers.TimeEntries(ctx, "nobody", taskrouting.TimeEntriesParams{})
	assert.True(t, errors.Is(err, taskrouting.ErrNotFound), "got %v", err)
}

// TestTimeCorrectionsKeepTheTrail adds a shift never logged, corrects it three times and
// reads the trail: each change keeps what the record held before, and the worker sees the
// corrections on its own copy.
func TestTimeCorrectionsKeepTheTrail(t *testing.T) {
	t.Parallel()
	_, c, w := timeSetup(t)
	ctx := context.Background()
	day := time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)
	h := func(hour, min int) time.Time {
		return day.Add(time.Duration(hour)*time.Hour + time.Duration(min)*time.Minute)
	}
	iso := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z") }

	created, err := c.Workers.CreateTimeEntry(ctx, "agent_1", taskrouting.CreateTimeEntryParams{
		StartedAt: h(9, 0), EndedAt: h(17, 0), Note: "paper timesheet", Description: "Stocktake", TaskID: "task_9",
		Breaks: []taskrouting.TimeEntryBreak{{StartedAt: h(12, 0), EndedAt: h(12, 30)}},
	})
	require.NoError(t, err)
	shift := taskrouting.CorrectedTimeEntry{ID: "sh_1", Type: "shift", StartedAt: h(9, 0), EndedAt: h(17, 0), Corrected: true,
		Source: "operator", EndReason: "manual", Description: "Stocktake", TaskID: "task_9"}
	cor1 := taskrouting.TimeCorrection{ID: "cor_1", EntryType: "shift", EntryID: "sh_1", WorkerID: "agent_1", Note: "paper timesheet", At: timeT0,
		After: map[string]any{"startedAt": iso(h(9, 0)), "endedAt": iso(h(17, 0)), "description": "Stocktake", "taskId": "task_9"}}
	cor2 := taskrouting.TimeCorrection{ID: "cor_2", EntryType: "break", EntryID: "br_1", WorkerID: "agent_1", Note: "paper timesheet", At: timeT0,
		After: map[string]any{"startedAt": iso(h(12, 0)), "endedAt": iso(h(12, 30))}}
	lunch := taskrouting.CorrectedTimeEntry{ID: "br_1", Type: "break", StartedAt: h(12, 0), EndedAt: h(12, 30), Corrected: true}
	if d := cmp.Diff(&taskrouting.TimeEntryCorrection{Entry: shift, Correction: cor1,
		Breaks: []taskrouting.CorrectedTimeEntry{lunch}, Corrections: []taskrouting.TimeCorrection{cor1, cor2}}, created); d != "" {
		t.Errorf("created (-want +got):\n%s", d)
	}
	yesterday := taskrouting.TimeEntriesParams{From: day, To: day.AddDate(0, 0, 1)}
	log, err := c.Workers.TimeEntries(ctx, "agent_1", yesterday)
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TimeTotals{ShiftCount: 1, OnShift: 8 * time.Hour, BreakCount: 1, Break: 30 * time.Minute,
		Working: 7*time.Hour + 30*time.Minute}, log.Totals)

	// Refusals change nothing.
	_, err = c.Workers.CreateTimeEntry(ctx, "agent_1", taskrouting.CreateTimeEntryParams{StartedAt: h(16, 0), EndedAt: h(18, 0), Note: "double"})
	assert.True(t, errors.Is(err, taskrouting.ErrInvalidState), "an overlapping shift is 409, got %v", err)
	_, err = c.Workers.CreateTimeEntry(ctx, "agent_1", taskrouting.CreateTimeEntryParams{StartedAt: at(0), EndedAt: at(60), Note: "ahead"})
	assert.Equal(t, taskrouting.CodeInvalidBody, codeOf(err), "a shift ending in the future is 400")
	_, err = c.Workers.CreateTimeEntry(ctx, "agent_2", taskrouting.CreateTimeEntryParams{StartedAt: h(9, 0), EndedAt: h(10, 0), Note: "no sign-in",
		Breaks: []taskrouting.TimeEntryBreak{{StartedAt: h(9, 30), EndedAt: h(9, 40)}}})
	assert.Equal(t, taskrouting.CodeInvalidBody, codeOf(err), "breaks need a portal sign-in")
	_, err = c.Workers.CorrectTimeEntry(ctx, "agent_1", "sh_1", taskrouting.CorrectTimeEntryParams{Note: "wrong kind", Type: "break"})
	assert.True(t, errors.Is(err, taskrouting.ErrNotFound), "got %v", err)

	late, err := c.Workers.CorrectTimeEntry(ctx, "agent_1", "sh_1", taskrouting.CorrectTimeEntryParams{Note: "stayed late", EndedAt: taskrouting.Some(h(18, 0))})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"endedAt": iso(h(17, 0))}, late.Correction.Before)
	assert.Equal(t, map[string]any{"endedAt": iso(h(18, 0))}, late.Correction.After)
	assert.Nil(t, late.Breaks, "no breaks sent, none answered")

	moved, err := c.Workers.CorrectTimeEntry(ctx, "agent_1", "sh_1", taskrouting.CorrectTimeEntryParams{Note: "longer lunch, a coffee",
		Breaks: []taskrouting.TimeEntryBreak{{ID: "br_1", StartedAt: h(12, 0), EndedAt: h(12, 45)}, {StartedAt: h(15, 0), EndedAt: h(15, 10)}}})
	require.NoError(t, err)
	var ids []string
	for _, cr := range moved.Corrections {
		ids = append(ids, cr.EntryID)
	}
	assert.Equal(t, []string{"sh_1", "br_1", "br_2"}, ids, "one trail entry per record touched, the shift's first")
	require.Len(t, moved.Breaks, 2)
	log, err = c.Workers.TimeEntries(ctx, "agent_1", yesterday)
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TimeTotals{ShiftCount: 1, OnShift: 9 * time.Hour, BreakCount: 2, Break: 55 * time.Minute,
		Working: 8*time.Hour + 5*time.Minute}, log.Totals)

	cleared, err := c.Workers.CorrectTimeEntry(ctx, "agent_1", "sh_1", taskrouting.CorrectTimeEntryParams{Note: "no breaks at all",
		Breaks: []taskrouting.TimeEntryBreak{}, Description: taskrouting.Null[string]()})
	require.NoError(t, err)
	assert.Empty(t, cleared.Breaks)
	require.Len(t, cleared.Corrections, 3)
	assert.Equal(t, map[string]any{"removed": true}, cleared.Corrections[1].After)
	assert.Equal(t, "", cleared.Entry.Description)

	trail, err := c.Workers.TimeCorrections(ctx, "agent_1")
	require.NoError(t, err)
	assert.Len(t, trail, 2+1+3+3, "every change is kept")
	assert.Equal(t, "cor_1", trail[0].ID)
	assert.Nil(t, trail[0].Before, "a created entry has nothing before it")

	mine, err := w.TimeEntries(ctx)
	require.NoError(t, err)
	require.Len(t, mine.Entries, 1, "the removed breaks are gone")
	assert.Equal(t, "changed", mine.Entries[0].CorrectionKind)
	assert.Equal(t, "no breaks at all", mine.Entries[0].CorrectionNote)
	ops, err := c.Workers.TimeEntries(ctx, "agent_1", taskrouting.TimeEntriesParams{})
	require.NoError(t, err)
	assert.Equal(t, "", ops.Entries[0].CorrectionKind, "correctionKind is the worker plane's")
}

// TestPresenceBreakMetricsAndTeamTime reads the workspace's boards over two workers and a
// team: agent_1 on shift from t0 with a break from +10 still open at +40, agent_2 on shift
// from +20 to +30.
func TestPresenceBreakMetricsAndTeamTime(t *testing.T) {
	t.Parallel()
	clk, c, w := timeSetup(t)
	ctx := context.Background()
	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "red", Name: "Red"})
	require.NoError(t, err)
	_, err = c.Teams.SetMembers(ctx, team.ID, []string{"agent_2"})
	require.NoError(t, err)
	_, err = w.SetAvailability(ctx, true)
	require.NoError(t, err)
	clk.Advance(10 * time.Minute)
	_, err = w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "coffee"})
	require.NoError(t, err)
	clk.Advance(10 * time.Minute)
	_, err = c.Workers.Patch(ctx, "agent_2", taskrouting.PatchWorkerParams{Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	clk.Advance(10 * time.Minute)
	_, err = c.Workers.Patch(ctx, "agent_2", taskrouting.PatchWorkerParams{Available: taskrouting.Ptr(false)})
	require.NoError(t, err)
	clk.Advance(10 * time.Minute) // now +40

	board, err := c.Teams.Presence(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TeamPresence{Workers: []taskrouting.PresenceMember{
		{WorkerID: "agent_1", Label: "desk 4", Status: "on-break", BreakStartedAt: at(10), BreakReason: "coffee"},
		{WorkerID: "agent_2", Label: "agent_2", Status: "paused"},
	}, Counts: taskrouting.PresenceCounts{OnBreak: 1, Paused: 1, Total: 2}}, board)
	mine, err := w.TeamPresence(ctx)
	require.NoError(t, err)
	assert.Equal(t, board, mine, "every worker sees the workspace's board")
	red, err := c.Teams.Presence(ctx, team.ID)
	require.NoError(t, err)
	assert.Equal(t, taskrouting.PresenceCounts{Paused: 1, Total: 1}, red.Counts)

	bm, err := c.Workers.BreakMetrics(ctx, taskrouting.BreakMetricsParams{})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.BreakMetrics{Workers: []taskrouting.BreakMetric{
		{WorkerID: "agent_1", Label: "desk 4", Count: 1, TotalBreak: 30 * time.Minute, LongestBreak: 30 * time.Minute, Active: true},
		{WorkerID: "agent_2", Label: "agent_2"},
	}, TotalBreak: 30 * time.Minute, BreakCount: 1, ActiveCount: 1}, bm)

	early, err := c.Workers.BreakMetrics(ctx, taskrouting.BreakMetricsParams{To: at(20), WorkerID: "agent_1"})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.BreakMetrics{Workers: []taskrouting.BreakMetric{
		{WorkerID: "agent_1", Label: "desk 4", Count: 1, TotalBreak: 10 * time.Minute, LongestBreak: 10 * time.Minute, Active: true},
	}, TotalBreak: 10 * time.Minute, BreakCount: 1, ActiveCount: 1}, early, "up to +20 only, from that day's midnight")

	report, err := c.Teams.Time(ctx, taskrouting.TeamTimeParams{From: midnight, Entries: true})
	require.NoError(t, err)
	assert.Equal(t, midnight, report.From)
	assert.Equal(t, at(40), report.To)
	require.Len(t, report.Workers, 2)
	a1, a2 := report.Workers[0], report.Workers[1]
	assert.Equal(t, [5]time.Duration{40 * time.Minute, 30 * time.Minute, 10 * time.Minute}, [5]time.Duration{a1.OnShift, a1.Break, a1.Working})
	assert.True(t, a1.OpenShift && a1.OpenBreak)
	assert.Equal(t, [3]time.Duration{10 * time.Minute, 0, 10 * time.Minute}, [3]time.Duration{a2.OnShift, a2.Break, a2.Working})
	assert.Len(t, a1.Entries, 2)
	assert.Equal(t, []taskrouting.TeamTimeDay{{Day: "2025-11-21", OnShift: 50 * time.Minute, Break: 30 * time.Minute, Working: 20 * time.Minute}}, report.Days)
	assert.Equal(t, taskrouting.TeamTimeTotals{WorkerCount: 2, ShiftCount: 2, OnShift: 50 * time.Minute, BreakCount: 1,
		Break: 30 * time.Minute, Working: 20 * time.Minute}, report.Totals)

	plain, err := c.Teams.Time(ctx, taskrouting.TeamTimeParams{TeamID: team.ID})
	require.NoError(t, err)
	assert.Nil(t, plain.Days, "no entries asked, no day series")
	require.Len(t, plain.Workers, 1)
	assert.Nil(t, plain.Workers[0].Entries)
	assert.Equal(t, "agent_2", plain.Workers[0].WorkerID)
}

// TestLinksAndOffboarding links workers to a connector, refuses a vendor user linked twice,
// unlinks, and previews an offboarding that counts what the worker holds.
func TestLinksAndOffboarding(t *testing.T) {
	t.Parallel()
	_, c, w := timeSetup(t)
	ctx := context.Background()

	link, err := c.Workers.Link(ctx, "agent_1", "hubspot", taskrouting.LinkWorkerParams{VendorUserID: "owner_42", Tags: []string{"sales", "english"}})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.WorkerLink{Connector: "hubspot", VendorUserID: "owner_42", WorkerID: "agent_1", CreatedAt: timeT0}, link)
	got, err := c.Workers.Get(ctx, "agent_1")
	require.NoError(t, err)
	assert.Equal(t, []string{"english", "sales"}, got.Tags, "tags are added, never replaced")

	_, err = c.Workers.Link(ctx, "agent_2", "hubspot", taskrouting.LinkWorkerParams{VendorUserID: "owner_42"})
	var apiErr *taskrouting.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, taskrouting.CodeWorkerLinkConflict, apiErr.Code)
	_, err = c.Workers.Link(ctx, "agent_2", "jira", taskrouting.LinkWorkerParams{VendorUserID: "acc_1"})
	require.NoError(t, err)

	all, err := c.Workers.Links(ctx, "")
	require.NoError(t, err)
	assert.Len(t, all, 2)
	jira, err := c.Workers.Links(ctx, "jira")
	require.NoError(t, err)
	require.Len(t, jira, 1)
	assert.Equal(t, "agent_2", jira[0].WorkerID)

	require.NoError(t, c.Workers.Unlink(ctx, "agent_1", "hubspot"))
	err = c.Workers.Unlink(ctx, "agent_1", "hubspot")
	assert.True(t, errors.Is(err, taskrouting.ErrNotFound), "got %v", err)

	// agent_1 holds an accepted task and a pending offer, and is on one team.
	_, err = w.SetAvailability(ctx, true)
	require.NoError(t, err)
	for _, id := range []string{"task_1", "task_2"} {
		_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: id, Tags: []string{"english"}})
		require.NoError(t, err)
	}
	_, err = w.Accept(ctx, "task_1")
	require.NoError(t, err)
	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "red", Name: "Red"})
	require.NoError(t, err)
	_, err = c.Teams.SetMembers(ctx, team.ID, []string{"agent_1"})
	require.NoError(t, err)

	off, err := c.Workers.Offboarding(ctx, "agent_1", "")
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.OffboardingSummary{WorkerID: "agent_1", LastDay: "2025-11-21",
		Tasks: taskrouting.OffboardingTasks{Pending: 1, Accepted: 1}, Rosters: []taskrouting.OffboardingRoster{}, Teams: 1}, off)
	off, err = c.Workers.Offboarding(ctx, "agent_1", "2025-12-01")
	require.NoError(t, err)
	assert.Equal(t, "2025-12-01", off.LastDay)

	// agent_2 (off shift) is booked for a slot on 5 December: booked after a last day before it.
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_3", Tags: []string{"english"},
		Slot: &taskrouting.TimeSlot{StartAt: time.Date(2025, 12, 5, 9, 0, 0, 0, time.UTC), Duration: time.Hour}})
	require.NoError(t, err)
	_, err = c.Tasks.Booking.Set(ctx, "task_3", taskrouting.SetBookingParams{WorkerID: "agent_2", Force: true})
	require.NoError(t, err)
	for day, want := range map[string]int{"2025-12-04": 1, "2025-12-05": 0} {
		off, err = c.Workers.Offboarding(ctx, "agent_2", day)
		require.NoError(t, err)
		assert.Equal(t, want, off.Tasks.Booked, "last day %s", day)
	}

	require.NoError(t, c.Workers.Remove(ctx, "agent_2"))
	all, err = c.Workers.Links(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, all, "a removed worker's links go with it")
}

// codeOf is the API error code of err, or "" when err is not an *APIError.
func codeOf(err error) string {
	var apiErr *taskrouting.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Code
	}
	return ""
}

// TestFailedTasksCountAsOutcomes: a task its worker accepted and failed counts as failed in
// the worker's metrics and in the team report.
func TestFailedTasksCountAsOutcomes(t *testing.T) {
	t.Parallel()
	_, c, w := timeSetup(t)
	ctx := context.Background()
	_, err := w.SetAvailability(ctx, true)
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"}})
	require.NoError(t, err)
	_, err = w.Accept(ctx, "task_1")
	require.NoError(t, err)
	_, err = c.Tasks.Fail(ctx, "task_1", taskrouting.FailTaskParams{WorkerID: "agent_1", Reason: "customer unreachable"})
	require.NoError(t, err)

	m, err := c.Workers.Metrics(ctx, "agent_1", taskrouting.WorkerMetricsParams{})
	require.NoError(t, err)
	assert.Equal(t, [4]int{1, 1, 0, 1}, [4]int{m.Window.Offered, m.Window.Accepted, m.Window.Completed, m.Window.Failed})
	report, err := c.Teams.Time(ctx, taskrouting.TeamTimeParams{WorkerID: "agent_1"})
	require.NoError(t, err)
	require.Len(t, report.Workers, 1)
	assert.Equal(t, 1, report.Workers[0].Failed)
	assert.Equal(t, 1, report.Totals.Failed)
}

// TestSupervisorShiftsAreRecorded: a supervisor putting a worker on and off shift opens and
// closes a shift with source "supervisor".
func TestSupervisorShiftsAreRecorded(t *testing.T) {
	t.Parallel()
	clk := mockserver.NewManualClock(timeT0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}})
	require.NoError(t, err)
	s, _ := supervise(t, srv, mockserver.SupervisorInvite{Label: "Dana"})
	_, err = s.SetAvailability(ctx, "agent_1", taskrouting.SupervisorAvailabilityParams{Available: true})
	require.NoError(t, err)
	clk.Advance(45 * time.Minute)
	_, err = s.SetAvailability(ctx, "agent_1", taskrouting.SupervisorAvailabilityParams{Available: false})
	require.NoError(t, err)

	log, err := c.Workers.TimeEntries(ctx, "agent_1", taskrouting.TimeEntriesParams{})
	require.NoError(t, err)
	assert.Equal(t, []taskrouting.TimeEntry{{Type: "shift", ID: "sh_1", StartedAt: at(0), EndedAt: at(45), Duration: 45 * time.Minute,
		Source: "supervisor", EndReason: "manual"}}, log.Entries)
}
