package taskrouting_test

import (
	"context"
	"errors"
	"fmt"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// A task's rich data is replaced as a whole; the server numbers the
// references.
func ExampleTaskContextService_Set() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_1", 0, "billing")
	ctx := context.Background()

	tc, err := c.Tasks.Context.Set(ctx, "task_1", taskrouting.SetTaskContextParams{
		Title:      "Refund request",
		Context:    map[string]any{"orderId": "o_123"},
		References: []taskrouting.TaskReferenceParams{{URL: "https://crm.example/o_123", Label: "order"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(tc.Title, tc.Context["orderId"], tc.References[0].ID, tc.References[0].Label)
	// Output: Refund request o_123 ref_1 order
}

// Get reads what Set or the task's creation stored.
func ExampleTaskContextService_Get() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"billing"}, Title: "Refund request"}); err != nil {
		panic(err)
	}

	tc, err := c.Tasks.Context.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %q\n", tc.TaskID, tc.Title)
	// Output: task_1 "Refund request"
}

// Clear removes the rich data and keeps the task.
func ExampleTaskContextService_Clear() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"billing"}, Title: "Refund request"}); err != nil {
		panic(err)
	}

	if err := c.Tasks.Context.Clear(ctx, "task_1"); err != nil {
		panic(err)
	}
	tc, err := c.Tasks.Context.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Printf("title %q\n", tc.Title)
	// Output: title ""
}

// A comment names the worker who wrote it, or is the API caller's.
func ExampleTaskCommentsService_Add() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_1", 0, "billing")
	ctx := context.Background()

	cm, err := c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: "Customer called back", WorkerID: "agent_1"})
	if err != nil {
		panic(err)
	}
	fmt.Println(cm.ID, cm.Author.Type, cm.Author.ID, cm.Body)
	// Output: cmt_1 worker agent_1 Customer called back
}

// List follows the pages for the loop, oldest comment first.
func ExampleTaskCommentsService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_1", 0, "billing")
	ctx := context.Background()
	for _, body := range []string{"first", "second", "third"} {
		if _, err := c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: body}); err != nil {
			panic(err)
		}
	}

	for cm, err := range c.Tasks.Comments.List(ctx, "task_1", taskrouting.ListCommentsParams{Limit: 2}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(cm.ID, cm.Body)
	}
	// Output:
	// cmt_1 first
	// cmt_2 second
	// cmt_3 third
}

// ListPage returns one page and the cursor of the next.
func ExampleTaskCommentsService_ListPage() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_1", 0, "billing")
	ctx := context.Background()
	for _, body := range []string{"first", "second"} {
		if _, err := c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: body}); err != nil {
			panic(err)
		}
	}

	page, err := c.Tasks.Comments.ListPage(ctx, "task_1", taskrouting.ListCommentsParams{Limit: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(page.Comments), page.Comments[0].Body, "more:", page.HasMore)
	// Output: 1 first more: true
}

// Remove deletes one comment; removing it again is ErrNotFound.
func ExampleTaskCommentsService_Remove() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_1", 0, "billing")
	ctx := context.Background()
	cm, err := c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: "typo"})
	if err != nil {
		panic(err)
	}

	fmt.Println(c.Tasks.Comments.Remove(ctx, "task_1", cm.ID))
	err = c.Tasks.Comments.Remove(ctx, "task_1", cm.ID)
	fmt.Println(errors.Is(err, taskrouting.ErrNotFound))
	// Output:
	// <nil>
	// true
}
