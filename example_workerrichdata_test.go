package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// workerWithTask is a sandbox where task_1 is offered to agent_1, signed in
// as w, and task_2 to agent_2.
func workerWithTask() (*taskrouting.Client, *sandbox, *taskrouting.WorkerClient) {
	c, sb := newSandbox()
	sb.worker("agent_1", "english")
	sb.worker("agent_2", "french")
	sb.task("task_1", 0, "english")
	sb.task("task_2", 0, "french")
	return c, sb, sb.signIn("agent_1")
}

func ExampleWorkerClient_AddComment() {
	c, sb, w := workerWithTask()
	defer sb.Close()
	ctx := context.Background()

	cm, err := w.AddComment(ctx, "task_1", "Customer called back; waiting on their invoice.")
	if err != nil {
		panic(err)
	}
	fmt.Println(cm.Author.Type, cm.Author.ID)
	// The workspace reads the same thread.
	for cm, err := range c.Tasks.Comments.List(ctx, "task_1", taskrouting.ListCommentsParams{}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(cm.Author.ID+":", cm.Body)
	}
	// Another worker's task is not found.
	_, err = w.AddComment(ctx, "task_2", "hello")
	fmt.Println(errors.Is(err, taskrouting.ErrNotFound))
	// Output:
	// worker agent_1
	// agent_1: Customer called back; waiting on their invoice.
	// true
}

func ExampleWorkerClient_Comments() {
	c, sb, w := workerWithTask()
	defer sb.Close()
	ctx := context.Background()
	for _, body := range []string{"Please call before noon.", "Invoice attached."} {
		if _, err := c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: body, AuthorLabel: "ops"}); err != nil {
			panic(err)
		}
	}

	// Pages of one comment, fetched as the loop goes.
	for cm, err := range w.Comments(ctx, "task_1", taskrouting.ListCommentsParams{Limit: 1}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(cm.Author.Label+":", cm.Body)
	}
	// Output:
	// ops: Please call before noon.
	// ops: Invoice attached.
}

func ExampleWorkerClient_CommentsPage() {
	_, sb, w := workerWithTask()
	defer sb.Close()
	ctx := context.Background()
	if _, err := w.AddComment(ctx, "task_1", "started"); err != nil {
		panic(err)
	}

	page, err := w.CommentsPage(ctx, "task_1", taskrouting.ListCommentsParams{Limit: 10})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(page.Comments), page.HasMore, page.Comments[0].Body)
	// Output:
	// 1 false started
}

func ExampleWorkerAttachmentsService_Upload() {
	c, sb, w := workerWithTask()
	defer sb.Close()
	ctx := context.Background()

	a, err := w.Attachments.Upload(ctx, "task_1", []byte("signed form"),
		taskrouting.WorkerUploadParams{Filename: "form.txt", ContentType: "text/plain"})
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Filename, a.Status, a.Uploader.Type, a.Uploader.ID)
	// The workspace sees the worker's file.
	list, err := c.Tasks.Attachments.List(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(list), list[0].Uploader.ID)
	// Output:
	// form.txt ready worker agent_1
	// 1 agent_1
}

func ExampleWorkerAttachmentsService_Create() {
	_, sb, w := workerWithTask()
	defer sb.Close()
	ctx := context.Background()
	data := []byte("photo bytes")

	created, err := w.Attachments.Create(ctx, "task_1", taskrouting.WorkerCreateAttachmentParams{
		Filename: "meter.jpg", ContentType: "image/jpeg", SizeBytes: int64(len(data)),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(created.Attachment.Status)
	fmt.Println("storage:", putBytes(created.Upload, data))
	a, err := w.Attachments.Confirm(ctx, "task_1", created.Attachment.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Status)
	// Output:
	// pending
	// storage: 200
	// ready
}

func ExampleWorkerAttachmentsService_Confirm() {
	_, sb, w := workerWithTask()
	defer sb.Close()
	ctx := context.Background()
	created, err := w.Attachments.Create(ctx, "task_1", taskrouting.WorkerCreateAttachmentParams{
		Filename: "notes.txt", ContentType: "text/plain", SizeBytes: 5,
	})
	if err != nil {
		panic(err)
	}

	// Before storage holds the bytes there is nothing to confirm.
	_, err = w.Attachments.Confirm(ctx, "task_1", created.Attachment.ID)
	fmt.Println(errors.Is(err, taskrouting.ErrInvalidState))
	// Output:
	// true
}

func ExampleWorkerAttachmentsService_List() {
	_, sb, w := workerWithTask()
	defer sb.Close()
	sb.attach("task_1", "brief.txt", []byte("read me"))

	list, err := w.Attachments.List(context.Background(), "task_1")
	if err != nil {
		panic(err)
	}
	for _, a := range list {
		fmt.Println(a.Filename, a.Status, a.Uploader.Type)
	}
	// Output:
	// brief.txt ready api
}

func ExampleWorkerAttachmentsService_Download() {
	_, sb, w := workerWithTask()
	defer sb.Close()
	a := sb.attach("task_1", "brief.txt", []byte("read me"))

	dl, err := w.Attachments.Download(context.Background(), "task_1", a.ID)
	if err != nil {
		panic(err)
	}
	resp, err := http.Get(dl.URL)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(string(body))
	// Output:
	// read me
}
