package mockserver

import (
	"encoding/json"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// storagePrefix is where the mock plays the object store behind attachments: the upload and
// download URLs it hands out point here, outside BasePath, and carry no API key, as presigned
// URLs do. Each URL holds a token of its own that only that one attachment answers to.
const storagePrefix = "/_storage/"

// maxAttachmentBytes caps what the mock keeps per attachment, so a test cannot make it hold
// unbounded memory. The platform's own cap is not documented (docs/contract.md: stored, not
// enforced beyond this).
const maxAttachmentBytes = 32 << 20

// How long the presigned URLs live, on the server's clock.
const (
	uploadURLLifetime   = time.Hour
	downloadURLLifetime = 15 * time.Minute
)

// attachment is one file on a task. Guarded by its workspace's lock.
type attachment struct {
	id, taskID, filename, contentType string
	sizeBytes                         int64
	workerID                          string // "" when the API itself uploaded it
	createdAt, confirmedAt            time.Time
	uploadToken                       string
	uploadExpires                     time.Time
	downloadTokens                    map[string]time.Time // token -> expiry
	data                              []byte               // nil until storage received the bytes
}

// attachmentStore is a workspace's attachments; its zero value is empty and usable.
type attachmentStore struct {
	byTask map[string][]*attachment // in creation order, the order list answers in
}

func (st *attachmentStore) find(taskID, id string) *attachment {
	for _, a := range st.byTask[taskID] {
		if a.id == id {
			return a
		}
	}
	return nil
}

func (st *attachmentStore) add(a *attachment) {
	if st.byTask == nil {
		st.byTask = map[string][]*attachment{}
	}
	st.byTask[a.taskID] = append(st.byTask[a.taskID], a)
}

func (st *attachmentStore) remove(taskID, id string) {
	list := st.byTask[taskID]
	for i, a := range list {
		if a.id == id {
			st.byTask[taskID] = append(list[:i:i], list[i+1:]...)
			return
		}
	}
}

// byToken finds the attachment an upload or download token belongs to.
func (st *attachmentStore) byToken(token string) *attachment {
	for _, list := range st.byTask {
		for _, a := range list {
			if a.uploadToken == token {
				return a
			}
			if _, ok := a.downloadTokens[token]; ok {
				return a
			}
		}
	}
	return nil
}

type attachmentUploader struct {
	Type string  `json:"type"`
	ID   *string `json:"id"`
}

type attachmentJSON struct {
	ID          string             `json:"id"`
	TaskID      string             `json:"taskId"`
	Filename    string             `json:"filename"`
	ContentType string             `json:"contentType"`
	SizeBytes   int64              `json:"sizeBytes"`
	Status      string             `json:"status"`
	Uploader    attachmentUploader `json:"uploader"`
	CreatedAt   int64              `json:"createdAt"`
	ConfirmedAt *int64             `json:"confirmedAt"`
}

func (a *attachment) json() attachmentJSON {
	out := attachmentJSON{
		ID: a.id, TaskID: a.taskID, Filename: a.filename, ContentType: a.contentType,
		SizeBytes: a.sizeBytes, Status: "pending", Uploader: attachmentUploader{Type: "api"},
		CreatedAt: a.createdAt.UnixMilli(),
	}
	if a.workerID != "" {
		out.Uploader = attachmentUploader{Type: "worker", ID: &a.workerID}
	}
	if !a.confirmedAt.IsZero() {
		ms := a.confirmedAt.UnixMilli()
		out.Status, out.ConfirmedAt = "ready", &ms
	}
	return out
}

type attachmentUploadJSON struct {
	URL       string            `json:"url"`
	Method    string            `json:"method"`
	Headers   map[string]string `json:"headers"`
	ExpiresAt int64             `json:"expiresAt"`
}

type attachmentDownloadJSON struct {
	URL       string `json:"url"`
	ExpiresAt int64  `json:"expiresAt"`
}

// taskOf is the 404 for a task the workspace does not have (another workspace's task
// included: each workspace has its own matcher).
func taskOf(ws *workspace, taskID string) *apiError {
	if _, err := ws.engine.Task(taskID); err != nil {
		return matchError(err)
	}
	return nil
}

func attachmentOf(ws *workspace, taskID, id string) (*attachment, *apiError) {
	if err := taskOf(ws, taskID); err != nil {
		return nil, err
	}
	a := ws.attachments.find(taskID, id)
	if a == nil {
		return nil, notFoundf("attachment %s not found", id)
	}
	return a, nil
}

// prepCreateAttachment reserves an attachment and answers where to PUT its bytes. The body
// was checked against api/openapi.json; what the schema cannot say is checked here.
func prepCreateAttachment(r *request) (op, *apiError) {
	return createAttachment(r, http.StatusCreated)
}

// createAttachment is both planes' create: on the worker plane the body names no worker
// and the session's worker is the uploader, and the platform answers 200 rather than 201.
func createAttachment(r *request, status int) (op, *apiError) {
	var in struct {
		Filename    string  `json:"filename"`
		ContentType string  `json:"contentType"`
		SizeBytes   float64 `json:"sizeBytes"`
		WorkerID    string  `json:"workerId"`
	}
	if err := json.Unmarshal(r.body, &in); err != nil {
		return nil, invalidBodyf("body is not a JSON object")
	}
	if in.SizeBytes != math.Trunc(in.SizeBytes) {
		return nil, validationf("body/sizeBytes must be integer")
	}
	if in.SizeBytes > maxAttachmentBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "body/sizeBytes must be <= %d", maxAttachmentBytes)
	}
	if r.workerPlane {
		in.WorkerID = r.worker
	}
	taskID, origin := r.params[0], r.origin()
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if err := taskOf(ws, taskID); err != nil {
			return 0, nil, err
		}
		a := &attachment{
			id: ws.newID("att_"), taskID: taskID, filename: in.Filename, contentType: in.ContentType,
			sizeBytes: int64(in.SizeBytes), workerID: in.WorkerID, createdAt: now,
			uploadToken: ws.newID("up_"), uploadExpires: now.Add(uploadURLLifetime),
		}
		ws.attachments.add(a)
		return status, struct {
			Attachment attachmentJSON       `json:"attachment"`
			Upload     attachmentUploadJSON `json:"upload"`
		}{a.json(), attachmentUploadJSON{
			URL:       origin + storagePrefix + a.uploadToken,
			Method:    http.MethodPut,
			Headers:   map[string]string{"content-type": a.contentType},
			ExpiresAt: a.uploadExpires.UnixMilli(),
		}}, nil
	}, nil
}

// prepConfirmAttachment marks an attachment ready once storage holds all its bytes.
// Confirming a ready attachment again answers it unchanged.
func prepConfirmAttachment(r *request) (op, *apiError) {
	taskID, id := r.params[0], r.params[1]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		a, err := attachmentOf(ws, taskID, id)
		if err != nil {
			return 0, nil, err
		}
		if a.data == nil {
			return 0, nil, conflictf(CodeInvalidState, "attachment %s has no uploaded bytes yet", id)
		}
		if a.confirmedAt.IsZero() {
			a.confirmedAt = now
		}
		return http.StatusOK, struct {
			Attachment attachmentJSON `json:"attachment"`
		}{a.json()}, nil
	}, nil
}

func prepListAttachments(r *request) (op, *apiError) {
	taskID := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if err := taskOf(ws, taskID); err != nil {
			return 0, nil, err
		}
		out := []attachmentJSON{}
		for _, a := range ws.attachments.byTask[taskID] {
			out = append(out, a.json())
		}
		return http.StatusOK, struct {
			Attachments []attachmentJSON `json:"attachments"`
		}{out}, nil
	}, nil
}

// prepDownloadAttachment hands out a short-lived URL for a confirmed attachment's bytes.
func prepDownloadAttachment(r *request) (op, *apiError) {
	taskID, id, origin := r.params[0], r.params[1], r.origin()
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		a, err := attachmentOf(ws, taskID, id)
		if err != nil {
			return 0, nil, err
		}
		if a.confirmedAt.IsZero() {
			return 0, nil, conflictf(CodeInvalidState, "attachment %s is not confirmed", id)
		}
		token, expires := ws.newID("dl_"), now.Add(downloadURLLifetime)
		if a.downloadTokens == nil {
			a.downloadTokens = map[string]time.Time{}
		}
		a.downloadTokens[token] = expires
		return http.StatusOK, attachmentDownloadJSON{URL: origin + storagePrefix + token, ExpiresAt: expires.UnixMilli()}, nil
	}, nil
}

func prepRemoveAttachment(r *request) (op, *apiError) {
	taskID, id := r.params[0], r.params[1]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if _, err := attachmentOf(ws, taskID, id); err != nil {
			return 0, nil, err
		}
		ws.attachments.remove(taskID, id)
		return http.StatusNoContent, nil, nil
	}, nil
}

// serveStorage plays the object store: PUT to an upload URL stores the bytes when they match
// what create declared (size and content type), GET on a download URL returns them. Like a
// real store it answers plain statuses, not the API's error envelope.
//
// Faults apply to storage requests as to API requests (match them with Path "/_storage/*"),
// answered the store's way: a Status fault is a plain-text status (with Retry-After when
// set), DropBeforeCommit stores nothing, DropAfterCommit stores the bytes and drops the answer.
func (s *Server) serveStorage(w http.ResponseWriter, r *http.Request) {
	token := strings.TrimPrefix(r.URL.Path, storagePrefix)
	fault, faulted := s.faults.pick(r.Method, r.URL.Path, r.URL.Path)
	if faulted && fault.Delay > 0 {
		s.faults.wait(r.Context(), fault.Delay)
	}
	switch {
	case faulted && fault.Status != 0:
		if fault.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(fault.RetryAfter.Seconds()))))
		}
		http.Error(w, "injected fault", fault.Status)
		return
	case faulted && fault.DropBeforeCommit:
		dropConnection(w)
		return
	}
	// The body is read before any lock: a slow upload must not hold up the workspace.
	var body []byte
	if r.Method == http.MethodPut {
		var err error
		if body, err = io.ReadAll(io.LimitReader(r.Body, maxAttachmentBytes+1)); err != nil {
			http.Error(w, "body could not be read", http.StatusBadRequest)
			return
		}
	}
	now := s.clock.Now()
	status, answer, ct, found := s.storageRun(token, now, r, body)
	if faulted && fault.DropAfterCommit {
		dropConnection(w)
		return
	}
	if !found {
		http.Error(w, "no such object", http.StatusForbidden)
		return
	}
	if ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(status)
	_, _ = w.Write(answer)
}

// storageRun finds the attachment a storage token belongs to and runs the request on it.
// The answer's bytes are the attachment's own: stored bytes are never changed in place, only
// replaced, so they can be written after the lock is released.
func (s *Server) storageRun(token string, now time.Time, r *http.Request, body []byte) (int, []byte, string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, k := range s.keys {
		ws := s.workspaces[k]
		ws.mu.Lock()
		a := ws.attachments.byToken(token)
		if a != nil {
			if r.Method == http.MethodPut {
				ws.cmds.refuse("an upload to storage, which a snapshot does not carry")
			}
			status, answer, ct := storageAnswer(a, token, now, r, body)
			ws.mu.Unlock()
			return status, answer, ct, true
		}
		ws.mu.Unlock()
	}
	return 0, nil, "", false
}

// storageAnswer runs one storage request, whose PUT body is data, against a (locked)
// attachment.
func storageAnswer(a *attachment, token string, now time.Time, r *http.Request, data []byte) (int, []byte, string) {
	const text = "text/plain; charset=utf-8"
	if token != a.uploadToken {
		expires := a.downloadTokens[token]
		switch {
		case r.Method != http.MethodGet:
			return http.StatusMethodNotAllowed, []byte("download URLs take GET\n"), text
		case !now.Before(expires):
			return http.StatusForbidden, []byte("download URL expired\n"), text
		}
		return http.StatusOK, a.data, a.contentType
	}
	switch {
	case r.Method != http.MethodPut:
		return http.StatusMethodNotAllowed, []byte("upload URLs take PUT\n"), text
	case !now.Before(a.uploadExpires):
		return http.StatusForbidden, []byte("upload URL expired\n"), text
	case !a.confirmedAt.IsZero():
		return http.StatusConflict, []byte("attachment already confirmed\n"), text
	}
	// The content type is part of the signature: it must be the one create declared.
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	want, _, _ := mime.ParseMediaType(a.contentType)
	if err != nil || !strings.EqualFold(mt, want) {
		return http.StatusForbidden, []byte("content type differs from the declared one\n"), text
	}
	if int64(len(data)) != a.sizeBytes {
		return http.StatusBadRequest, []byte("body size differs from the declared sizeBytes\n"), text
	}
	a.data = data
	return http.StatusOK, nil, ""
}
