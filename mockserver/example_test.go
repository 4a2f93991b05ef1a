package mockserver_test

import (
	"context"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// The whole loop offline: a worker, a task matched at once, accept and complete, then the
// events the server emitted.
func Example() {
	clk := mockserver.NewManualClock(time.UnixMilli(1763700000000))
	srv, err := mockserver.New(mockserver.WithClock(clk))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		panic(err)
	}
	_, _ = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}, Available: taskrouting.Ptr(true)})
	ref, _ := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"}})
	task, _ := c.Tasks.Get(ctx, ref.ID)
	fmt.Println(task.Status, task.WorkerID)
	_, _ = c.Decisions.Accept(ctx, ref.ID, task.WorkerID)
	_, _ = c.Decisions.Complete(ctx, ref.ID, task.WorkerID, map[string]any{"resolved": true})
	for _, ev := range srv.Events() {
		fmt.Println(ev.Kind, ev.ID)
	}
	// Output:
	// pending agent_1
	// task.matched evt_1
	// task.accepted evt_2
	// task.completed evt_3
}
