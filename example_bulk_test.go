package taskrouting_test

import (
	"context"
	"errors"
	"fmt"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// A bulk create answers per entry: read each result, not only the call's error.
func ExampleTasksService_CreateMany() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("t_old", 0, "english")

	rep, err := c.Tasks.CreateMany(context.Background(), []taskrouting.CreateTaskParams{
		{ID: "t_new", Tags: []string{"english"}},
		{ID: "t_old", Tags: []string{"english"}},
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("created", rep.Created, "failed", rep.Failed)
	for _, r := range rep.Results {
		if r.OK() {
			fmt.Println(r.Index, r.ID, r.Status)
		} else {
			fmt.Println(r.Index, r.Error.Code)
		}
	}
	// Output:
	// created 1 failed 1
	// 0 t_new queued
	// 1 task_exists
}

// CreateAll takes any number of tasks and reports each input index.
func ExampleTasksService_CreateAll() {
	c, sb := newSandbox()
	defer sb.Close()

	tasks := make([]taskrouting.CreateTaskParams, 450)
	for i := range tasks {
		tasks[i] = taskrouting.CreateTaskParams{Tags: []string{"billing"}}
	}
	tasks[3].Tags = nil // refused before sending, reported at index 3

	rep, err := c.Tasks.CreateAll(context.Background(), tasks, taskrouting.BulkOptions{ChunkSize: 100, Concurrency: 2})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("created", rep.Created, "failed", rep.Failed, "calls", rep.Calls)
	fmt.Println("index 3 invalid:", errors.Is(rep.Entries[3].Err, taskrouting.ErrInvalidParams))
	// Output:
	// created 449 failed 1 calls 5
	// index 3 invalid: true
}
