package taskrouting_test

import (
	"context"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// shiftWithBreak puts agent_1 on shift at the sandbox's start (04:40 UTC),
// signs it in, and has it take a 15-minute lunch from 05:10; the clock then
// stands at 05:40.
func (sb *sandbox) shiftWithBreak() *taskrouting.WorkerClient {
	ctx := context.Background()
	sb.worker("agent_1", "english")
	w := sb.signIn("agent_1")
	sb.clock.Advance(30 * time.Minute)
	if _, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"}); err != nil {
		panic(err)
	}
	sb.clock.Advance(15 * time.Minute)
	if _, err := w.EndBreak(ctx); err != nil {
		panic(err)
	}
	sb.clock.Advance(15 * time.Minute)
	return w
}

// The record is what happened on the server's clock: a shift is open while
// the worker is available, and its breaks sit inside it.
func ExampleWorkersService_TimeEntries() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.shiftWithBreak()
	ctx := context.Background()

	log, err := c.Workers.TimeEntries(ctx, "agent_1", taskrouting.TimeEntriesParams{})
	if err != nil {
		panic(err)
	}
	for _, e := range log.Entries {
		fmt.Println(e.Type, e.StartedAt.Format("15:04"), e.Duration, e.EndedAt.IsZero())
	}
	fmt.Println("on shift", log.Totals.OnShift, "worked", log.Totals.Working)
	// Output:
	// shift 04:40 1h0m0s true
	// break 05:10 15m0s false
	// on shift 1h0m0s worked 45m0s
}

// Metrics reads today and a window of days; medians stay nil until
// something was measured.
func ExampleWorkersService_Metrics() {
	c, sb := newSandbox()
	defer sb.Close()
	w := sb.shiftWithBreak()
	sb.task("task_1", 0, "english")
	ctx := context.Background()
	sb.clock.Advance(20 * time.Second)
	if _, err := w.Accept(ctx, "task_1"); err != nil {
		panic(err)
	}

	m, err := c.Workers.Metrics(ctx, "agent_1", taskrouting.WorkerMetricsParams{WindowDays: 7})
	if err != nil {
		panic(err)
	}
	fmt.Println("today: worked", m.Today.Working.Round(time.Minute), "breaks", m.Today.BreakCount)
	fmt.Println("window: offered", m.Window.Offered, "accepted", m.Window.Accepted, "rate", *m.Window.AcceptanceRate)
	fmt.Println("median wait", *m.Window.MedianWait, "median cycle", m.Window.MedianCycle)
	// Output:
	// today: worked 45m0s breaks 1
	// window: offered 1 accepted 1 rate 1
	// median wait 20s median cycle <nil>
}

// A shift worked and never logged is added with a reason; the trail keeps
// that it was added.
func ExampleWorkersService_CreateTimeEntry() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_2", "english")
	ctx := context.Background()
	yesterday := time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)

	res, err := c.Workers.CreateTimeEntry(ctx, "agent_2", taskrouting.CreateTimeEntryParams{
		StartedAt: yesterday.Add(9 * time.Hour), EndedAt: yesterday.Add(17 * time.Hour),
		Note: "paper timesheet", Description: "Stocktake",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Entry.ID, res.Entry.Source, res.Entry.Corrected, res.Entry.Description)
	fmt.Println(res.Correction.Note, "before:", res.Correction.Before)
	// Output:
	// sh_2 operator true Stocktake
	// paper timesheet before: map[]
}

// A correction changes only what it is given and keeps what the record held
// before.
func ExampleWorkersService_CorrectTimeEntry() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	ctx := context.Background()
	sb.clock.Advance(time.Hour)
	if _, err := c.Workers.SetAvailability(ctx, "agent_1", taskrouting.SetAvailabilityParams{Available: false}); err != nil {
		panic(err)
	}

	// The worker actually started ten minutes earlier.
	res, err := c.Workers.CorrectTimeEntry(ctx, "agent_1", "sh_1", taskrouting.CorrectTimeEntryParams{
		Note: "badge reader was down", StartedAt: time.Date(2025, 11, 21, 4, 30, 0, 0, time.UTC),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Correction.Before["startedAt"], "->", res.Correction.After["startedAt"])
	// Output: 2025-11-21T04:40:00.000Z -> 2025-11-21T04:30:00.000Z
}

// The trail lists every change to a worker's record, oldest first.
func ExampleWorkersService_TimeCorrections() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	ctx := context.Background()
	sb.clock.Advance(time.Hour)
	for _, note := range []string{"late badge", "desk note"} {
		_, err := c.Workers.CorrectTimeEntry(ctx, "agent_1", "sh_1", taskrouting.CorrectTimeEntryParams{Note: note, Description: taskrouting.Some(note)})
		if err != nil {
			panic(err)
		}
	}

	trail, err := c.Workers.TimeCorrections(ctx, "agent_1")
	if err != nil {
		panic(err)
	}
	for _, cr := range trail {
		fmt.Println(cr.ID, cr.EntryID, cr.Note, cr.Before["description"], "->", cr.After["description"])
	}
	// Output:
	// cor_1 sh_1 late badge <nil> -> late badge
	// cor_2 sh_1 desk note late badge -> desk note
}

// Offboarding previews what removing a worker hands back, and changes
// nothing.
func ExampleWorkersService_Offboarding() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	ctx := context.Background()

	off, err := c.Workers.Offboarding(ctx, "agent_1", "2025-11-30")
	if err != nil {
		panic(err)
	}
	fmt.Println(off.LastDay, "pending", off.Tasks.Pending, "accepted", off.Tasks.Accepted)
	// Output: 2025-11-30 pending 1 accepted 0
}

// A link says who the worker is in a connected system; its tags are added
// to the worker's own.
func ExampleWorkersService_Link() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	ctx := context.Background()

	link, err := c.Workers.Link(ctx, "agent_1", "hubspot", taskrouting.LinkWorkerParams{VendorUserID: "owner_42", Tags: []string{"sales"}})
	if err != nil {
		panic(err)
	}
	w, err := c.Workers.Get(ctx, "agent_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(link.Connector, link.VendorUserID, w.Tags)
	// Output: hubspot owner_42 [english sales]
}

// Links lists the workspace's links, or one connector's.
func ExampleWorkersService_Links() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	ctx := context.Background()
	for _, connector := range []string{"hubspot", "jira"} {
		if _, err := c.Workers.Link(ctx, "agent_1", connector, taskrouting.LinkWorkerParams{VendorUserID: "u1"}); err != nil {
			panic(err)
		}
	}

	links, err := c.Workers.Links(ctx, "jira")
	if err != nil {
		panic(err)
	}
	for _, l := range links {
		fmt.Println(l.WorkerID, l.Connector, l.VendorUserID)
	}
	// Output: agent_1 jira u1
}

// Unlink removes a link; the tags it added stay.
func ExampleWorkersService_Unlink() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	ctx := context.Background()
	if _, err := c.Workers.Link(ctx, "agent_1", "jira", taskrouting.LinkWorkerParams{VendorUserID: "acc_1"}); err != nil {
		panic(err)
	}

	if err := c.Workers.Unlink(ctx, "agent_1", "jira"); err != nil {
		panic(err)
	}
	links, err := c.Workers.Links(ctx, "")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(links))
	// Output: 0
}

// BreakMetrics reads today's breaks of every worker; Active is a break
// open now.
func ExampleWorkersService_BreakMetrics() {
	c, sb := newSandbox()
	defer sb.Close()
	w := sb.shiftWithBreak()
	ctx := context.Background()
	if _, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "coffee"}); err != nil {
		panic(err)
	}
	sb.clock.Advance(5 * time.Minute)

	m, err := c.Workers.BreakMetrics(ctx, taskrouting.BreakMetricsParams{})
	if err != nil {
		panic(err)
	}
	for _, b := range m.Workers {
		fmt.Println(b.WorkerID, b.Count, b.TotalBreak, b.LongestBreak, b.Active)
	}
	// Output: agent_1 2 20m0s 15m0s true
}

// Presence is the board of who is working, on a break or paused now.
func ExampleTeamsService_Presence() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_2", Tags: []string{"english"}}); err != nil {
		panic(err)
	}
	if _, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"}); err != nil {
		panic(err)
	}

	board, err := c.Teams.Presence(ctx, "")
	if err != nil {
		panic(err)
	}
	for _, m := range board.Workers {
		fmt.Printf("%s (%s) %s %q\n", m.WorkerID, m.Label, m.Status, m.BreakReason)
	}
	fmt.Printf("%+v\n", board.Counts)
	// Output:
	// agent_1 (desk 4) on-break "lunch"
	// agent_2 (agent_2) paused ""
	// {Working:0 OnBreak:1 Paused:1 Total:2}
}

// The team report sums each worker's time and outcomes; Entries adds the
// log and a series of days.
func ExampleTeamsService_Time() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.shiftWithBreak()
	ctx := context.Background()

	report, err := c.Teams.Time(ctx, taskrouting.TeamTimeParams{Entries: true})
	if err != nil {
		panic(err)
	}
	for _, row := range report.Workers {
		fmt.Println(row.WorkerID, row.OnShift, row.Break, row.Working, row.OpenShift, len(row.Entries))
	}
	for _, d := range report.Days {
		fmt.Println(d.Day, d.Working)
	}
	// Output:
	// agent_1 1h0m0s 15m0s 45m0s true 2
	// 2025-11-21 45m0s
}

// A worker reads its own breaks of the day.
func ExampleWorkerClient_BreaksToday() {
	_, sb := newSandbox()
	defer sb.Close()
	w := sb.shiftWithBreak()

	today, err := w.BreaksToday(context.Background())
	if err != nil {
		panic(err)
	}
	for _, b := range today.Breaks {
		fmt.Println(b.ID, b.Reason, b.Duration)
	}
	fmt.Println("since", today.Since.Format(time.RFC3339), "open:", today.Active != nil)
	// Output:
	// br_1 lunch 15m0s
	// since 2025-11-21T00:00:00Z open: false
}

// A worker reads its own day so far.
func ExampleWorkerClient_MetricsToday() {
	_, sb := newSandbox()
	defer sb.Close()
	w := sb.shiftWithBreak()

	day, err := w.MetricsToday(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(day.WorkerID, "on shift since", day.CurrentShiftStartedAt.Format("15:04"), "worked", day.Working)
	// Output: agent_1 on shift since 04:40 worked 45m0s
}

// A worker reads its completions per day and medians over a window.
func ExampleWorkerClient_Metrics() {
	_, sb := newSandbox()
	defer sb.Close()
	w := sb.shiftWithBreak()
	sb.task("task_1", 0, "english")
	ctx := context.Background()
	if _, err := w.Accept(ctx, "task_1"); err != nil {
		panic(err)
	}
	sb.clock.Advance(10 * time.Minute)
	if _, err := w.Complete(ctx, "task_1", nil); err != nil {
		panic(err)
	}

	m, err := w.Metrics(ctx, 7)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Days, "median cycle", *m.MedianCycle)
	// Output: [{2025-11-21 1}] median cycle 10m0s
}

// A worker reads its own copy of the record, corrections marked.
func ExampleWorkerClient_TimeEntries() {
	c, sb := newSandbox()
	defer sb.Close()
	w := sb.shiftWithBreak()
	ctx := context.Background()
	_, err := c.Workers.CorrectTimeEntry(ctx, "agent_1", "br_1", taskrouting.CorrectTimeEntryParams{
		Note: "lunch ran long", EndedAt: taskrouting.Some(time.Date(2025, 11, 21, 5, 30, 0, 0, time.UTC)),
	})
	if err != nil {
		panic(err)
	}

	mine, err := w.TimeEntries(ctx)
	if err != nil {
		panic(err)
	}
	for _, e := range mine.Entries {
		fmt.Printf("%s %v %q %q\n", e.ID, e.Duration, e.CorrectionKind, e.CorrectionNote)
	}
	fmt.Println("worked", mine.Totals.Working)
	// Output:
	// sh_1 1h0m0s "" ""
	// br_1 20m0s "changed" "lunch ran long"
	// worked 40m0s
}

// Every worker sees the workspace's presence board.
func ExampleWorkerClient_TeamPresence() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_2", "english")
	w := sb.shiftWithBreak()

	board, err := w.TeamPresence(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(board.Counts.Working, "working of", board.Counts.Total)
	// Output: 2 working of 2
}
