package taskrouting

import (
	"bytes"
	"context"
	"io"
	"iter"
	"math"
)

// The worker plane's comments and attachments: the same records as
// Tasks.Comments and Tasks.Attachments, reached with the worker's session
// on the tasks offered to or held by that worker (any other task is a 404,
// as for Task). The author or uploader is always the signed-in worker, so
// the inputs carry no worker id, and a worker cannot remove anything.

// WorkerCreateAttachmentParams declares a file before its bytes are
// uploaded. Unlike CreateAttachmentParams it names no worker: the file is
// credited to the session's worker.
type WorkerCreateAttachmentParams struct {
	Filename    string `json:"filename"`    // 1-255 characters
	ContentType string `json:"contentType"` // a media type such as "application/pdf"
	SizeBytes   int64  `json:"sizeBytes"`   // at least 1
}

// validate holds the fields to the limits of worker.attachments.create.
func (p WorkerCreateAttachmentParams) validate() error {
	const in = "WorkerCreateAttachmentParams"
	if p.SizeBytes < 1 {
		return &ParamError{Param: in + ".SizeBytes", Problem: "must be at least 1"}
	}
	if !contentTypePattern.MatchString(p.ContentType) {
		return &ParamError{Param: in + ".ContentType", Problem: "must be a media type such as application/pdf"}
	}
	return firstError(
		checkLen(in+".Filename", p.Filename, 1, 255),
		checkLen(in+".ContentType", p.ContentType, 3, 128),
	)
}

// WorkerUploadParams names the file WorkerAttachmentsService.Upload stores;
// its size comes from the data.
type WorkerUploadParams struct {
	Filename    string
	ContentType string
}

// CommentsPage returns one page of the comments on one of the signed-in
// worker's tasks, oldest first.
//
// API: worker.comments, GET /portal/tasks/{id}/comments
func (w *WorkerClient) CommentsPage(ctx context.Context, taskID string, p ListCommentsParams, opts ...RequestOption) (*CommentPage, error) {
	return commentPageAt(ctx, w.c, "/portal/tasks/", taskID, p, opts)
}

// Comments returns every comment on one of the signed-in worker's tasks
// from p.Cursor on, fetching pages as the loop asks for them. An error ends
// the iteration; a cursor seen before ends it with ErrCursorRepeated.
//
// API: worker.comments, GET /portal/tasks/{id}/comments
func (w *WorkerClient) Comments(ctx context.Context, taskID string, p ListCommentsParams, opts ...RequestOption) iter.Seq2[Comment, error] {
	return allComments(p, func(p ListCommentsParams) (*CommentPage, error) { return w.CommentsPage(ctx, taskID, p, opts...) })
}

// AddComment adds a comment, written by the signed-in worker, to one of
// its tasks and returns it as stored (Author.Type "worker").
//
// API: worker.addComment, POST /portal/tasks/{id}/comments
func (w *WorkerClient) AddComment(ctx context.Context, taskID, body string, opts ...RequestOption) (*Comment, error) {
	if err := w.c.admit(firstError(checkID("taskID", taskID), checkLen("body", body, 1, math.MaxInt)), opts); err != nil {
		return nil, err
	}
	in := struct {
		Body string `json:"body"`
	}{body}
	var out struct {
		Comment Comment `json:"comment"`
	}
	if err := w.c.call(ctx, "POST", escapePath("/portal/tasks/", taskID, "/comments"), nil, in, &out, opts); err != nil {
		return nil, err
	}
	return &out.Comment, nil
}

// WorkerAttachmentsService is the files on the signed-in worker's tasks:
// WorkerClient.Attachments. It has no Remove: on this plane files are only
// added and read.
type WorkerAttachmentsService struct{ c *Client }

func (s *WorkerAttachmentsService) files() taskFiles {
	return taskFiles{c: s.c, prefix: "/portal/tasks/"}
}

// Create declares a file on one of the signed-in worker's tasks and returns
// where to PUT its bytes; the attachment stays pending until Confirm.
// Upload does all three steps.
//
// API: worker.attachments.create, POST /portal/tasks/{id}/attachments
func (s *WorkerAttachmentsService) Create(ctx context.Context, taskID string, p WorkerCreateAttachmentParams, opts ...RequestOption) (*CreatedAttachment, error) {
	return s.files().create(ctx, taskID, p, p.validate(), opts)
}

// Confirm marks an uploaded attachment ready.
//
// API: worker.attachments.confirm, POST /portal/tasks/{id}/attachments/{attachmentId}/confirm
func (s *WorkerAttachmentsService) Confirm(ctx context.Context, taskID, attachmentID string, opts ...RequestOption) (*Attachment, error) {
	return s.files().confirm(ctx, taskID, attachmentID, opts)
}

// List returns the attachments of one of the signed-in worker's tasks,
// pending ones and those others added included.
//
// API: worker.attachments.list, GET /portal/tasks/{id}/attachments
func (s *WorkerAttachmentsService) List(ctx context.Context, taskID string, opts ...RequestOption) ([]Attachment, error) {
	return s.files().list(ctx, taskID, opts)
}

// Download returns a short-lived URL for an attachment's bytes.
//
// API: worker.attachments.download, GET /portal/tasks/{id}/attachments/{attachmentId}/download
func (s *WorkerAttachmentsService) Download(ctx context.Context, taskID, attachmentID string, opts ...RequestOption) (*AttachmentDownload, error) {
	return s.files().download(ctx, taskID, attachmentID, opts)
}

// Upload stores data as a file on one of the signed-in worker's tasks in
// one call; it is UploadReader over bytes.NewReader(data).
func (s *WorkerAttachmentsService) Upload(ctx context.Context, taskID string, data []byte, p WorkerUploadParams, opts ...RequestOption) (*Attachment, error) {
	return s.UploadReader(ctx, taskID, bytes.NewReader(data), int64(len(data)), p, opts...)
}

// UploadReader stores size bytes read from body as a file on one of the
// signed-in worker's tasks, as Tasks.Attachments.UploadReader does: Create
// with size, PUT the bytes to the presigned URL with its headers exactly as
// given (the session token never goes to storage) through the client's
// attempts, then Confirm. The PUT is retried only when body can be read
// again (an io.Seeker). A storage answer outside 2xx is an *APIError with
// code CodeUploadFailed and the storage's status; the attachment then
// stays pending and Confirm is not called.
//
// It sends worker.attachments.create (POST /portal/tasks/{id}/attachments),
// the storage PUT and worker.attachments.confirm (POST
// /portal/tasks/{id}/attachments/{attachmentId}/confirm).
func (s *WorkerAttachmentsService) UploadReader(ctx context.Context, taskID string, body io.Reader, size int64, p WorkerUploadParams, opts ...RequestOption) (*Attachment, error) {
	return s.files().upload(ctx, taskID, body, size, func() (*CreatedAttachment, error) {
		return s.Create(ctx, taskID, WorkerCreateAttachmentParams{
			Filename: p.Filename, ContentType: p.ContentType, SizeBytes: size,
		}, opts...)
	}, opts)
}

// Open streams the bytes of an attachment on one of the signed-in worker's
// tasks, as Tasks.Attachments.Open does. Close it when done.
//
// It sends worker.attachments.download (GET
// /portal/tasks/{id}/attachments/{attachmentId}/download), then the storage GET.
func (s *WorkerAttachmentsService) Open(ctx context.Context, taskID, attachmentID string, opts ...RequestOption) (*AttachmentContent, error) {
	return s.files().open(ctx, taskID, attachmentID, opts)
}
