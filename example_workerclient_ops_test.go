package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

func ExampleWorkerClient_Login() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	// The workspace side creates the worker and gives it a PIN.
	sb.worker("agent_1", "english")
	if _, err := c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")}); err != nil {
		panic(err)
	}

	w, err := taskrouting.NewWorkerClient(sb.srv.URL())
	if err != nil {
		panic(err)
	}
	_, err = w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: sb.srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("0000")})
	fmt.Println("wrong PIN:", errors.Is(err, taskrouting.ErrInvalidCredentials))

	_, err = w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: sb.srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})
	if err != nil {
		panic(err)
	}
	fmt.Println("signed in as", w.WorkerID())
	// Output:
	// wrong PIN: true
	// signed in as agent_1
}

func ExampleWorkerClient_Logout() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	if err := w.Logout(ctx); err != nil {
		panic(err)
	}
	fmt.Println("signed in:", w.SignedIn())
	_, err := w.Me(ctx)
	fmt.Println(err)
	// Output:
	// signed in: false
	// taskrouting: client is not signed in
}

func ExampleWorkerClient_Me() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	me, err := w.Me(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(me.WorkerID, "available:", me.Available, "on break:", me.OnBreak)
	// Output:
	// agent_1 available: true on break: false
}

func ExampleWorkerClient_StayAvailable() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("bot_1", "triage")
	w := sb.signIn("bot_1")
	ctx := context.Background()

	// An unattended bot goes on shift with a liveness contract: silent for 5
	// minutes, the platform clocks it out.
	a, err := w.StayAvailable(ctx, 5*time.Minute)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.WorkerID, a.Available)
	sb.task("task_1", 0, "triage")
	task, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Status, task.WorkerID)

	_, err = w.StayAvailable(ctx, 30*time.Second) // below the platform's minute
	fmt.Println(errors.Is(err, taskrouting.ErrInvalidParams))
	// Output:
	// bot_1 true
	// pending bot_1
	// true
}

func ExampleWorkerClient_SetAvailability() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	a, err := w.SetAvailability(ctx, false) // off shift: no new offers
	if err != nil {
		panic(err)
	}
	fmt.Println(a.WorkerID, a.Available)
	sb.task("task_1", 0, "english")
	task, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Status)
	// Output:
	// agent_1 false
	// queued
}

func ExampleWorkerClient_Queue() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	q, err := w.Queue(ctx, "") // "" is the signed-in worker
	if err != nil {
		panic(err)
	}
	fmt.Println(q.WorkerID, q.TaskIDs)
	// Output:
	// agent_1 [task_1]
}

func ExampleWorkerClient_Task() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.worker("agent_2", "french")
	sb.task("task_1", 0, "english")
	sb.task("task_2", 0, "french")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	task, err := w.Task(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(task.ID, task.Status, task.Tags)
	// Another worker's task is not found.
	_, err = w.Task(ctx, "task_2")
	fmt.Println(errors.Is(err, taskrouting.ErrNotFound))
	// Output:
	// task_1 pending [english]
	// true
}

func ExampleWorkerClient_Accept() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	ref, err := w.Accept(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.ID, ref.Status)
	// Output:
	// task_1 accepted
}

func ExampleWorkerClient_Reject() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	ref, err := w.Reject(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.ID, ref.Status)
	// The task waits for another worker: agent_1 never gets it again.
	sb.worker("agent_2", "english")
	task, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Status, task.WorkerID)
	// Output:
	// task_1 queued
	// pending agent_2
}

func ExampleWorkerClient_Complete() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()
	if _, err := w.Accept(ctx, "task_1"); err != nil {
		panic(err)
	}

	ref, err := w.Complete(ctx, "task_1", map[string]any{"resolved": true, "minutes": 7})
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.ID, ref.Status)
	// Output:
	// task_1 completed
}

func ExampleWorkerClient_StartBreak() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	b, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
	if err != nil {
		panic(err)
	}
	fmt.Println(b.WorkerID, "on break since", b.Since.Format("15:04"))
	_, err = w.StartBreak(ctx, taskrouting.StartBreakParams{})
	fmt.Println("again:", errors.Is(err, taskrouting.ErrBreakAlreadyOpen))
	// Output:
	// agent_1 on break since 04:40
	// again: true
}

func ExampleWorkerClient_EndBreak() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()
	if _, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"}); err != nil {
		panic(err)
	}
	sb.clock.Advance(30 * time.Minute)

	b, err := w.EndBreak(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(b.WorkerID, "back at", b.EndedAt.Format("15:04"))
	// With no break open there is nothing to end.
	b, err = w.EndBreak(ctx)
	fmt.Println(b, err)
	// Output:
	// agent_1 back at 05:10
	// <nil> <nil>
}

// A desktop that polls its queue can act on the same offer twice, and the
// worker plane's POSTs carry no idempotency key to replay; the second
// plain Accept is a 409, the second EnsureAccepted is done.
func ExampleWorkerClient_EnsureAccepted() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	for poll := 1; poll <= 2; poll++ { // task_1 seen in the queue twice
		_, err := w.Accept(ctx, "task_1")
		fmt.Println("poll", poll, "Accept: invalid_state", errors.Is(err, taskrouting.ErrInvalidState))
	}
	ref, err := w.EnsureAccepted(ctx, "task_1")
	fmt.Println("EnsureAccepted:", ref.Status, err)
	// Output:
	// poll 1 Accept: invalid_state false
	// poll 2 Accept: invalid_state true
	// EnsureAccepted: accepted <nil>
}
