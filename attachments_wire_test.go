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

// attachmentWire is the platform's attachment record as the wire carries it.
const attachmentWire = `{"id":"att_1","taskId":"task_8fk2","filename":"receipt.pdf","contentType":"application/pdf","sizeBytes":6,"status":"pending","uploader":{"type":"api","id":null},"createdAt":1750001000000,"confirmedAt":null}`

const readyAttachmentWire = `{"id":"att_1","taskId":"task_8fk2","filename":"receipt.pdf","contentType":"application/pdf","sizeBytes":6,"status":"ready","uploader":{"type":"worker","id":"agent_1"},"createdAt":1750001000000,"confirmedAt":1750001000002}`

var (
	pendingAttachment = Attachment{ID: "att_1", TaskID: "task_8fk2", Filename: "receipt.pdf", ContentType: "application/pdf",
		SizeBytes: 6, Status: AttachmentPending, Uploader: AttachmentUploader{Type: "api"}, CreatedAt: time.UnixMilli(1750001000000).UTC()}
	readyAttachment = Attachment{ID: "att_1", TaskID: "task_8fk2", Filename: "receipt.pdf", ContentType: "application/pdf",
		SizeBytes: 6, Status: AttachmentReady, Uploader: AttachmentUploader{Type: "worker", ID: "agent_1"},
		CreatedAt: time.UnixMilli(1750001000000).UTC(), ConfirmedAt: time.UnixMilli(1750001000002).UTC()}
)

// serveAttachments answers each attachments operation with the platform's
// shape (checked against api/openapi.json) and plays a storage host under
// /storage/ that answers storageStatus.
func serveAttachments(t *testing.T, storageStatus int) (*httptest.Server, *recorder) {
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
		status, body := http.StatusOK, ""
		switch op {
		case "tasks.attachments.create":
			status, body = http.StatusCreated, `{"attachment":`+attachmentWire+`,"upload":{"url":"`+srv.URL+`/storage/att_1?sig=abc","method":"PUT","headers":{"content-type":"application/pdf","x-amz-meta-task":"task_8fk2"},"expiresAt":1750004600000}}`
		case "tasks.attachments.confirm":
			body = `{"attachment":` + readyAttachmentWire + `}`
		case "tasks.attachments.list":
			body = `{"attachments":[` + attachmentWire + `]}`
		case "tasks.attachments.download":
			body = `{"url":"https://storage.test/dl","expiresAt":1750004600000}`
		case "tasks.attachments.remove":
			status = http.StatusNoContent
		}
		assert.NoError(t, c.ValidateResponse(op, status, []byte(body)), "%s canned answer", op)
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

// TestAttachmentsWire sends each attachments operation and checks the
// request against api/openapi.json and the decoded answer.
func TestAttachmentsWire(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		op, method, path string
		call             func(*AttachmentsService) (any, error)
		want             any
	}{
		{"tasks.attachments.create", "POST", "/tasks/task_8fk2/attachments",
			func(s *AttachmentsService) (any, error) {
				return s.Create(ctx, "task_8fk2", CreateAttachmentParams{Filename: "receipt.pdf", ContentType: "application/pdf", SizeBytes: 6})
			}, nil},
		{"tasks.attachments.confirm", "POST", "/tasks/task_8fk2/attachments/att_1/confirm",
			func(s *AttachmentsService) (any, error) { return s.Confirm(ctx, "task_8fk2", "att_1") }, &readyAttachment},
		{"tasks.attachments.list", "GET", "/tasks/task_8fk2/attachments",
			func(s *AttachmentsService) (any, error) { return s.List(ctx, "task_8fk2") }, []Attachment{pendingAttachment}},
		{"tasks.attachments.download", "GET", "/tasks/task_8fk2/attachments/att_1/download",
			func(s *AttachmentsService) (any, error) { return s.Download(ctx, "task_8fk2", "att_1") },
			&AttachmentDownload{URL: "https://storage.test/dl", ExpiresAt: time.UnixMilli(1750004600000).UTC()}},
		{"tasks.attachments.remove", "DELETE", "/tasks/task_8fk2/attachments/att_1",
			func(s *AttachmentsService) (any, error) { return nil, s.Remove(ctx, "task_8fk2", "att_1") }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.op, func(t *testing.T) {
			srv, rec := serveAttachments(t, http.StatusOK)
			c := newTestClient(t, srv.URL+"/v1")
			got, err := tc.call(c.Tasks.Attachments)
			require.NoError(t, err)
			reqs := rec.all()
			require.Len(t, reqs, 1)
			assert.Equal(t, tc.method+" "+tc.path, reqs[0].Method+" "+reqs[0].Path)
			checkOperationReached(t, tc.op, checkRequestContract(t, reqs[0]))
			if tc.op == "tasks.attachments.create" {
				created := got.(*CreatedAttachment)
				diff(t, "attachment", pendingAttachment, created.Attachment)
				diff(t, "upload headers", map[string]string{"content-type": "application/pdf", "x-amz-meta-task": "task_8fk2"}, created.Upload.Headers)
				assert.Equal(t, time.UnixMilli(1750004600000).UTC(), created.Upload.ExpiresAt)
				diff(t, "create body", map[string]any{"filename": "receipt.pdf", "contentType": "application/pdf", "sizeBytes": 6.0}, jsonValue(t, reqs[0].Body))
				return
			}
			if tc.want != nil {
				diff(t, "answer", tc.want, got)
			}
		})
	}
}

// TestAttachmentsUploadWire checks the Upload composite: create with the
// size taken from the data, PUT of the bytes to the presigned URL with its
// headers verbatim and no API key, then confirm.
func TestAttachmentsUploadWire(t *testing.T) {
	srv, rec := serveAttachments(t, http.StatusOK)
	c := newTestClient(t, srv.URL+"/v1")
	got, err := c.Tasks.Attachments.Upload(context.Background(), "task_8fk2", []byte("hello!"),
		UploadParams{Filename: "receipt.pdf", ContentType: "application/pdf", WorkerID: "agent_1"},
		WithHeader("X-Trace", "t1"))
	require.NoError(t, err)
	diff(t, "confirmed attachment", &readyAttachment, got)

	reqs := rec.all()
	require.Len(t, reqs, 3)
	var paths []string
	for _, r := range reqs {
		paths = append(paths, r.Method+" "+r.Path)
	}
	diff(t, "calls", []string{"POST /tasks/task_8fk2/attachments", "PUT /storage/att_1", "POST /tasks/task_8fk2/attachments/att_1/confirm"}, paths)
	checkRequestContract(t, reqs[0])
	diff(t, "create body", map[string]any{"filename": "receipt.pdf", "contentType": "application/pdf", "sizeBytes": 6.0, "workerId": "agent_1"}, jsonValue(t, reqs[0].Body))
	put := reqs[1]
	assert.Equal(t, "hello!", string(put.Body))
	assert.Equal(t, "sig=abc", put.Query.Encode())
	assert.Equal(t, "task_8fk2", put.Header.Get("X-Amz-Meta-Task"))
	assert.Equal(t, "application/pdf", put.Header.Get("Content-Type"))
	assert.Empty(t, put.Header.Get("Authorization"), "the API key must not reach storage")
	assert.Empty(t, put.Header.Get("Idempotency-Key"))
	assert.Empty(t, put.Header.Get("X-Trace"), "per-call headers are for the API, not storage")
	assert.Equal(t, "t1", reqs[0].Header.Get("X-Trace"))
	assert.Equal(t, "t1", reqs[2].Header.Get("X-Trace"))
	checkRequestContract(t, reqs[2])
}

// TestAttachmentsUploadStorageRefused checks that a storage answer outside
// 2xx is an APIError with code upload_failed and the storage status, that
// confirm is not called, and that the presigned URL stays out of the error.
func TestAttachmentsUploadStorageRefused(t *testing.T) {
	srv, rec := serveAttachments(t, http.StatusForbidden)
	c := newTestClient(t, srv.URL+"/v1")
	_, err := c.Tasks.Attachments.Upload(context.Background(), "task_8fk2", []byte("hello!"),
		UploadParams{Filename: "receipt.pdf", ContentType: "application/pdf"})
	var apiErr *APIError
	require.True(t, errors.As(err, &apiErr), "got %v", err)
	assert.Equal(t, CodeUploadFailed, apiErr.Code)
	assert.Equal(t, http.StatusForbidden, apiErr.StatusCode)
	assert.NotContains(t, err.Error(), "sig=abc")
	for _, r := range rec.all() {
		assert.False(t, strings.HasSuffix(r.Path, "/confirm"), "confirm called after a refused upload")
	}
}

// TestAttachmentsParamErrors checks the client refuses what the request
// schema refuses, before sending anything.
func TestAttachmentsParamErrors(t *testing.T) {
	srv, rec := serveAttachments(t, http.StatusOK)
	c := newTestClient(t, srv.URL+"/v1")
	ctx := context.Background()
	ok := CreateAttachmentParams{Filename: "a.pdf", ContentType: "application/pdf", SizeBytes: 1}
	tests := []struct {
		name  string
		call  func() error
		param string
	}{
		{"empty task id", func() error { _, err := c.Tasks.Attachments.Create(ctx, "", ok); return err }, "taskID"},
		{"zero size", func() error {
			p := ok
			p.SizeBytes = 0
			_, err := c.Tasks.Attachments.Create(ctx, "t1", p)
			return err
		}, "CreateAttachmentParams.SizeBytes"},
		{"bad content type", func() error {
			p := ok
			p.ContentType = "pdf"
			_, err := c.Tasks.Attachments.Create(ctx, "t1", p)
			return err
		}, "CreateAttachmentParams.ContentType"},
		{"long filename", func() error {
			p := ok
			p.Filename = strings.Repeat("f", 256)
			_, err := c.Tasks.Attachments.Create(ctx, "t1", p)
			return err
		}, "CreateAttachmentParams.Filename"},
		{"empty upload", func() error {
			_, err := c.Tasks.Attachments.Upload(ctx, "t1", nil, UploadParams{Filename: "a", ContentType: "text/plain"})
			return err
		}, "CreateAttachmentParams.SizeBytes"},
		{"empty attachment id", func() error { return c.Tasks.Attachments.Remove(ctx, "t1", "") }, "attachmentID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pe *ParamError
			require.ErrorAs(t, tc.call(), &pe)
			assert.Equal(t, tc.param, pe.Param)
		})
	}
	assert.Empty(t, rec.all(), "no request may be sent")
}
