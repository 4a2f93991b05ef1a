package taskrouting_test

import (
	"context"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// These examples run against the offline mock server on a
// loopback port, with its clock stopped at 2025-11-21 04:40 UTC so that
// every id and time they print is the same on every run. Real code points
// the client at the API root with a real key instead:
//
//	c, err := taskrouting.NewClient("https://api.example.com/v1", os.Getenv("TASKROUTING_API_KEY"))

// sandboxStart is the mock server's clock when a sandbox starts.
const sandboxStart = 1763700000000 // Unix ms

// sandbox is the offline stand-in for the service that the examples share.
type sandbox struct {
	srv   *mockserver.Server
	clock *mockserver.ManualClock
	c     *taskrouting.Client
}

// newSandbox starts a mock server and returns a client for it. The caller
// closes the sandbox.
func newSandbox(opts ...mockserver.Option) (*taskrouting.Client, *sandbox) {
	clk := mockserver.NewManualClock(time.UnixMilli(sandboxStart))
	srv, err := mockserver.New(append([]mockserver.Option{mockserver.WithClock(clk)}, opts...)...)
	if err != nil {
		panic(err)
	}
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		panic(err)
	}
	return c, &sandbox{srv: srv, clock: clk, c: c}
}

func (sb *sandbox) Close() { sb.srv.Close() }

// worker upserts an available worker carrying tags.
func (sb *sandbox) worker(id string, tags ...string) {
	_, err := sb.c.Workers.Upsert(context.Background(), taskrouting.UpsertWorkerParams{
		ID: id, Tags: tags, Available: taskrouting.Ptr(true),
	})
	if err != nil {
		panic(err)
	}
}

// task creates a task, which the mock server matches before answering.
func (sb *sandbox) task(id string, priority float64, tags ...string) {
	_, err := sb.c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{
		ID: id, Priority: priority, Tags: tags,
	})
	if err != nil {
		panic(err)
	}
}

// signIn gives a worker a PIN and signs it in on the worker plane.
func (sb *sandbox) signIn(workerID string) *taskrouting.WorkerClient {
	ctx := context.Background()
	const pin = "4921"
	if _, err := sb.c.Workers.SetIdentity(ctx, workerID, taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret(pin)}); err != nil {
		panic(err)
	}
	w, err := taskrouting.NewWorkerClient(sb.srv.URL())
	if err != nil {
		panic(err)
	}
	_, err = w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: sb.srv.WorkspaceID(), WorkerID: workerID, PIN: taskrouting.NewSecret(pin)})
	if err != nil {
		panic(err)
	}
	return w
}

func ExampleTasksService_Create() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english", "billing")
	ctx := context.Background()

	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{
		ID:       "task_1", // optional: without it the server makes one
		Tags:     []string{"english", "billing"},
		Priority: 90,
		Meta:     map[string]any{"ticket": "T-1042"},
		// Offer for at most two minutes, then to someone else.
		Escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: 2 * time.Minute, OnNoResponse: "allow"}),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.ID, ref.Status)

	// Matching has already run: a read right after the create sees the offer.
	task, err := c.Tasks.Get(ctx, ref.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Status, task.WorkerID)
	// Output:
	// task_1 queued
	// pending agent_1
}

func ExampleTasksService_Get() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 50, "english")
	ctx := context.Background()

	task, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(task.ID, task.Tags, task.Priority, task.Status, task.WorkerID)
	fmt.Println("created", task.CreatedAt.Format(time.RFC3339))
	// Output:
	// task_1 [english] 50 pending agent_1
	// created 2025-11-21T04:40:00Z
}

func ExampleTasksService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	for i := range 5 {
		sb.task(fmt.Sprintf("task_%d", i+1), float64(10*i), "spanish") // nobody speaks spanish yet
	}
	ctx := context.Background()

	// List follows the cursors; Limit is the page size, not a total.
	for task, err := range c.Tasks.List(ctx, taskrouting.ListTasksParams{Status: taskrouting.TaskStatusQueued, Limit: 2}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(task.ID, task.Priority)
	}
	// Output:
	// task_1 0
	// task_2 10
	// task_3 20
	// task_4 30
	// task_5 40
}

func ExampleTasksService_ListPage() {
	c, sb := newSandbox()
	defer sb.Close()
	for i := range 3 {
		sb.task(fmt.Sprintf("task_%d", i+1), 0, "spanish")
	}
	ctx := context.Background()

	params := taskrouting.ListTasksParams{Status: taskrouting.TaskStatusAll, Limit: 2}
	for {
		page, err := c.Tasks.ListPage(ctx, params)
		if err != nil {
			panic(err)
		}
		fmt.Println(len(page.Tasks), "tasks, more:", page.HasMore)
		if !page.HasMore {
			break
		}
		params.Cursor = page.NextCursor
	}
	// Output:
	// 2 tasks, more: true
	// 1 tasks, more: false
}

func ExampleTasksService_Cancel() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")
	ctx := context.Background()

	if err := c.Tasks.Cancel(ctx, "task_1"); err != nil {
		panic(err)
	}
	task, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Status)
	for _, ev := range sb.srv.Events() {
		fmt.Println(ev.Kind)
	}
	// Output:
	// cancelled
	// task.matched
	// task.cancelled
}

func ExampleTasksService_Assign() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.worker("agent_2", "english")
	sb.task("task_1", 0, "english") // the matcher offers it to agent_1
	ctx := context.Background()

	// Take the offer away and give it to agent_2.
	a, err := c.Tasks.Assign(ctx, "task_1", taskrouting.AssignTaskParams{WorkerID: "agent_2"})
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Status, a.WorkerID, "was", a.PreviousWorkerID)
	// Output:
	// pending agent_2 was agent_1
}

func ExampleTasksService_SetPriority() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_1", 10, "french")
	ctx := context.Background()

	p, err := c.Tasks.SetPriority(ctx, "task_1", 95)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.ID, p.Priority)
	// Output:
	// task_1 95
}

func ExampleTasksService_SuggestWorkers() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english", "billing")
	sb.worker("agent_2", "english", "billing")
	ctx := context.Background()
	_, err := c.Workers.Patch(ctx, "agent_2", taskrouting.PatchWorkerParams{
		RoutingWeights: map[string]float64{"billing": 3},
	})
	if err != nil {
		panic(err)
	}

	// A dry run: nothing is created and no one is offered anything.
	s, err := c.Tasks.SuggestWorkers(ctx, taskrouting.SuggestWorkersParams{
		Tags:          []string{"english", "billing"},
		VetoedWorkers: []string{"agent_1"},
	})
	if err != nil {
		panic(err)
	}
	for _, w := range s.Workers {
		kinds := []string{}
		for _, r := range w.Reasons {
			kinds = append(kinds, r.Kind)
		}
		fmt.Println(w.WorkerID, w.Eligible, w.Score, kinds)
	}
	// Output:
	// agent_2 true 3 [tagWeight]
	// agent_1 false 1 [vetoed tagWeight tagWeight]
}
