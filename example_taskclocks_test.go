package taskrouting_test

import (
	"context"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// A worker that accepted a task and cannot finish it fails it; the task is
// over for good.
func ExampleTasksService_Fail() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "billing")
	sb.task("task_1", 0, "billing")
	if _, err := c.Decisions.Accept(ctx, "task_1", "agent_1"); err != nil {
		panic(err)
	}

	ref, err := c.Tasks.Fail(ctx, "task_1", taskrouting.FailTaskParams{WorkerID: "agent_1", Reason: "customer gone"})
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.Status)
	// Output: failed
}

// Ack stops the response clock: the offer no longer runs out.
func ExampleTasksService_Ack() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "billing")
	sb.task("task_1", 0, "billing")

	ref, err := c.Tasks.Ack(ctx, "task_1", "agent_1")
	if err != nil {
		panic(err)
	}
	sb.clock.Advance(time.Hour)
	t, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.Status, t.Status, t.WorkerID)
	// Output: accepted accepted agent_1
}

// Each escalation step raises the priority by the ladder's boost; past
// MaxEscalations the task parks, and only Parked in the answer says so.
func ExampleTasksService_Escalate() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{
		ID: "task_1", Tags: []string{"billing"}, Priority: 10,
		Escalation: taskrouting.Some(taskrouting.Escalation{
			RespondWithin: time.Minute, PriorityBoost: 5, MaxEscalations: taskrouting.Ptr(1), OnExhausted: "park",
		}),
	})
	if err != nil {
		panic(err)
	}

	for range 2 {
		step, err := c.Tasks.Escalate(ctx, "task_1", taskrouting.EscalateTaskParams{})
		if err != nil {
			panic(err)
		}
		t, err := c.Tasks.Get(ctx, "task_1")
		if err != nil {
			panic(err)
		}
		fmt.Println(step.Escalated, step.Parked, step.Level, t.Priority, t.Status)
	}
	// Output:
	// true false 1 15 queued
	// false true 1 15 parked
}

// A task whose rejection budget is spent parks; Unpark with ResetSLA gives
// it a fresh budget and it is matched again at once.
func ExampleTasksService_Unpark() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "billing")
	sb.worker("agent_2", "billing")
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{
		ID: "task_1", Tags: []string{"billing"},
		SLA: taskrouting.Some(taskrouting.SLA{MaxRejections: 1, OnMaxRejections: taskrouting.MaxRejectionsPark}),
	})
	if err != nil {
		panic(err)
	}
	if _, err := c.Decisions.Reject(ctx, "task_1", "agent_1"); err != nil {
		panic(err)
	}
	parked, err := c.Tasks.Parked(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(parked.Count, parked.Tasks[0].Status)

	ref, err := c.Tasks.Unpark(ctx, "task_1", taskrouting.UnparkTaskParams{ResetSLA: taskrouting.Ptr(true)})
	if err != nil {
		panic(err)
	}
	t, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.Status, t.Status, t.WorkerID)
	// Output:
	// 1 parked
	// queued pending agent_2
}

// A task with an SLA shelf life and OnExpire "park" leaves matching when
// nobody takes it in time.
func ExampleTasksService_Parked() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{
		ID: "task_1", Tags: []string{"welsh"},
		SLA: taskrouting.Some(taskrouting.SLA{ExpireAfter: 10 * time.Minute, OnExpire: "park"}),
	})
	if err != nil {
		panic(err)
	}

	sb.clock.Advance(10 * time.Minute)
	parked, err := c.Tasks.Parked(ctx)
	if err != nil {
		panic(err)
	}
	for _, t := range parked.Tasks {
		fmt.Println(t.ID, t.Status)
	}
	// Output: task_1 parked
}

// A task with Schedule.NotBefore waits as scheduled and is never offered
// before its time.
func ExampleTasksService_Scheduled() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "billing")
	start := sb.clock.Now().Add(time.Hour)
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{
		ID: "task_1", Tags: []string{"billing"}, Schedule: &taskrouting.Schedule{NotBefore: start},
	})
	if err != nil {
		panic(err)
	}

	held, err := c.Tasks.Scheduled(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(held.Count, held.Tasks[0].Status)
	sb.clock.Advance(time.Hour)
	t, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Status, t.WorkerID)
	// Output:
	// 1 scheduled
	// pending agent_1
}
