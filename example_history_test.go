package taskrouting_test

import (
	"context"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// handled has ana accept a task after 20 seconds and complete it 5 minutes
// later, starting at the sandbox's 04:40.
func (sb *sandbox) handled(taskID string) {
	ctx := context.Background()
	sb.worker("ana", "english")
	sb.task(taskID, 0, "english")
	sb.clock.Advance(20 * time.Second)
	if _, err := sb.c.Decisions.Accept(ctx, taskID, "ana"); err != nil {
		panic(err)
	}
	sb.clock.Advance(5 * time.Minute)
	if _, err := sb.c.Decisions.Complete(ctx, taskID, "ana", nil); err != nil {
		panic(err)
	}
}

// Timeseries buckets what finished: a wait is from creation to accept, a
// handling time from accept to completion.
func ExampleStatsService_Timeseries() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.handled("t1")

	from := time.Date(2025, 11, 21, 4, 0, 0, 0, time.UTC)
	ts, err := c.Stats.Timeseries(context.Background(), taskrouting.StatsWindow{From: from, Bucket: "hour"})
	if err != nil {
		panic(err)
	}
	for _, b := range ts.Buckets {
		fmt.Println(b.Start.Format("15:04"), "completed", b.Completed, "wait", *b.AvgWait, "handled", *b.AvgHandle)
	}
	// Output: 04:00 completed 1 wait 20s handled 5m0s
}

// Workers lists what each worker finished in the window.
func ExampleStatsService_Workers() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.handled("t1")

	h, err := c.Stats.Workers(context.Background(), taskrouting.WorkerStatsParams{})
	if err != nil {
		panic(err)
	}
	for _, w := range h.Workers {
		fmt.Println(w.WorkerID, "completed", w.Completed, "handled on average", *w.AvgHandle)
	}
	// Output: ana completed 1 handled on average 5m0s
}

// WorkerTimeseries in day buckets also counts the worker's offers by how
// they ended; hour buckets leave those counters nil.
func ExampleStatsService_WorkerTimeseries() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.handled("t1")

	day := time.Date(2025, 11, 21, 0, 0, 0, 0, time.UTC)
	ts, err := c.Stats.WorkerTimeseries(context.Background(), "ana", taskrouting.StatsWindow{From: day, To: day.AddDate(0, 0, 1), Bucket: "day"})
	if err != nil {
		panic(err)
	}
	b := ts.Buckets[0]
	fmt.Println(b.Start.Format(time.DateOnly), "offered", *b.Offered, "accepted", *b.Accepted, "completed", b.Completed)
	// Output: 2025-11-21 offered 1 accepted 1 completed 1
}
