package mockserver_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/internal/contract"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// sendRaw makes one call without the SDK (whose checks would stop bad input before it is
// sent) and holds a successful answer to api/openapi.json. It returns status and body.
func sendRaw(t *testing.T, srv *mockserver.Server, key, opID, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL()+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	c, err := contract.Default()
	require.NoError(t, err)
	assert.NoError(t, c.ValidateResponse(opID, resp.StatusCode, b), "%s answer %s", opID, b)
	return resp.StatusCode, string(b)
}

func TestTaskContextThroughClient(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"billing"}, Title: "Refund"})
	require.NoError(t, err)

	got, err := c.Tasks.Context.Get(ctx, "task_1")
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TaskContext{TaskID: "task_1", Title: "Refund", References: []taskrouting.TaskReference{}}, got,
		"the title given at creation is the context's; no context call yet, so no times")

	set, err := c.Tasks.Context.Set(ctx, "task_1", taskrouting.SetTaskContextParams{Description: "Call back",
		Context: map[string]any{"orderId": "o_1"}, References: []taskrouting.TaskReferenceParams{{URL: "https://crm.example/o_1", Label: "order"}}})
	require.NoError(t, err)
	want := &taskrouting.TaskContext{TaskID: "task_1", Description: "Call back", Context: map[string]any{"orderId": "o_1"},
		References: []taskrouting.TaskReference{{ID: "ref_1", URL: "https://crm.example/o_1", Label: "order"}}, CreatedAt: t0, UpdatedAt: t0}
	assert.Equal(t, want, set, "a full replace: the title not sent is gone")

	clk.Advance(time.Minute)
	set, err = c.Tasks.Context.Set(ctx, "task_1", taskrouting.SetTaskContextParams{Title: "Refund 2"})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TaskContext{TaskID: "task_1", Title: "Refund 2", References: []taskrouting.TaskReference{},
		CreatedAt: t0, UpdatedAt: t0.Add(time.Minute)}, set, "createdAt stays, updatedAt moves")
	got, err = c.Tasks.Context.Get(ctx, "task_1")
	require.NoError(t, err)
	assert.Equal(t, set, got)
	task, err := c.Tasks.Get(ctx, "task_1")
	require.NoError(t, err)
	assert.Equal(t, "Refund 2", task.Title, "the task reads the same data")

	require.NoError(t, c.Tasks.Context.Clear(ctx, "task_1"))
	got, err = c.Tasks.Context.Get(ctx, "task_1")
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TaskContext{TaskID: "task_1", References: []taskrouting.TaskReference{}}, got)
	task, err = c.Tasks.Get(ctx, "task_1")
	require.NoError(t, err)
	assert.Equal(t, []string{"billing"}, task.Tags, "clearing the context keeps the task")

	// The answers as sent validate against the file.
	key := srv.APIKey()
	sendRaw(t, srv, key, "tasks.context.set", "PUT", "/tasks/task_1/context", `{"title":"T","context":{"a":1},"references":[{"url":"u"}]}`)
	sendRaw(t, srv, key, "tasks.context.get", "GET", "/tasks/task_1/context", "")
	status, _ := sendRaw(t, srv, key, "tasks.context.clear", "DELETE", "/tasks/task_1/context", "")
	assert.Equal(t, http.StatusNoContent, status)
}

func TestTaskCommentsThroughClient(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"billing"}})
	require.NoError(t, err)

	first, err := c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: "Called", WorkerID: "w-1", AuthorLabel: "Ana"})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.Comment{ID: "cmt_1", TaskID: "task_1", Body: "Called", CreatedAt: t0,
		Author: taskrouting.CommentAuthor{Type: "worker", ID: "w-1", Label: "Ana"}}, first)
	clk.Advance(time.Second)
	for _, body := range []string{"second", "third"} {
		_, err := c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: body})
		require.NoError(t, err)
	}

	page, err := c.Tasks.Comments.ListPage(ctx, "task_1", taskrouting.ListCommentsParams{Limit: 2})
	require.NoError(t, err)
	assert.True(t, page.HasMore)
	assert.NotEmpty(t, page.NextCursor)
	require.Len(t, page.Comments, 2)
	assert.Equal(t, taskrouting.CommentAuthor{Type: "api"}, page.Comments[1].Author, "no worker named: the API caller's")
	assert.Equal(t, t0.Add(time.Second), page.Comments[1].CreatedAt)

	bodies := func() []string {
		var out []string
		for cm, err := range c.Tasks.Comments.List(ctx, "task_1", taskrouting.ListCommentsParams{Limit: 1}) {
			require.NoError(t, err)
			out = append(out, cm.Body)
		}
		return out
	}
	assert.Equal(t, []string{"Called", "second", "third"}, bodies(), "every page, oldest first")

	require.NoError(t, c.Tasks.Comments.Remove(ctx, "task_1", "cmt_2"))
	assert.Equal(t, []string{"Called", "third"}, bodies())
	err = c.Tasks.Comments.Remove(ctx, "task_1", "cmt_2")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound, "a removed comment is gone")

	// A retried add with the same key is answered from the first, not posted twice.
	again, err := c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: "once"}, taskrouting.WithIdempotencyKey("add-once"))
	require.NoError(t, err)
	replayed, err := c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: "once"}, taskrouting.WithIdempotencyKey("add-once"))
	require.NoError(t, err)
	assert.Equal(t, again, replayed)
	assert.Equal(t, []string{"Called", "third", "once"}, bodies())

	key := srv.APIKey()
	sendRaw(t, srv, key, "tasks.comments.add", "POST", "/tasks/task_1/comments", `{"body":"raw"}`)
	sendRaw(t, srv, key, "tasks.comments.list", "GET", "/tasks/task_1/comments?limit=1", "")
	sendRaw(t, srv, key, "tasks.comments.list", "GET", "/tasks/task_1/comments", "")
	status, _ := sendRaw(t, srv, key, "tasks.comments.remove", "DELETE", "/tasks/task_1/comments/cmt_1", "")
	assert.Equal(t, http.StatusNoContent, status)
}

// TestTaskRichDataUnknownTask: a task that does not exist, or that belongs to another
// workspace, is 404 on every context and comment call.
func TestTaskRichDataUnknownTask(t *testing.T) {
	t.Parallel()
	const otherKey = "sk_test_second_workspace"
	srv := mockserver.Start(t, mockserver.WithExtraAPIKey(otherKey))
	ctx := context.Background()
	owner := newClient(t, srv, otherKey)
	_, err := owner.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "theirs", Tags: []string{"x"}})
	require.NoError(t, err)
	_, err = owner.Tasks.Comments.Add(ctx, "theirs", taskrouting.AddCommentParams{Body: "private"})
	require.NoError(t, err)
	c := newClient(t, srv, srv.APIKey())

	calls := map[string]func(taskID string) error{
		"tasks.context.get": func(id string) error { _, err := c.Tasks.Context.Get(ctx, id); return err },
		"tasks.context.set": func(id string) error {
			_, err := c.Tasks.Context.Set(ctx, id, taskrouting.SetTaskContextParams{Title: "x"})
			return err
		},
		"tasks.context.clear": func(id string) error { return c.Tasks.Context.Clear(ctx, id) },
		"tasks.comments.add": func(id string) error {
			_, err := c.Tasks.Comments.Add(ctx, id, taskrouting.AddCommentParams{Body: "x"})
			return err
		},
		"tasks.comments.list": func(id string) error {
			_, err := c.Tasks.Comments.ListPage(ctx, id, taskrouting.ListCommentsParams{})
			return err
		},
		"tasks.comments.remove": func(id string) error { return c.Tasks.Comments.Remove(ctx, id, "cmt_1") },
	}
	for op, call := range calls {
		for _, id := range []string{"nope", "theirs"} {
			t.Run(op+"/"+id, func(t *testing.T) {
				err := call(id)
				var ae *taskrouting.APIError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, http.StatusNotFound, ae.StatusCode)
				assert.ErrorIs(t, err, taskrouting.ErrNotFound)
			})
		}
	}
	got, err := owner.Tasks.Comments.ListPage(ctx, "theirs", taskrouting.ListCommentsParams{})
	require.NoError(t, err)
	require.Len(t, got.Comments, 1, "the other workspace's calls left its comments alone")
	gotCtx, err := owner.Tasks.Context.Get(ctx, "theirs")
	require.NoError(t, err)
	assert.Empty(t, gotCtx.Title)
}

// TestTaskRichDataBadInputKeepsState sends what the SDK would refuse: each is a 400
// envelope, and the task's context and comments read back as before.
func TestTaskRichDataBadInputKeepsState(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"x"}})
	require.NoError(t, err)
	_, err = c.Tasks.Context.Set(ctx, "task_1", taskrouting.SetTaskContextParams{Title: "kept", Context: map[string]any{"k": "v"}})
	require.NoError(t, err)
	_, err = c.Tasks.Comments.Add(ctx, "task_1", taskrouting.AddCommentParams{Body: "kept"})
	require.NoError(t, err)
	before, err := c.Tasks.Context.Get(ctx, "task_1")
	require.NoError(t, err)
	beforeComments, err := c.Tasks.Comments.ListPage(ctx, "task_1", taskrouting.ListCommentsParams{})
	require.NoError(t, err)

	tests := []struct {
		name, op, method, path, body, wantMessage string
	}{
		{"title too long", "tasks.context.set", "PUT", "/tasks/task_1/context", `{"title":"` + strings.Repeat("a", 301) + `"}`, "body/title"},
		{"unknown member", "tasks.context.set", "PUT", "/tasks/task_1/context", `{"title":"t","meta":{}}`, "additional propert"},
		{"reference without url", "tasks.context.set", "PUT", "/tasks/task_1/context", `{"references":[{"label":"x"}]}`, "url"},
		{"context not an object", "tasks.context.set", "PUT", "/tasks/task_1/context", `{"context":[1]}`, "body/context"},
		{"empty comment", "tasks.comments.add", "POST", "/tasks/task_1/comments", `{"body":""}`, "body/body"},
		{"comment without body", "tasks.comments.add", "POST", "/tasks/task_1/comments", `{"workerId":"w-1"}`, "body"},
		{"author label too long", "tasks.comments.add", "POST", "/tasks/task_1/comments", `{"body":"b","authorLabel":"` + strings.Repeat("a", 201) + `"}`, "body/authorLabel"},
		{"limit past 100", "tasks.comments.list", "GET", "/tasks/task_1/comments?limit=101", "", "limit"},
		{"limit zero", "tasks.comments.list", "GET", "/tasks/task_1/comments?limit=0", "", "limit"},
		{"unknown query", "tasks.comments.list", "GET", "/tasks/task_1/comments?sort=desc", "", "sort"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := sendRaw(t, srv, srv.APIKey(), tc.op, tc.method, tc.path, tc.body)
			assert.Equal(t, http.StatusBadRequest, status, body)
			assert.Contains(t, body, `"code":"validation_failed"`)
			assert.Contains(t, body, tc.wantMessage)
		})
	}
	after, err := c.Tasks.Context.Get(ctx, "task_1")
	require.NoError(t, err)
	assert.Equal(t, before, after)
	afterComments, err := c.Tasks.Comments.ListPage(ctx, "task_1", taskrouting.ListCommentsParams{})
	require.NoError(t, err)
	assert.Equal(t, beforeComments, afterComments)
}
