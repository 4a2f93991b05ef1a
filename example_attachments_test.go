package taskrouting_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// putBytes sends data to an upload target the way Upload does: its method,
// its headers as given, no API key.
func putBytes(up taskrouting.AttachmentUpload, data []byte) int {
	req, err := http.NewRequestWithContext(context.Background(), up.Method, up.URL, bytes.NewReader(data))
	if err != nil {
		panic(err)
	}
	for name, value := range up.Headers {
		req.Header[name] = []string{value}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// attach uploads a small ready file to a task.
func (sb *sandbox) attach(taskID, filename string, data []byte) *taskrouting.Attachment {
	a, err := sb.c.Tasks.Attachments.Upload(context.Background(), taskID, data,
		taskrouting.UploadParams{Filename: filename, ContentType: "text/plain"})
	if err != nil {
		panic(err)
	}
	return a
}

func ExampleAttachmentsService_Upload() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_8fk2", 50, "billing")

	a, err := c.Tasks.Attachments.Upload(context.Background(), "task_8fk2", []byte("hello!"),
		taskrouting.UploadParams{Filename: "receipt.txt", ContentType: "text/plain", WorkerID: "agent_1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Filename, a.SizeBytes, a.Status, a.Uploader.Type, a.Uploader.ID)
	// Output: receipt.txt 6 ready worker agent_1
}

func ExampleAttachmentsService_Create() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_8fk2", 50, "billing")
	ctx := context.Background()

	// Create, PUT and Confirm by hand: what Upload does in one call.
	created, err := c.Tasks.Attachments.Create(ctx, "task_8fk2", taskrouting.CreateAttachmentParams{
		Filename: "notes.txt", ContentType: "text/plain", SizeBytes: 5,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(created.Attachment.Status, created.Upload.Method, created.Upload.Headers)
	fmt.Println("storage:", putBytes(created.Upload, []byte("hello")))
	// Output:
	// pending PUT map[content-type:text/plain]
	// storage: 200
}

func ExampleAttachmentsService_Confirm() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_8fk2", 50, "billing")
	ctx := context.Background()
	created, err := c.Tasks.Attachments.Create(ctx, "task_8fk2", taskrouting.CreateAttachmentParams{
		Filename: "notes.txt", ContentType: "text/plain", SizeBytes: 5,
	})
	if err != nil {
		panic(err)
	}
	putBytes(created.Upload, []byte("hello"))

	a, err := c.Tasks.Attachments.Confirm(ctx, "task_8fk2", created.Attachment.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Status, a.ConfirmedAt.UnixMilli())
	// Output: ready 1763700000000
}

func ExampleAttachmentsService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_8fk2", 50, "billing")
	sb.attach("task_8fk2", "a.txt", []byte("one"))
	sb.attach("task_8fk2", "b.txt", []byte("three"))

	list, err := c.Tasks.Attachments.List(context.Background(), "task_8fk2")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range list {
		fmt.Println(a.Filename, a.SizeBytes, a.Status)
	}
	// Output:
	// a.txt 3 ready
	// b.txt 5 ready
}

func ExampleAttachmentsService_Download() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_8fk2", 50, "billing")
	a := sb.attach("task_8fk2", "a.txt", []byte("hello!"))

	dl, err := c.Tasks.Attachments.Download(context.Background(), "task_8fk2", a.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	// A presigned URL: no API key.
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, dl.URL, nil)
	if err != nil {
		panic(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(string(body), dl.ExpiresAt.Sub(sb.clock.Now()))
	// Output: hello! 15m0s
}

func ExampleAttachmentsService_Remove() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_8fk2", 50, "billing")
	a := sb.attach("task_8fk2", "a.txt", []byte("hello!"))
	ctx := context.Background()

	if err := c.Tasks.Attachments.Remove(ctx, "task_8fk2", a.ID); err != nil {
		fmt.Println(err)
		return
	}
	list, _ := c.Tasks.Attachments.List(ctx, "task_8fk2")
	fmt.Println(len(list))
	// Output: 0
}

func ExampleAttachmentsService_UploadReader() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_8fk2", 50, "billing")
	ctx := context.Background()

	// Any io.Reader with its size; a file (an io.Seeker) is rewound and
	// sent again if storage fails, any other reader is sent once.
	report := strings.NewReader("quarterly figures")
	a, err := c.Tasks.Attachments.UploadReader(ctx, "task_8fk2", report, report.Size(),
		taskrouting.UploadParams{Filename: "report.txt", ContentType: "text/plain"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Filename, a.SizeBytes, a.Status)
	// Output: report.txt 17 ready
}

func ExampleAttachmentsService_Open() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("task_8fk2", 50, "billing")
	a := sb.attach("task_8fk2", "notes.txt", []byte("call back at 3"))

	content, err := c.Tasks.Attachments.Open(context.Background(), "task_8fk2", a.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer content.Close()
	data, err := io.ReadAll(content)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(content.ContentType, content.Size, string(data))
	// Output: text/plain 14 call back at 3
}
