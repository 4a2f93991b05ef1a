package taskrouting_test

import (
	"context"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// Get reports the workspace now. Here ana has accepted a task and a
// Spanish task has waited two minutes for a worker who speaks Spanish.
func ExampleStatsService_Get() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("ana", "english")
	sb.task("t1", 0, "english")
	if _, err := c.Decisions.Accept(ctx, "t1", "ana"); err != nil {
		panic(err)
	}
	sb.task("t2", 0, "spanish")
	sb.clock.Advance(2 * time.Minute)

	st, err := c.Stats.Get(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("queued:", st.Tasks["queued"], "accepted:", st.Tasks["accepted"])
	fmt.Println("oldest waiting:", *st.Queue.OldestWaiting)
	fmt.Println("matched this month:", st.Meter.MatchedTasks, "in", st.Meter.Period)
	for _, w := range st.Queue.PerWorker {
		fmt.Printf("%s holds %d of %d\n", w.WorkerID, w.Backlog, w.MaxBacklogSize)
	}
	// Output:
	// queued: 1 accepted: 1
	// oldest waiting: 2m0s
	// matched this month: 1 in 2025-11
	// ana holds 0 of 9
}

// SLA measures how offers were answered: ana took 20 seconds to accept
// one offer and let another expire (offers last 60 seconds by default).
func ExampleStatsService_SLA() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("ana", "english")
	sb.task("t1", 0, "english")
	sb.clock.Advance(20 * time.Second)
	if _, err := c.Decisions.Accept(ctx, "t1", "ana"); err != nil {
		panic(err)
	}
	sb.task("t2", 0, "english")
	sb.clock.Advance(time.Minute)

	sla, err := c.Stats.SLA(ctx, "english")
	if err != nil {
		panic(err)
	}
	fmt.Println("offers:", sla.Offers, "in time:", sla.AcceptedInTime, "breaches:", sla.AcceptanceBreaches)
	fmt.Println("mean accept latency:", sla.MeanAcceptLatency)
	fmt.Printf("acceptance rate: %.2f\n", *sla.AcceptanceRate)
	// Output:
	// offers: 3 in time: 1 breaches: 1
	// mean accept latency: 20s
	// acceptance rate: 0.33
}

// QueueAudit says why tasks wait: nobody speaks Spanish, and the only
// English speaker is paused.
func ExampleStatsService_QueueAudit() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("ana", "english")
	if _, err := c.Workers.SetAvailability(ctx, "ana", taskrouting.SetAvailabilityParams{Available: false}); err != nil {
		panic(err)
	}
	sb.task("t1", 0, "spanish")
	sb.task("t2", 0, "english")
	sb.clock.Advance(time.Minute)

	audit, err := c.Stats.QueueAudit(ctx, taskrouting.QueueAuditParams{})
	if err != nil {
		panic(err)
	}
	for _, e := range audit.Entries {
		fmt.Println(e.TaskID, *e.Waiting, "uncovered:", e.UncoveredTags, "blockers:", e.Blockers)
	}
	// Output:
	// t1 1m0s uncovered: [spanish] blockers: map[]
	// t2 1m0s uncovered: [] blockers: map[unavailable:1]
}
