package taskrouting_test

import (
	"context"
	"errors"
	"fmt"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

func ExampleWorkersService_Upsert() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()

	ref, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{
		ID:   "agent_1",
		Tags: []string{"english", "billing", "voice"},
		// Proficiency per tag or "prefix*" pattern; 0 would veto the tag.
		RoutingWeights: map[string]float64{"billing": 2, "lang-*": 1},
		MaxBacklogSize: taskrouting.Ptr(3),
		// A new worker is created unavailable unless told otherwise.
		Available: taskrouting.Ptr(true),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.ID)
	// Output:
	// agent_1
}

func ExampleWorkersService_Patch() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	ctx := context.Background()

	// Only the fields set are sent; the others keep their value.
	_, err := c.Workers.Patch(ctx, "agent_1", taskrouting.PatchWorkerParams{
		RoutingWeights: map[string]float64{"english": 100},
	})
	if err != nil {
		panic(err)
	}
	w, err := c.Workers.Get(ctx, "agent_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(w.Tags, w.RoutingWeights, w.Available)
	// Output:
	// [english] map[english:100] true
}

func ExampleWorkersService_Get() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	ctx := context.Background()

	w, err := c.Workers.Get(ctx, "agent_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(w.ID, w.Tags, "available:", w.Available, "offers held:", w.QueueDepth)
	fmt.Println("own backlog cap:", w.MaxBacklogSize != nil) // nil: the workspace default
	// Output:
	// agent_1 [english] available: true offers held: 1
	// own backlog cap: false
}

func ExampleWorkersService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_2", "english")
	sb.worker("agent_1", "french")
	ctx := context.Background()

	list, err := c.Workers.List(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(list.Count, list.Workers)
	// Output:
	// 2 [agent_1 agent_2]
}

func ExampleWorkersService_SetAvailability() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english") // offered to agent_1
	ctx := context.Background()

	// Going off shift; ReleaseBacklog puts the offers held back in the queue.
	a, err := c.Workers.SetAvailability(ctx, "agent_1", taskrouting.SetAvailabilityParams{
		Available: false, ReleaseBacklog: true,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(a.ID, a.Available, a.ReleasedTaskIDs)

	task, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Status)
	// Output:
	// agent_1 false [task_1]
	// queued
}

func ExampleWorkersService_Queue() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	sb.task("task_2", 0, "english")
	ctx := context.Background()

	q, err := c.Workers.Queue(ctx, "agent_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(q.WorkerID, q.TaskIDs)
	// Output:
	// agent_1 [task_1 task_2]
}

func ExampleWorkersService_Remove() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	ctx := context.Background()

	if err := c.Workers.Remove(ctx, "agent_1"); err != nil {
		panic(err)
	}
	list, err := c.Workers.List(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(list.Count)
	// Output:
	// 0
}

func ExampleWorkersService_SetIdentity() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	ctx := context.Background()

	// The worker then signs in with this PIN (WorkerClient.Login); the
	// server never echoes it.
	id, err := c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")})
	if err != nil {
		panic(err)
	}
	fmt.Println(id.WorkerID, id.Label, id.HasPIN)
	// Output:
	// agent_1 desk 4 true
}

func ExampleWorkersService_RemoveIdentity() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	if err := c.Workers.RemoveIdentity(ctx, "agent_1"); err != nil {
		panic(err)
	}
	// The worker stays routable, but its session is over.
	_, err := w.Me(ctx)
	fmt.Println(errors.Is(err, taskrouting.ErrUnauthorized))
	// Output:
	// true
}
