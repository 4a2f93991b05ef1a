package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// History reads finished tasks, the most recently finished first, one page
// after another.
func ExampleTasksService_History() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "billing")
	for _, id := range []string{"t1", "t2", "t3"} {
		sb.task(id, 0, "billing")
		if _, err := c.Decisions.Accept(ctx, id, "agent_1"); err != nil {
			panic(err)
		}
		if _, err := c.Decisions.Complete(ctx, id, "agent_1", map[string]any{"ok": true}); err != nil {
			panic(err)
		}
		sb.clock.Advance(time.Minute)
	}

	for task, err := range c.Tasks.History(ctx, taskrouting.HistoryParams{WorkerID: "agent_1", Limit: 2}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(task.ID, task.Status, task.TerminalAt.UTC().Format(time.TimeOnly))
	}
	// Output:
	// t3 completed 04:42:00
	// t2 completed 04:41:00
	// t1 completed 04:40:00
}

// HistoryPage reads one page; NextCursor continues it.
func ExampleTasksService_HistoryPage() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.task("t1", 0, "billing")
	sb.task("t2", 0, "billing")
	for _, id := range []string{"t1", "t2"} {
		if err := c.Tasks.Cancel(ctx, id); err != nil {
			panic(err)
		}
	}

	page, err := c.Tasks.HistoryPage(ctx, taskrouting.HistoryParams{Statuses: []taskrouting.TaskStatus{taskrouting.TaskStatusCancelled}, Limit: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(page.Tasks[0].ID, page.HasMore, page.NextCursor != "")
	// Output: t2 true true
}

// A slotted task booked for a worker is offered to that worker only.
func ExampleBookingService_Set() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "visit")
	sb.worker("agent_2", "visit")
	start := time.UnixMilli(sandboxStart).Add(24 * time.Hour)
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "visit-42", Tags: []string{"visit"},
		Slot: &taskrouting.TimeSlot{StartAt: start, Duration: 2 * time.Hour}})
	if err != nil {
		panic(err)
	}

	b, err := c.Tasks.Booking.Set(ctx, "visit-42", taskrouting.SetBookingParams{WorkerID: "agent_2"})
	if err != nil {
		panic(err)
	}
	task, err := c.Tasks.Get(ctx, "visit-42")
	if err != nil {
		panic(err)
	}
	fmt.Println(b.WorkerID, b.EndAt.Sub(b.StartAt), task.Status, task.WorkerID)
	// Output: agent_2 2h0m0s pending agent_2
}

// Release ends the booking: the task goes to the best eligible worker again.
func ExampleBookingService_Release() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "visit")
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "visit-42", Tags: []string{"visit"},
		Slot: &taskrouting.TimeSlot{StartAt: time.UnixMilli(sandboxStart), Duration: time.Hour}})
	if err != nil {
		panic(err)
	}
	sb.worker("agent_2", "visit")
	if _, err := c.Tasks.Booking.Set(ctx, "visit-42", taskrouting.SetBookingParams{WorkerID: "agent_2"}); err != nil {
		panic(err)
	}
	if _, err := c.Decisions.Reject(ctx, "visit-42", "agent_2"); err != nil {
		panic(err)
	}
	task, _ := c.Tasks.Get(ctx, "visit-42")
	fmt.Println("booked, rejected:", task.Status)

	if err := c.Tasks.Booking.Release(ctx, "visit-42"); err != nil {
		panic(err)
	}
	task, _ = c.Tasks.Get(ctx, "visit-42")
	fmt.Println("released:", task.Status, task.WorkerID)
	// Output:
	// booked, rejected: queued
	// released: pending agent_1
}

// Candidates ranks who could be booked and says who clashes.
func ExampleBookingService_Candidates() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "visit")
	sb.worker("agent_2", "visit", "senior")
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "visit-42", Tags: []string{"visit"},
		VetoedWorkers: []string{"agent_1"}, Slot: &taskrouting.TimeSlot{StartAt: time.UnixMilli(sandboxStart), Duration: time.Hour}})
	if err != nil {
		panic(err)
	}

	cands, err := c.Tasks.Booking.Candidates(ctx, "visit-42")
	if err != nil {
		panic(err)
	}
	for _, cd := range cands {
		fmt.Println(cd.WorkerID, cd.Bookable)
	}
	// Output:
	// agent_2 true
	// agent_1 false
}

// Bookings answers who is booked on what in a window.
func ExampleTasksService_Bookings() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "visit")
	start := time.UnixMilli(sandboxStart).Add(time.Hour)
	for i, id := range []string{"visit-1", "visit-2"} {
		slot := &taskrouting.TimeSlot{StartAt: start.Add(time.Duration(i) * 3 * time.Hour), Duration: time.Hour}
		if _, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: id, Tags: []string{"visit"}, Slot: slot}); err != nil {
			panic(err)
		}
		if _, err := c.Tasks.Booking.Set(ctx, id, taskrouting.SetBookingParams{WorkerID: "agent_1"}); err != nil {
			panic(err)
		}
	}

	bookings, err := c.Tasks.Bookings(ctx, taskrouting.BookingsParams{From: start, To: start.Add(2 * time.Hour)})
	if err != nil {
		panic(err)
	}
	for _, b := range bookings {
		fmt.Println(b.TaskID, b.WorkerID, b.StartAt.UTC().Format(time.TimeOnly))
	}
	// Output: visit-1 agent_1 05:40:00
}

// A create with a Recurrence makes a template; occurrences are cut on the
// server's clock.
func ExampleRecurringService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "nightly-sweep", Tags: []string{"ops"},
		Recurrence: &taskrouting.Recurrence{Every: 24 * time.Hour}})
	if err != nil {
		panic(err)
	}
	sb.clock.Advance(48 * time.Hour)

	templates, err := c.Tasks.Recurring.List(ctx)
	if err != nil {
		panic(err)
	}
	for _, t := range templates {
		fmt.Println(t.ID, t.Occurrences, t.NextAt.UTC().Format(time.DateTime))
	}
	// Output: nightly-sweep 3 2025-11-24 04:40:00
}

// Remove stops a template; DropScheduled also cancels its live occurrences.
func ExampleRecurringService_Remove() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "hourly-ping", Tags: []string{"ops"},
		Recurrence: &taskrouting.Recurrence{Every: time.Hour}})
	if err != nil {
		panic(err)
	}
	if err := c.Tasks.Recurring.Remove(ctx, "hourly-ping", taskrouting.RemoveRecurringParams{DropScheduled: true}); err != nil {
		panic(err)
	}
	page, err := c.Tasks.ListPage(ctx, taskrouting.ListTasksParams{Status: taskrouting.TaskStatusQueued})
	if err != nil {
		panic(err)
	}
	err = c.Tasks.Recurring.Remove(ctx, "hourly-ping", taskrouting.RemoveRecurringParams{})
	fmt.Println(len(page.Tasks), errors.Is(err, taskrouting.ErrNotFound))
	// Output: 0 true
}

// Check runs a create's checks without creating anything.
func ExampleTasksService_Check() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "english")
	sb.task("taken", 0, "english")

	rep, err := c.Tasks.Check(ctx, taskrouting.CreateTaskParams{ID: "taken", Tags: []string{"english", "german"}})
	if err != nil {
		panic(err)
	}
	fmt.Println("eligible:", rep.EligibleWorkerCount, "uncovered:", rep.UncoveredTags)
	for _, i := range rep.Issues {
		fmt.Println(i.Severity, i.Code)
	}
	// Output:
	// eligible: 1 uncovered: [german]
	// error task_exists
	// info uncovered_tag
}
