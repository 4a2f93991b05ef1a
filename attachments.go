package taskrouting

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	if err := firstError(checkID("taskID", taskID), invalid); err != nil {
		return nil, err
	}
	out := new(CreatedAttachment)
	if err := f.c.call(ctx, "POST", escapePath(f.prefix, taskID, "/attachments"), nil, body, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

func (f taskFiles) confirm(ctx context.Context, taskID, attachmentID string, opts []RequestOption) (*Attachment, error) {
	if err := firstError(checkID("taskID", taskID), checkID("attachmentID", attachmentID)); err != nil {
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
	if err := checkID("taskID", taskID); err != nil {
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
	if err := firstError(checkID("taskID", taskID), checkID("attachmentID", attachmentID)); err != nil {
		return nil, err
	}
	out := new(AttachmentDownload)
	if err := f.c.call(ctx, "GET", escapePath(f.prefix, taskID, "/attachments/", attachmentID, "/download"), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// upload is the composite: create (the caller's create, with its own parameter type), PUT the
// bytes to storage, confirm.
func (f taskFiles) upload(ctx context.Context, taskID string, data []byte, create func() (*CreatedAttachment, error), opts []RequestOption) (*Attachment, error) {
	created, err := create()
	if err != nil {
		return nil, err
	}
	cfg, err := f.c.callConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := put(ctx, cfg.httpClient, created.Upload, data); err != nil {
		return nil, err
	}
	return f.confirm(ctx, taskID, created.Attachment.ID, opts)
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

// Download returns a short-lived URL for an attachment's bytes.
//
// API: tasks.attachments.download, GET /tasks/{id}/attachments/{attachmentId}/download
func (s *AttachmentsService) Download(ctx context.Context, taskID, attachmentID string, opts ...RequestOption) (*AttachmentDownload, error) {
	return s.files().download(ctx, taskID, attachmentID, opts)
}

// Remove deletes an attachment.
//
// API: tasks.attachments.remove, DELETE /tasks/{id}/attachments/{attachmentId}
func (s *AttachmentsService) Remove(ctx context.Context, taskID, attachmentID string, opts ...RequestOption) error {
	if err := firstError(checkID("taskID", taskID), checkID("attachmentID", attachmentID)); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/tasks/", taskID, "/attachments/", attachmentID), nil, nil, nil, opts)
}

// UploadParams names the file Upload stores; its size comes from the data.
type UploadParams struct {
	Filename    string
	ContentType string
	WorkerID    string // optional: credits the file to a worker
}

// Upload stores data as a file on a task in one call: Create with the size
// of data, PUT data to the presigned URL with its headers exactly as given
// (no API key goes to storage), then Confirm. A storage answer outside 2xx
// is an *APIError with code CodeUploadFailed and the storage's status; the
// attachment then stays pending and Confirm is not called. opts apply to
// the two API calls; the storage PUT takes only their HTTP client and
// timeout, never their headers.
func (s *AttachmentsService) Upload(ctx context.Context, taskID string, data []byte, p UploadParams, opts ...RequestOption) (*Attachment, error) {
	return s.files().upload(ctx, taskID, data, func() (*CreatedAttachment, error) {
		return s.Create(ctx, taskID, CreateAttachmentParams{
			Filename: p.Filename, ContentType: p.ContentType, SizeBytes: int64(len(data)), WorkerID: p.WorkerID,
		}, opts...)
	}, opts)
}

// put sends the bytes to storage over the call's HTTP client (so its
// timeout applies). It does not go through the API chokepoint: storage is
// another host that must see neither the API key nor the API's retries and
// headers. The presigned URL is a credential too, so errors leave it out.
func put(ctx context.Context, hc *http.Client, up AttachmentUpload, data []byte) error {
	method := up.Method
	if method == "" {
		method = http.MethodPut
	}
	req, err := http.NewRequestWithContext(ctx, method, up.URL, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("taskrouting: attachment upload: bad upload URL")
	}
	for name, value := range up.Headers {
		req.Header[name] = []string{value} // verbatim: the names are part of the signature
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("taskrouting: attachment upload: %w", ctxErr)
		}
		return fmt.Errorf("taskrouting: attachment upload: storage unreachable")
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &APIError{
			StatusCode: resp.StatusCode,
			Code:       CodeUploadFailed,
			Message:    fmt.Sprintf("storage answered %d to the upload", resp.StatusCode),
			Method:     method,
			Path:       "(presigned upload URL)",
		}
	}
	return nil
}
