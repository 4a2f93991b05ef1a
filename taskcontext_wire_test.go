package taskrouting

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// richDataCases are the task context and comment calls on the wire: the
// request each sends (method, path, query, body) and how it decodes the
// platform's answer. Every request and answer is also held to
// api/openapi.json.
var richDataCases = []struct {
	name       string
	op         string
	call       func(ctx context.Context, c *Client) (any, error)
	wantMethod string
	wantPath   string
	wantQuery  string
	wantBody   string // "" for none
	status     int
	answer     string
	want       any
}{
	{"context get", "tasks.context.get", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Context.Get(ctx, "task_1")
	}, "GET", "/tasks/task_1/context", "", "", 200,
		`{"taskId":"task_1","title":"Refund","description":null,"context":{"orderId":"o_1"},
		"references":[{"id":"ref_1","url":"https://crm.example/o_1","label":"order","contentType":null}],
		"createdAt":1763700000000,"updatedAt":1763700060000}`,
		&TaskContext{TaskID: "task_1", Title: "Refund", Context: map[string]any{"orderId": "o_1"},
			References: []TaskReference{{ID: "ref_1", URL: "https://crm.example/o_1", Label: "order"}},
			CreatedAt:  t0, UpdatedAt: t0.Add(time.Minute)}},
	{"context get never set", "tasks.context.get", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Context.Get(ctx, "task_1")
	}, "GET", "/tasks/task_1/context", "", "", 200,
		`{"taskId":"task_1","title":null,"description":null,"context":null,"references":[],"createdAt":null,"updatedAt":null}`,
		&TaskContext{TaskID: "task_1", References: []TaskReference{}}},
	{"context set sends only what is set", "tasks.context.set", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Context.Set(ctx, "task 1", SetTaskContextParams{Description: "Call the customer",
			References: []TaskReferenceParams{{URL: "https://crm.example/i.pdf", ContentType: "application/pdf"}}})
	}, "PUT", "/tasks/task%201/context", "",
		`{"description":"Call the customer","references":[{"url":"https://crm.example/i.pdf","contentType":"application/pdf"}]}`, 200,
		`{"taskId":"task 1","description":"Call the customer","references":[{"id":"ref_1","url":"https://crm.example/i.pdf","contentType":"application/pdf"}],
		"createdAt":1763700000000,"updatedAt":1763700000000}`,
		&TaskContext{TaskID: "task 1", Description: "Call the customer", CreatedAt: t0, UpdatedAt: t0,
			References: []TaskReference{{ID: "ref_1", URL: "https://crm.example/i.pdf", ContentType: "application/pdf"}}}},
	{"context clear", "tasks.context.clear", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Tasks.Context.Clear(ctx, "task_1")
	}, "DELETE", "/tasks/task_1/context", "", "", 204, "", nil},
	{"comments add as a worker", "tasks.comments.add", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Comments.Add(ctx, "task_1", AddCommentParams{Body: "Customer called back", WorkerID: "w-1", AuthorLabel: "Ana"})
	}, "POST", "/tasks/task_1/comments", "", `{"body":"Customer called back","workerId":"w-1","authorLabel":"Ana"}`, 201,
		`{"comment":{"id":"cmt_1","taskId":"task_1","author":{"type":"worker","id":"w-1","label":"Ana"},"body":"Customer called back","createdAt":1763700000000}}`,
		&Comment{ID: "cmt_1", TaskID: "task_1", Author: CommentAuthor{Type: "worker", ID: "w-1", Label: "Ana"}, Body: "Customer called back", CreatedAt: t0}},
	{"comments list page", "tasks.comments.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Comments.ListPage(ctx, "task_1", ListCommentsParams{Cursor: "2", Limit: 2})
	}, "GET", "/tasks/task_1/comments", "cursor=2&limit=2", "", 200,
		`{"comments":[{"id":"cmt_3","taskId":"task_1","author":{"type":"api","id":null,"label":null},"body":"x","createdAt":1763700000000}],
		"nextCursor":null,"hasMore":false}`,
		&CommentPage{Comments: []Comment{{ID: "cmt_3", TaskID: "task_1", Author: CommentAuthor{Type: "api"}, Body: "x", CreatedAt: t0}}}},
	{"comments remove", "tasks.comments.remove", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Tasks.Comments.Remove(ctx, "task_1", "cmt_1")
	}, "DELETE", "/tasks/task_1/comments/cmt_1", "", "", 204, "", nil},
}

func TestTaskRichDataWire(t *testing.T) {
	for _, tc := range richDataCases {
		runWireCase(t, wireCase{tc.name, tc.op, tc.call, tc.wantMethod, tc.wantPath, tc.wantQuery, tc.wantBody, tc.status, tc.answer, tc.want})
	}
}

// TestTaskRichDataRefusedBeforeSending checks that input the platform
// would refuse is a *ParamError and nothing reaches the server.
func TestTaskRichDataRefusedBeforeSending(t *testing.T) {
	long := func(n int) string { return string(make([]byte, n)) }
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client) error
		param string
	}{
		{"context get without a task", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Context.Get(ctx, "")
			return err
		}, "taskID"},
		{"context title too long", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Context.Set(ctx, "t", SetTaskContextParams{Title: long(301)})
			return err
		}, "SetTaskContextParams.Title"},
		{"context reference without url", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Context.Set(ctx, "t", SetTaskContextParams{References: []TaskReferenceParams{{Label: "x"}}})
			return err
		}, "SetTaskContextParams.References[0].URL"},
		{"context clear dot segment", func(ctx context.Context, c *Client) error {
			return c.Tasks.Context.Clear(ctx, "..")
		}, "taskID"},
		{"comment without body", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Comments.Add(ctx, "t", AddCommentParams{})
			return err
		}, "AddCommentParams.Body"},
		{"comment author label too long", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Comments.Add(ctx, "t", AddCommentParams{Body: "b", AuthorLabel: long(201)})
			return err
		}, "AddCommentParams.AuthorLabel"},
		{"comments limit past 100", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Comments.ListPage(ctx, "t", ListCommentsParams{Limit: 101})
			return err
		}, "ListCommentsParams.Limit"},
		{"comment remove without id", func(ctx context.Context, c *Client) error {
			return c.Tasks.Comments.Remove(ctx, "t", "")
		}, "commentID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, http.StatusOK, nil, "{}")
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			err := tc.call(context.Background(), c)
			var pe *ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.param, pe.Param)
			assert.Empty(t, rec.all(), "a refused call reached the server")
		})
	}
}
