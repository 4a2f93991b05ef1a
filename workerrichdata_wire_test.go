package taskrouting

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// workerCommentWire is a comment by agent_1 as the platform sends it.
const workerCommentWire = `{"id":"cmt_1","taskId":"task_8fk2","author":{"type":"worker","id":"agent_1","label":null},"body":"Invoice is attached","createdAt":1750001000000}`

// serveWorkerRichData answers each worker-plane comment and attachment
// operation with the platform's shape and status (checked against
// api/openapi.json: worker.attachments.create answers 200, not 201), and
// plays a storage host under /storage/ that answers storageStatus.
func serveWorkerRichData(t *testing.T, storageStatus int) (*httptest.Server, *recorder) {
	t.Helper()
	c, err := wireContract()
	require.NoError(t, err)
	rec := &recorder{}
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := rec.record(r)
		if strings.HasPrefix(r.URL.Path, "/storage/") {
			w.WriteHeader(storageStatus)
			return
		}
		op, ok := c.Operation(seen.Method, seen.Path)
		require.True(t, ok, "%s %s", seen.Method, seen.Path)
		body := ""
		switch op {
		case "worker.comments":
			body = `{"comments":[` + workerCommentWire + `],"nextCursor":null,"hasMore":false}`
		case "worker.addComment":
			body = `{"comment":` + workerCommentWire + `}`
		case "worker.attachments.create":
			body = `{"attachment":` + attachmentWire + `,"upload":{"url":"` + srv.URL + `/storage/att_1?sig=abc","method":"PUT","headers":{"content-type":"application/pdf","x-amz-meta-task":"task_8fk2"},"expiresAt":1750004600000}}`
		case "worker.attachments.confirm":
			body = `{"attachment":` + readyAttachmentWire + `}`
		case "worker.attachments.list":
			body = `{"attachments":[` + attachmentWire + `]}`
		case "worker.attachments.download":
			body = `{"url":"https://storage.test/dl","expiresAt":1750004600000}`
		}
		assert.NoError(t, c.ValidateResponse(op, http.StatusOK, []byte(body)), "%s canned answer", op)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

// TestWorkerRichDataWire sends each worker-plane comment and attachment
// call with the session token and checks the request against
// api/openapi.json, the body sent and the decoded answer.
func TestWorkerRichDataWire(t *testing.T) {
	ctx := context.Background()
	workerComment := Comment{ID: "cmt_1", TaskID: "task_8fk2", Author: CommentAuthor{Type: "worker", ID: "agent_1"},
		Body: "Invoice is attached", CreatedAt: time.UnixMilli(1750001000000).UTC()}
	tests := []struct {
		op, method, path, query string
		call                    func(*WorkerClient) (any, error)
		sentBody                any // nil when the call sends none
		want                    any
	}{
		{"worker.comments", "GET", "/portal/tasks/task_8fk2/comments", "cursor=2&limit=5",
			func(w *WorkerClient) (any, error) {
				return w.CommentsPage(ctx, "task_8fk2", ListCommentsParams{Cursor: "2", Limit: 5})
			}, nil, &CommentPage{Comments: []Comment{workerComment}}},
		{"worker.addComment", "POST", "/portal/tasks/task_8fk2/comments", "",
			func(w *WorkerClient) (any, error) { return w.AddComment(ctx, "task_8fk2", "Invoice is attached") },
			map[string]any{"body": "Invoice is attached"}, &workerComment},
		{"worker.attachments.create", "POST", "/portal/tasks/task_8fk2/attachments", "",
			func(w *WorkerClient) (any, error) {
				created, err := w.Attachments.Create(ctx, "task_8fk2", WorkerCreateAttachmentParams{Filename: "receipt.pdf", ContentType: "application/pdf", SizeBytes: 6})
				if err != nil {
					return nil, err
				}
				return created.Attachment, nil
			}, map[string]any{"filename": "receipt.pdf", "contentType": "application/pdf", "sizeBytes": 6.0}, pendingAttachment},
		{"worker.attachments.confirm", "POST", "/portal/tasks/task_8fk2/attachments/att_1/confirm", "",
			func(w *WorkerClient) (any, error) { return w.Attachments.Confirm(ctx, "task_8fk2", "att_1") }, nil, &readyAttachment},
		{"worker.attachments.list", "GET", "/portal/tasks/task_8fk2/attachments", "",
			func(w *WorkerClient) (any, error) { return w.Attachments.List(ctx, "task_8fk2") }, nil, []Attachment{pendingAttachment}},
		{"worker.attachments.download", "GET", "/portal/tasks/task_8fk2/attachments/att_1/download", "",
			func(w *WorkerClient) (any, error) { return w.Attachments.Download(ctx, "task_8fk2", "att_1") }, nil,
			&AttachmentDownload{URL: "https://storage.test/dl", ExpiresAt: time.UnixMilli(1750004600000).UTC()}},
	}
	for _, tc := range tests {
		t.Run(tc.op, func(t *testing.T) {
			srv, rec := serveWorkerRichData(t, http.StatusOK)
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
			signIn(w)
			got, err := tc.call(w)
			require.NoError(t, err)
			reqs := rec.all()
			require.Len(t, reqs, 1)
			r := reqs[0]
			assert.Equal(t, tc.method+" "+tc.path, r.Method+" "+r.Path)
			assert.Equal(t, tc.query, r.Query.Encode())
			assert.Equal(t, "Bearer "+testWorkerToken, r.Header.Get("Authorization"))
			assert.Empty(t, r.Header.Get("Idempotency-Key"), "the worker plane takes no idempotency key")
			checkOperationReached(t, tc.op, checkRequestContract(t, r))
			if tc.sentBody != nil {
				diff(t, "body sent", tc.sentBody, jsonValue(t, r.Body))
			}
			diff(t, "answer", tc.want, got)
		})
	}
}

// TestWorkerRichDataEscapesIDs checks that an id holding a slash stays one
// path segment and cannot reach another operation.
func TestWorkerRichDataEscapesIDs(t *testing.T) {
	srv, rec := serveWorkerRichData(t, http.StatusOK)
	w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
	signIn(w)
	_, err := w.Attachments.List(context.Background(), "tenant/task")
	require.NoError(t, err)
	reqs := rec.all()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/portal/tasks/tenant%2Ftask/attachments", reqs[0].Path)
}

// TestWorkerUploadWire checks the worker's Upload composite: create with
// the size taken from the data and no worker id, PUT of the bytes with the
// presigned headers verbatim and no session token, then confirm.
func TestWorkerUploadWire(t *testing.T) {
	srv, rec := serveWorkerRichData(t, http.StatusOK)
	w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
	signIn(w)
	got, err := w.Attachments.Upload(context.Background(), "task_8fk2", []byte("hello!"),
		WorkerUploadParams{Filename: "receipt.pdf", ContentType: "application/pdf"})
	require.NoError(t, err)
	diff(t, "confirmed attachment", &readyAttachment, got)

	reqs := rec.all()
	require.Len(t, reqs, 3)
	var calls []string
	for _, r := range reqs {
		calls = append(calls, r.Method+" "+r.Path)
	}
	diff(t, "calls", []string{"POST /portal/tasks/task_8fk2/attachments", "PUT /storage/att_1", "POST /portal/tasks/task_8fk2/attachments/att_1/confirm"}, calls)
	checkRequestContract(t, reqs[0])
	diff(t, "create body", map[string]any{"filename": "receipt.pdf", "contentType": "application/pdf", "sizeBytes": 6.0}, jsonValue(t, reqs[0].Body))
	put := reqs[1]
	assert.Equal(t, "hello!", string(put.Body))
	assert.Equal(t, "task_8fk2", put.Header.Get("X-Amz-Meta-Task"))
	assert.Empty(t, put.Header.Get("Authorization"), "the session token must not reach storage")
	checkRequestContract(t, reqs[2])
	assert.Equal(t, "Bearer "+testWorkerToken, reqs[2].Header.Get("Authorization"))
}

// TestWorkerUploadStorageRefused checks that a storage refusal is an
// APIError with code upload_failed and the storage's status, and that
// confirm is then not called.
func TestWorkerUploadStorageRefused(t *testing.T) {
	srv, rec := serveWorkerRichData(t, http.StatusForbidden)
	w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
	signIn(w)
	_, err := w.Attachments.Upload(context.Background(), "task_8fk2", []byte("hello!"),
		WorkerUploadParams{Filename: "receipt.pdf", ContentType: "application/pdf"})
	var apiErr *APIError
	require.True(t, errors.As(err, &apiErr), "got %v", err)
	assert.Equal(t, CodeUploadFailed, apiErr.Code)
	assert.Equal(t, http.StatusForbidden, apiErr.StatusCode)
	assert.NotContains(t, err.Error(), "sig=abc")
	assert.Len(t, rec.all(), 2, "create and the refused PUT; no confirm")
}

// TestWorkerRichDataParamErrors checks the client refuses what the request
// schemas refuse, before sending anything.
func TestWorkerRichDataParamErrors(t *testing.T) {
	srv, rec := serveWorkerRichData(t, http.StatusOK)
	w := newTestWorkerClient(t, srv.URL+"/v1")
	signIn(w)
	ctx := context.Background()
	ok := WorkerCreateAttachmentParams{Filename: "a.pdf", ContentType: "application/pdf", SizeBytes: 1}
	with := func(edit func(*WorkerCreateAttachmentParams)) WorkerCreateAttachmentParams {
		p := ok
		edit(&p)
		return p
	}
	tests := []struct {
		name  string
		call  func() error
		param string
	}{
		{"empty comment", func() error { _, err := w.AddComment(ctx, "t1", ""); return err }, "body"},
		{"comment on no task", func() error { _, err := w.AddComment(ctx, "", "hi"); return err }, "taskID"},
		{"comments limit past 100", func() error {
			_, err := w.CommentsPage(ctx, "t1", ListCommentsParams{Limit: 101})
			return err
		}, "ListCommentsParams.Limit"},
		{"comments cursor too long", func() error {
			_, err := w.CommentsPage(ctx, "t1", ListCommentsParams{Cursor: strings.Repeat("c", 513)})
			return err
		}, "ListCommentsParams.Cursor"},
		{"zero size", func() error {
			_, err := w.Attachments.Create(ctx, "t1", with(func(p *WorkerCreateAttachmentParams) { p.SizeBytes = 0 }))
			return err
		}, "WorkerCreateAttachmentParams.SizeBytes"},
		{"bad content type", func() error {
			_, err := w.Attachments.Create(ctx, "t1", with(func(p *WorkerCreateAttachmentParams) { p.ContentType = "pdf" }))
			return err
		}, "WorkerCreateAttachmentParams.ContentType"},
		{"long filename", func() error {
			_, err := w.Attachments.Create(ctx, "t1", with(func(p *WorkerCreateAttachmentParams) { p.Filename = strings.Repeat("f", 256) }))
			return err
		}, "WorkerCreateAttachmentParams.Filename"},
		{"confirm without id", func() error { _, err := w.Attachments.Confirm(ctx, "t1", ""); return err }, "attachmentID"},
		{"download of a dot segment", func() error { _, err := w.Attachments.Download(ctx, "t1", ".."); return err }, "attachmentID"},
		{"list without task", func() error { _, err := w.Attachments.List(ctx, ""); return err }, "taskID"},
		{"upload of nothing", func() error {
			_, err := w.Attachments.Upload(ctx, "t1", nil, WorkerUploadParams{Filename: "a.txt", ContentType: "text/plain"})
			return err
		}, "WorkerCreateAttachmentParams.SizeBytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var pe *ParamError
			require.True(t, errors.As(err, &pe), "got %v", err)
			assert.Equal(t, tc.param, pe.Param)
		})
	}
	assert.Empty(t, rec.all(), "nothing reaches the server")
}

// TestWorkerRichDataNeedsSession checks that each call, the Upload
// composite included, is ErrNotSignedIn without a session and sends nothing.
func TestWorkerRichDataNeedsSession(t *testing.T) {
	srv, rec := serveWorkerRichData(t, http.StatusOK)
	w := newTestWorkerClient(t, srv.URL+"/v1")
	ctx := context.Background()
	calls := map[string]func() error{
		"CommentsPage": func() error { _, err := w.CommentsPage(ctx, "t1", ListCommentsParams{}); return err },
		"Comments": func() error {
			for _, err := range w.Comments(ctx, "t1", ListCommentsParams{}) {
				return err
			}
			return nil
		},
		"AddComment": func() error { _, err := w.AddComment(ctx, "t1", "hi"); return err },
		"Create": func() error {
			_, err := w.Attachments.Create(ctx, "t1", WorkerCreateAttachmentParams{Filename: "a", ContentType: "text/plain", SizeBytes: 1})
			return err
		},
		"Confirm":  func() error { _, err := w.Attachments.Confirm(ctx, "t1", "att_1"); return err },
		"List":     func() error { _, err := w.Attachments.List(ctx, "t1"); return err },
		"Download": func() error { _, err := w.Attachments.Download(ctx, "t1", "att_1"); return err },
		"Upload": func() error {
			_, err := w.Attachments.Upload(ctx, "t1", []byte("x"), WorkerUploadParams{Filename: "a", ContentType: "text/plain"})
			return err
		},
	}
	for name, call := range calls {
		assert.ErrorIs(t, call(), ErrNotSignedIn, name)
	}
	assert.Empty(t, rec.all(), "nothing reaches the server")
}
