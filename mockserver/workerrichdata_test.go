package mockserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// portalSetup is a server on a manual clock whose task_1 is offered to agent_1 and task_2 to
// agent_2, with the workspace's client and agent_1 signed in as w.
func portalSetup(t *testing.T, opts ...mockserver.Option) (*mockserver.Server, *taskrouting.Client, *taskrouting.WorkerClient) {
	t.Helper()
	clk := mockserver.NewManualClock(time.UnixMilli(1763700000000))
	srv := mockserver.Start(t, append([]mockserver.Option{mockserver.WithClock(clk)}, opts...)...)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	for _, w := range []struct{ id, tag string }{{"agent_1", "english"}, {"agent_2", "french"}} {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: w.id, Tags: []string{w.tag}, Available: taskrouting.Ptr(true)})
		require.NoError(t, err)
	}
	for _, task := range []struct{ id, tag, worker string }{{"task_1", "english", "agent_1"}, {"task_2", "french", "agent_2"}} {
		_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: task.id, Tags: []string{task.tag}})
		require.NoError(t, err)
		got, err := c.Tasks.Get(ctx, task.id)
		require.NoError(t, err)
		require.Equal(t, task.worker, got.WorkerID, "%s is offered", task.id)
	}
	_, err := c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)
	w, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	require.NoError(t, sessionErr(w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})))
	return srv, c, w
}

// TestWorkerCommentsShareTheThread checks that the worker plane reads and writes the
// workspace plane's thread: the worker's comment is listed by tasks.comments.list with
// author type worker and the session's worker id, the workspace's comments reach the worker,
// and the worker's paging walks the whole thread.
func TestWorkerCommentsShareTheThread(t *testing.T) {
	t.Parallel()
	_, c, w := portalSetup(t)
	ctx := context.Background()
	_, err := c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: "call before noon", AuthorLabel: "ops"})
	require.NoError(t, err)
	mine, err := w.AddComment(ctx, "task_1", "called, no answer")
	require.NoError(t, err)
	assert.Equal(t, taskrouting.CommentAuthor{Type: "worker", ID: "agent_1", Label: "desk 4"}, mine.Author, "labelled by the worker's identity")
	assert.Equal(t, time.UnixMilli(1763700000000).UTC(), mine.CreatedAt)

	type line struct{ Type, ID, Label, Body string }
	want := []line{{"api", "", "ops", "call before noon"}, {"worker", "agent_1", "desk 4", "called, no answer"}}
	read := func(seq func(func(taskrouting.Comment, error) bool)) []line {
		var got []line
		for cm, err := range seq {
			require.NoError(t, err)
			got = append(got, line{cm.Author.Type, cm.Author.ID, cm.Author.Label, cm.Body})
		}
		return got
	}
	assert.Equal(t, want, read(c.Tasks.Comments.List(ctx, "task_1", taskrouting.ListCommentsParams{})), "the workspace reads the worker's comment")
	assert.Equal(t, want, read(w.Comments(ctx, "task_1", taskrouting.ListCommentsParams{Limit: 1})), "the worker pages the whole thread")

	page, err := w.CommentsPage(ctx, "task_1", taskrouting.ListCommentsParams{Limit: 1})
	require.NoError(t, err)
	assert.True(t, page.HasMore)
	assert.Equal(t, "1", page.NextCursor)
}

// TestWorkerAttachmentsShareTheFiles checks the worker's upload end to end on the mock's
// storage: create answers 200 (not the workspace plane's 201), the session's worker is the
// uploader, the workspace lists the same record, and a file the workspace added is listed
// and downloadable by the worker.
func TestWorkerAttachmentsShareTheFiles(t *testing.T) {
	t.Parallel()
	_, c, w := portalSetup(t)
	ctx := context.Background()
	var resp taskrouting.Response
	created, err := w.Attachments.Create(ctx, "task_1", taskrouting.WorkerCreateAttachmentParams{Filename: "a.txt", ContentType: "text/plain", SizeBytes: 2},
		taskrouting.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, taskrouting.AttachmentUploader{Type: "worker", ID: "agent_1"}, created.Attachment.Uploader)

	mine, err := w.Attachments.Upload(ctx, "task_1", []byte("report"), taskrouting.WorkerUploadParams{Filename: "report.txt", ContentType: "text/plain"})
	require.NoError(t, err)
	assert.Equal(t, taskrouting.AttachmentReady, mine.Status)
	assert.Equal(t, taskrouting.AttachmentUploader{Type: "worker", ID: "agent_1"}, mine.Uploader)

	theirs, err := c.Tasks.Attachments.Upload(ctx, "task_1", []byte("brief"), taskrouting.UploadParams{Filename: "brief.txt", ContentType: "text/plain"})
	require.NoError(t, err)

	fromWorkspace, err := c.Tasks.Attachments.List(ctx, "task_1")
	require.NoError(t, err)
	fromWorker, err := w.Attachments.List(ctx, "task_1")
	require.NoError(t, err)
	require.Len(t, fromWorker, 3)
	assert.Equal(t, fromWorkspace, fromWorker, "one store, two planes")
	assert.Equal(t, *mine, fromWorker[1])

	dl, err := w.Attachments.Download(ctx, "task_1", theirs.ID)
	require.NoError(t, err)
	status, body := storageDo(t, http.MethodGet, dl.URL, "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "brief", string(body))
}

// TestWorkerRichDataReach checks that every worker-plane comment and attachment call is 404
// on another worker's task, an unknown task and another workspace's task, and still
// reaches the worker's task once accepted and once completed.
func TestWorkerRichDataReach(t *testing.T) {
	t.Parallel()
	const keyB = "sk_test_second_workspace"
	srv, c, w := portalSetup(t, mockserver.WithExtraAPIKey(keyB))
	ctx := context.Background()
	other := newClient(t, srv, keyB)
	_, err := other.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_b", Tags: []string{"english"}})
	require.NoError(t, err)
	theirs, err := c.Tasks.Attachments.Upload(ctx, "task_2", []byte("x"), taskrouting.UploadParams{Filename: "x.txt", ContentType: "text/plain"})
	require.NoError(t, err)

	calls := map[string]func(taskID string) error{
		"worker.comments":   func(id string) error { _, err := w.CommentsPage(ctx, id, taskrouting.ListCommentsParams{}); return err },
		"worker.addComment": func(id string) error { _, err := w.AddComment(ctx, id, "hi"); return err },
		"worker.attachments.create": func(id string) error {
			_, err := w.Attachments.Create(ctx, id, taskrouting.WorkerCreateAttachmentParams{Filename: "a", ContentType: "text/plain", SizeBytes: 1})
			return err
		},
		"worker.attachments.list":     func(id string) error { _, err := w.Attachments.List(ctx, id); return err },
		"worker.attachments.confirm":  func(id string) error { _, err := w.Attachments.Confirm(ctx, id, theirs.ID); return err },
		"worker.attachments.download": func(id string) error { _, err := w.Attachments.Download(ctx, id, theirs.ID); return err },
	}
	for op, call := range calls {
		for _, taskID := range []string{"task_2", "task_nope", "task_b"} {
			var apiErr *taskrouting.APIError
			require.ErrorAs(t, call(taskID), &apiErr, "%s on %s", op, taskID)
			assert.Equal(t, http.StatusNotFound, apiErr.StatusCode, "%s on %s", op, taskID)
			assert.Equal(t, "not_found", apiErr.Code, "%s on %s", op, taskID)
		}
	}
	page, err := c.Tasks.Comments.ListPage(ctx, "task_2", taskrouting.ListCommentsParams{})
	require.NoError(t, err)
	assert.Empty(t, page.Comments, "refused calls added nothing to another worker's task")
	list, err := c.Tasks.Attachments.List(ctx, "task_2")
	require.NoError(t, err)
	assert.Equal(t, []taskrouting.Attachment{*theirs}, list)

	_, err = w.Accept(ctx, "task_1")
	require.NoError(t, err)
	_, err = w.AddComment(ctx, "task_1", "on it")
	assert.NoError(t, err, "an accepted task stays reachable")
	_, err = w.Complete(ctx, "task_1", nil)
	require.NoError(t, err)
	page, err = w.CommentsPage(ctx, "task_1", taskrouting.ListCommentsParams{})
	require.NoError(t, err, "a completed task stays reachable")
	assert.Len(t, page.Comments, 1)
}

// TestWorkerRichDataBadInput sends bodies the worker plane's schemas refuse (a worker id to
// spoof the author or uploader among them) and checks each is a 400 validation_failed that
// leaves the thread and the files unchanged.
func TestWorkerRichDataBadInput(t *testing.T) {
	t.Parallel()
	srv, c, _ := portalSetup(t)
	ctx := context.Background()
	token := portalToken(t, srv)
	tests := []struct{ path, body string }{
		{"/portal/tasks/task_1/comments", `{"body":""}`},
		{"/portal/tasks/task_1/comments", `{"body":"hi","workerId":"agent_2"}`},
		{"/portal/tasks/task_1/comments", `{"body":"hi","authorLabel":"boss"}`},
		{"/portal/tasks/task_1/comments", `{}`},
		{"/portal/tasks/task_1/attachments", `{"filename":"a","contentType":"text/plain","sizeBytes":1,"workerId":"agent_2"}`},
		{"/portal/tasks/task_1/attachments", `{"filename":"a","contentType":"text/plain","sizeBytes":1.5}`},
		{"/portal/tasks/task_1/attachments", `{"filename":"a","contentType":"plain","sizeBytes":1}`},
		{"/portal/tasks/task_1/attachments", `{"filename":"a","contentType":"text/plain","sizeBytes":0}`},
	}
	for _, tc := range tests {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+tc.path, bytes.NewReader([]byte(tc.body)))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var env struct{ Error struct{ Code string } }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, tc.body)
		assert.Equal(t, "validation_failed", env.Error.Code, tc.body)
	}
	page, err := c.Tasks.Comments.ListPage(ctx, "task_1", taskrouting.ListCommentsParams{})
	require.NoError(t, err)
	assert.Empty(t, page.Comments)
	list, err := c.Tasks.Attachments.List(ctx, "task_1")
	require.NoError(t, err)
	assert.Empty(t, list)
}

// portalToken signs agent_1 in over plain HTTP and returns the session token, for requests
// the client would refuse to send.
func portalToken(t *testing.T, srv *mockserver.Server) string {
	t.Helper()
	body, err := json.Marshal(map[string]string{"workspaceId": srv.WorkspaceID(), "workerId": "agent_1", "pin": "4921"})
	require.NoError(t, err)
	resp, err := http.Post(srv.URL()+"/worker-auth/login", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var out struct{ Token string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.NotEmpty(t, out.Token)
	return out.Token
}
