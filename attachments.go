package taskrouting

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"time"
)

// CodeUploadFailed is the APIError code of an Upload whose storage PUT was
// answered outside 2xx; StatusCode is then the storage's status.
const CodeUploadFailed = "upload_failed"

// AttachmentStatus is pending until the bytes are confirmed, then ready.
type AttachmentStatus string

// Attachment states.
const (
	AttachmentPending AttachmentStatus = "pending"
	AttachmentReady   AttachmentStatus = "ready"
)

// Attachment is a file on a task.
type Attachment struct {
	ID          string             `json:"id"`
	TaskID      string             `json:"taskId"`
	Filename    string             `json:"filename"`
	ContentType string             `json:"contentType"`
	SizeBytes   int64              `json:"sizeBytes"`
	Status      AttachmentStatus   `json:"status"`
	Uploader    AttachmentUploader `json:"uploader"`
	CreatedAt   time.Time          `json:"-"` // wire createdAt, epoch ms
	ConfirmedAt time.Time          `json:"-"` // wire confirmedAt; zero while pending
}

// AttachmentUploader says who added a file: Type "api", or "worker" with
// the worker's ID.
type AttachmentUploader struct {
	Type string `json:"type"`
	ID   string `json:"id"` // "" when null
}

// UnmarshalJSON reads the wire times.
func (a *Attachment) UnmarshalJSON(b []byte) error {
	type plain Attachment
	w := struct {
		*plain
		CreatedAt   wireTime `json:"createdAt"`
		ConfirmedAt wireTime `json:"confirmedAt"`
	}{plain: (*plain)(a)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	a.CreatedAt, a.ConfirmedAt = w.CreatedAt.t, w.ConfirmedAt.t
	return nil
}

// AttachmentUpload is where to send an attachment's bytes: a presigned URL
// whose Headers are part of its signature and must be sent as given.
type AttachmentUpload struct {
	URL       string            `json:"url"`
	Method    string            `json:"method"`
	Headers   map[string]string `json:"headers"`
	ExpiresAt time.Time         `json:"-"` // wire expiresAt, epoch ms
}

// UnmarshalJSON reads the wire time.
func (u *AttachmentUpload) UnmarshalJSON(b []byte) error {
	type plain AttachmentUpload
	w := struct {
		*plain
		ExpiresAt wireTime `json:"expiresAt"`
	}{plain: (*plain)(u)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	u.ExpiresAt = w.ExpiresAt.t
	return nil
}

// AttachmentDownload is a short-lived URL for an attachment's bytes.
type AttachmentDownload struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"-"` // wire expiresAt, epoch ms
}

// UnmarshalJSON reads the wire time.
func (d *AttachmentDownload) UnmarshalJSON(b []byte) error {
	type plain AttachmentDownload
	w := struct {
		*plain
		ExpiresAt wireTime `json:"expiresAt"`
	}{plain: (*plain)(d)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	d.ExpiresAt = w.ExpiresAt.t
	return nil
}

// CreatedAttachment is the answer of Create: the pending record and where to
// upload its bytes.
type CreatedAttachment struct {
	Attachment Attachment       `json:"attachment"`
	Upload     AttachmentUpload `json:"upload"`
}

// CreateAttachmentParams declares a file before its bytes are uploaded.
type CreateAttachmentParams struct {
	Filename    string `json:"filename"`           // 1-255 characters
	ContentType string `json:"contentType"`        // a media type such as "application/pdf"
	SizeBytes   int64  `json:"sizeBytes"`          // at least 1
	WorkerID    string `json:"workerId,omitempty"` // credits the file to a worker; at most 128
}

// contentTypePattern is the form the API accepts: type "/" subtype.
var contentTypePattern = regexp.MustCompile(`^[\w.+-]+/[\w.+-]+$`)

func (p CreateAttachmentParams) validate() error {
	if p.SizeBytes < 1 {
		return &ParamError{Param: "CreateAttachmentParams.SizeBytes", Problem: "must be at least 1"}
	}
	if !contentTypePattern.MatchString(p.ContentType) {
		return &ParamError{Param: "CreateAttachmentParams.ContentType", Problem: "must be a media type such as application/pdf"}
	}
	return firstError(
		checkLen("CreateAttachmentParams.Filename", p.Filename, 1, 255),
		checkLen("CreateAttachmentParams.ContentType", p.ContentType, 3, 128),
		checkLen("CreateAttachmentParams.WorkerID", p.WorkerID, 0, 128),
	)
}

// AttachmentsService is the files on a task: Client.Tasks.Attachments.
type AttachmentsService struct{ c *Client }

func (s *AttachmentsService) files() taskFiles { return taskFiles{c: s.c, prefix: "/tasks/"} }

// taskFiles are the calls both planes make on a task's files; they differ only in the path
// prefix ("/tasks/" with the API key, "/portal/tasks/" with a worker session). The
// exported services keep their own doc comments and parameter types and delegate here.
type taskFiles struct {
	c      *Client
	prefix string
}

func (f taskFiles) create(ctx context.Context, taskID string, body any, invalid error, opts []RequestOption) (*CreatedAttachment, error) {
	if err := f.c.admit(firstError(checkID("taskID", taskID), invalid), opts); err != nil {
		return nil, err
	}
	out := new(CreatedAttachment)
	if err := f.c.call(ctx, "POST", escapePath(f.prefix, taskID, "/attachments"), nil, body, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

func (f taskFiles) confirm(ctx context.Context, taskID, attachmentID string, opts []RequestOption) (*Attachment, error) {
	if err := f.c.admit(firstError(checkID("taskID", taskID), checkID("attachmentID", attachmentID)), opts); err != nil {
		return nil, err
	}
	var out struct {
		Attachment Attachment `json:"attachment"`
	}
	if err := f.c.call(ctx, "POST", escapePath(f.prefix, taskID, "/attachments/", attachmentID, "/confirm"), nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out.Attachment, nil
}

func (f taskFiles) list(ctx context.Context, taskID string, opts []RequestOption) ([]Attachment, error) {
	if err := f.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	var out struct {
		Attachments []Attachment `json:"attachments"`
	}
	if err := f.c.call(ctx, "GET", escapePath(f.prefix, taskID, "/attachments"), nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Attachments, nil
}

func (f taskFiles) download(ctx context.Context, taskID, attachmentID string, opts []RequestOption) (*AttachmentDownload, error) {
	if err := f.c.admit(firstError(checkID("taskID", taskID), checkID("attachmentID", attachmentID)), opts); err != nil {
		return nil, err
	}
	out := new(AttachmentDownload)
	if err := f.c.call(ctx, "GET", escapePath(f.prefix, taskID, "/attachments/", attachmentID, "/download"), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// upload is the composite: create (the caller's create, with its own parameter type), PUT the
// bytes to storage through the client's attempts (storageCall), confirm.
func (f taskFiles) upload(ctx context.Context, taskID string, body io.Reader, size int64, create func() (*CreatedAttachment, error), opts []RequestOption) (*Attachment, error) {
	if body == nil {
		return nil, &ParamError{Param: "body", Problem: "must not be nil"}
	}
	created, err := create()
	if err != nil {
		return nil, err
	}
	method := created.Upload.Method
	if method == "" {
		method = http.MethodPut
	}
	resp, err := f.c.storageCall(ctx, method, created.Upload.URL, created.Upload.Headers, body, size, opStorageUpload, CodeUploadFailed, opts)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return f.confirm(ctx, taskID, created.Attachment.ID, opts)
}

// open is the composite of a download: ask for the URL, then GET the bytes
// through the client's attempts and hand the body over unread.
func (f taskFiles) open(ctx context.Context, taskID, attachmentID string, opts []RequestOption) (*AttachmentContent, error) {
	dl, err := f.download(ctx, taskID, attachmentID, opts)
	if err != nil {
		return nil, err
	}
	resp, err := f.c.storageCall(ctx, http.MethodGet, dl.URL, nil, nil, 0, opStorageDownload, CodeDownloadFailed, withOwn(opts, dropCallOnly))
	if err != nil {
		return nil, err
	}
	return &AttachmentContent{ReadCloser: resp.Body, ContentType: resp.Header.Get("Content-Type"), Size: resp.ContentLength}, nil
}

// AttachmentContent is an attachment's bytes as storage streams them: read
// them, then Close. ContentType and Size are storage's Content-Type and
// Content-Length (Size is -1 when storage sent none).
type AttachmentContent struct {
	io.ReadCloser
	ContentType string
	Size        int64
}

// Create declares a file on a task and returns where to PUT its bytes; the
// attachment stays pending until Confirm. Upload does all three steps.
//
// API: tasks.attachments.create, POST /tasks/{id}/attachments
func (s *AttachmentsService) Create(ctx context.Context, taskID string, p CreateAttachmentParams, opts ...RequestOption) (*CreatedAttachment, error) {
	return s.files().create(ctx, taskID, p, p.validate(), opts)
}

// Confirm marks an uploaded attachment ready.
//
// API: tasks.attachments.confirm, POST /tasks/{id}/attachments/{attachmentId}/confirm
func (s *AttachmentsService) Confirm(ctx context.Context, taskID, attachmentID string, opts ...RequestOption) (*Attachment, error) {
	return s.files().confirm(ctx, taskID, attachmentID, opts)
}

// List returns a task's attachments, pending ones included.
//
// API: tasks.attachments.list, GET /tasks/{id}/attachments
func (s *AttachmentsService) List(ctx context.Context, taskID string, opts ...RequestOption) ([]Attachment, error) {
	return s.files().list(ctx, taskID, opts)
}

// Download returns a short-lived URL for an attachment's bytes; Open
// returns the bytes themselves.
//
// API: tasks.attachments.download, GET /tasks/{id}/attachments/{attachmentId}/download
func (s *AttachmentsService) Download(ctx context.Context, taskID, attachmentID string, opts ...RequestOption) (*AttachmentDownload, error) {
	return s.files().download(ctx, taskID, attachmentID, opts)
}

// Remove deletes an attachment.
//
// API: tasks.attachments.remove, DELETE /tasks/{id}/attachments/{attachmentId}
func (s *AttachmentsService) Remove(ctx context.Context, taskID, attachmentID string, opts ...RequestOption) error {
	if err := s.c.admit(firstError(checkID("taskID", taskID), checkID("attachmentID", attachmentID)), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/tasks/", taskID, "/attachments/", attachmentID), nil, nil, nil, opts)
}

// UploadParams names the file Upload or UploadReader stores; its size comes
// from the data (Upload) or the size argument (UploadReader).
type UploadParams struct {
	Filename    string
	ContentType string
	WorkerID    string // optional: credits the file to a worker
}

// Upload stores data as a file on a task in one call; it is UploadReader
// over bytes.NewReader(data), so its storage PUT is retried as
// UploadReader's is.
func (s *AttachmentsService) Upload(ctx context.Context, taskID string, data []byte, p UploadParams, opts ...RequestOption) (*Attachment, error) {
	return s.UploadReader(ctx, taskID, bytes.NewReader(data), int64(len(data)), p, opts...)
}

// UploadReader stores size bytes read from body as a file on a task in one
// call: Create with size, PUT the bytes to the presigned URL with its
// headers exactly as given, then Confirm. The PUT goes through the
// client's attempts (HTTP client, timeout, retries, backoff, logger and
// middlewares, as operation id "storage.upload") but carries none of the
// API's headers: no API key, no Idempotency-Key, no WithHeader value.
//
// The body is streamed, never held whole in memory. A failed PUT is
// retried only when body can be read again: an io.Seeker (a file, a
// bytes.Reader) is rewound to where it stood for each attempt; any other
// reader gets a single attempt. body must yield at least size bytes; only
// the first size are sent.
//
// A storage answer outside 2xx is an *APIError with code CodeUploadFailed
// and the storage's status; the attachment then stays pending and Confirm
// is not called. The presigned URL never appears in an error.
//
// It sends tasks.attachments.create (POST /tasks/{id}/attachments), the
// storage PUT and tasks.attachments.confirm (POST
// /tasks/{id}/attachments/{attachmentId}/confirm).
func (s *AttachmentsService) UploadReader(ctx context.Context, taskID string, body io.Reader, size int64, p UploadParams, opts ...RequestOption) (*Attachment, error) {
	return s.files().upload(ctx, taskID, body, size, func() (*CreatedAttachment, error) {
		return s.Create(ctx, taskID, CreateAttachmentParams{
			Filename: p.Filename, ContentType: p.ContentType, SizeBytes: size, WorkerID: p.WorkerID,
		}, opts...)
	}, opts)
}

// Open streams an attachment's bytes: it asks for a download URL (as
// Download does) and GETs it through the client's attempts (operation id
// "storage.download"), returning the body unread. Close it when done. The
// call's timeout (WithTimeout, 60 s by default) bounds reading the whole
// body too; for a large file give the call WithTimeout(0) and bound it
// with the context. A storage answer outside 2xx is an *APIError with code
// CodeDownloadFailed and the storage's status.
//
// It sends tasks.attachments.download (GET
// /tasks/{id}/attachments/{attachmentId}/download), then the storage GET.
func (s *AttachmentsService) Open(ctx context.Context, taskID, attachmentID string, opts ...RequestOption) (*AttachmentContent, error) {
	return s.files().open(ctx, taskID, attachmentID, opts)
}
