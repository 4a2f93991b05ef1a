package mockserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/internal/contract"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// attachmentsSetup is a server on a manual clock with one task, task_a, and a client for it.
func attachmentsSetup(t *testing.T, opts ...mockserver.Option) (*mockserver.Server, *taskrouting.Client, *mockserver.ManualClock) {
	t.Helper()
	clk := mockserver.NewManualClock(time.UnixMilli(1763700000000))
	srv := mockserver.Start(t, append([]mockserver.Option{mockserver.WithClock(clk)}, opts...)...)
	c := newClient(t, srv, srv.APIKey())
	_, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{ID: "task_a", Tags: []string{"billing"}})
	require.NoError(t, err)
	return srv, c, clk
}

// storageDo sends one request to a storage URL the server handed out.
func storageDo(t *testing.T, method, url, contentType string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, bytes.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, got
}

// TestAttachmentsLifecycle runs upload, list, download (the bytes come back from the download
// URL), confirm again and remove through the client, and checks each answer against the file.
func TestAttachmentsLifecycle(t *testing.T) {
	t.Parallel()
	_, c, clk := attachmentsSetup(t)
	ctx := context.Background()
	var resp taskrouting.Response
	att, err := c.Tasks.Attachments.Upload(ctx, "task_a", []byte("hello!"),
		taskrouting.UploadParams{Filename: "receipt.pdf", ContentType: "application/pdf", WorkerID: "agent_1"},
		taskrouting.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "per-call options reach the confirm call")
	assert.Equal(t, taskrouting.AttachmentReady, att.Status)
	assert.Equal(t, int64(6), att.SizeBytes)
	assert.Equal(t, taskrouting.AttachmentUploader{Type: "worker", ID: "agent_1"}, att.Uploader)
	assert.Equal(t, clk.Now().UTC(), att.ConfirmedAt)

	list, err := c.Tasks.Attachments.List(ctx, "task_a")
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, *att, list[0])

	dl, err := c.Tasks.Attachments.Download(ctx, "task_a", att.ID)
	require.NoError(t, err)
	assert.Equal(t, clk.Now().Add(15*time.Minute).UTC(), dl.ExpiresAt)
	status, body := storageDo(t, http.MethodGet, dl.URL, "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "hello!", string(body))

	again, err := c.Tasks.Attachments.Confirm(ctx, "task_a", att.ID)
	require.NoError(t, err)
	assert.Equal(t, att, again, "confirming twice changes nothing")

	require.NoError(t, c.Tasks.Attachments.Remove(ctx, "task_a", att.ID))
	list, err = c.Tasks.Attachments.List(ctx, "task_a")
	require.NoError(t, err)
	assert.Empty(t, list)
	status, _ = storageDo(t, http.MethodGet, dl.URL, "", nil)
	assert.Equal(t, http.StatusForbidden, status, "a removed attachment's URL serves nothing")
}

// TestAttachmentsAnswersMatchTheFile sends each operation raw and validates the answer body
// against its response schema in api/openapi.json.
func TestAttachmentsAnswersMatchTheFile(t *testing.T) {
	t.Parallel()
	srv, _, _ := attachmentsSetup(t)
	spec, err := contract.Default()
	require.NoError(t, err)
	call := func(op, method, path string, body any) []byte {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, err := json.Marshal(body)
			require.NoError(t, err)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(context.Background(), method, srv.URL()+path, rd)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+srv.APIKey())
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.NoError(t, spec.ValidateResponse(op, resp.StatusCode, raw), "%s answered %d %s", op, resp.StatusCode, raw)
		return raw
	}
	raw := call("tasks.attachments.create", "POST", "/tasks/task_a/attachments",
		map[string]any{"filename": "a.txt", "contentType": "text/plain", "sizeBytes": 2})
	var created struct {
		Attachment struct{ ID string }
		Upload     struct {
			URL     string
			Headers map[string]string
		}
	}
	require.NoError(t, json.Unmarshal(raw, &created))
	status, _ := storageDo(t, http.MethodPut, created.Upload.URL, created.Upload.Headers["content-type"], []byte("hi"))
	require.Equal(t, http.StatusOK, status)
	id := created.Attachment.ID
	call("tasks.attachments.list", "GET", "/tasks/task_a/attachments", nil)
	call("tasks.attachments.confirm", "POST", "/tasks/task_a/attachments/"+id+"/confirm", nil)
	call("tasks.attachments.download", "GET", "/tasks/task_a/attachments/"+id+"/download", nil)
	call("tasks.attachments.remove", "DELETE", "/tasks/task_a/attachments/"+id, nil)
	call("tasks.attachments.list", "GET", "/tasks/nope/attachments", nil) // the 404 envelope
}

// TestAttachmentsRefusals checks the refusals: an unknown task, another workspace's task, an
// unknown attachment, bad input, confirm before the bytes and download of a pending file.
// None of them may leave an attachment behind.
func TestAttachmentsRefusals(t *testing.T) {
	t.Parallel()
	const keyB = "sk_test_second_workspace"
	srv, c, _ := attachmentsSetup(t, mockserver.WithExtraAPIKey(keyB))
	other := newClient(t, srv, keyB)
	ctx := context.Background()
	pending, err := c.Tasks.Attachments.Create(ctx, "task_a", taskrouting.CreateAttachmentParams{Filename: "a.txt", ContentType: "text/plain", SizeBytes: 3})
	require.NoError(t, err)
	id := pending.Attachment.ID
	good := taskrouting.CreateAttachmentParams{Filename: "b.txt", ContentType: "text/plain", SizeBytes: 3}
	tests := []struct {
		name   string
		call   func() error
		status int
		code   string
	}{
		{"unknown task", func() error { _, err := c.Tasks.Attachments.Create(ctx, "nope", good); return err }, 404, "not_found"},
		{"another workspace's task", func() error { _, err := other.Tasks.Attachments.Create(ctx, "task_a", good); return err }, 404, "not_found"},
		{"another workspace lists", func() error { _, err := other.Tasks.Attachments.List(ctx, "task_a"); return err }, 404, "not_found"},
		{"unknown attachment", func() error { _, err := c.Tasks.Attachments.Download(ctx, "task_a", "att_nope"); return err }, 404, "not_found"},
		{"remove unknown", func() error { return c.Tasks.Attachments.Remove(ctx, "task_a", "att_nope") }, 404, "not_found"},
		{"confirm before upload", func() error { _, err := c.Tasks.Attachments.Confirm(ctx, "task_a", id); return err }, 409, "invalid_state"},
		{"download pending", func() error { _, err := c.Tasks.Attachments.Download(ctx, "task_a", id); return err }, 409, "invalid_state"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var apiErr *taskrouting.APIError
			require.ErrorAs(t, tc.call(), &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, tc.code, apiErr.Code)
		})
	}
	for _, body := range []string{
		`{"filename":"c","contentType":"text/plain","sizeBytes":1.5}`,
		`{"filename":"c","contentType":"text/plain","sizeBytes":1,"x":1}`,
		`{"filename":"","contentType":"text/plain","sizeBytes":1}`,
		`{"filename":"c","contentType":"plain","sizeBytes":1}`,
		`{"filename":"c","contentType":"text/plain","sizeBytes":0}`,
		`{"filename":"c","contentType":"text/plain","sizeBytes":1,"workerId":5}`,
	} {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/tasks/task_a/attachments", bytes.NewReader([]byte(body)))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+srv.APIKey())
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var env struct{ Error struct{ Code string } }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
		assert.Equal(t, "validation_failed", env.Error.Code, body)
	}
	list, err := c.Tasks.Attachments.List(ctx, "task_a")
	require.NoError(t, err)
	require.Len(t, list, 1, "refused calls added nothing")
	assert.Equal(t, pending.Attachment, list[0], "and changed nothing")
}

// TestAttachmentsStorageChecks holds the upload URL to what create declared: a body of
// another size, another content type or a second PUT after confirm is refused by storage
// and leaves the attachment pending; an expired URL is refused too.
func TestAttachmentsStorageChecks(t *testing.T) {
	t.Parallel()
	_, c, clk := attachmentsSetup(t)
	ctx := context.Background()
	created, err := c.Tasks.Attachments.Create(ctx, "task_a", taskrouting.CreateAttachmentParams{Filename: "a.txt", ContentType: "text/plain", SizeBytes: 3})
	require.NoError(t, err)
	url := created.Upload.URL
	tests := []struct {
		name, contentType, body string
		want                    int
	}{
		{"shorter body", "text/plain", "ab", http.StatusBadRequest},
		{"longer body", "text/plain", "abcd", http.StatusBadRequest},
		{"other content type", "application/pdf", "abc", http.StatusForbidden},
		{"no content type", "", "abc", http.StatusForbidden},
	}
	for _, tc := range tests {
		status, _ := storageDo(t, http.MethodPut, url, tc.contentType, []byte(tc.body))
		assert.Equal(t, tc.want, status, tc.name)
	}
	_, err = c.Tasks.Attachments.Confirm(ctx, "task_a", created.Attachment.ID)
	assert.ErrorIs(t, err, taskrouting.ErrInvalidState, "no refused body may count as uploaded")

	status, _ := storageDo(t, http.MethodPut, url, "text/plain; charset=utf-8", []byte("abc"))
	require.Equal(t, http.StatusOK, status, "parameters on the declared type are fine")
	_, err = c.Tasks.Attachments.Confirm(ctx, "task_a", created.Attachment.ID)
	require.NoError(t, err)
	status, _ = storageDo(t, http.MethodPut, url, "text/plain", []byte("xyz"))
	assert.Equal(t, http.StatusConflict, status, "a confirmed file is not replaced")

	late, err := c.Tasks.Attachments.Create(ctx, "task_a", taskrouting.CreateAttachmentParams{Filename: "b.txt", ContentType: "text/plain", SizeBytes: 1})
	require.NoError(t, err)
	clk.Advance(time.Hour)
	status, _ = storageDo(t, http.MethodPut, late.Upload.URL, "text/plain", []byte("x"))
	assert.Equal(t, http.StatusForbidden, status, "the upload URL lapses at expiresAt")
}

// shortenPuts is a transport that drops the last byte of every PUT body, as a broken proxy
// might: the storage then sees a body whose size differs from the declared one.
type shortenPuts struct{ next http.RoundTripper }

func (s shortenPuts) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPut && r.ContentLength > 0 {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b[:len(b)-1])), int64(len(b)-1)
	}
	return s.next.RoundTrip(r)
}

// TestAttachmentsUploadSizeDiffers runs the client's Upload against the mock with bytes that
// arrive shorter than declared: storage refuses them, the client reports upload_failed with
// the storage status, confirm is not called and the attachment stays pending.
func TestAttachmentsUploadSizeDiffers(t *testing.T) {
	t.Parallel()
	srv, _, _ := attachmentsSetup(t)
	ctx := context.Background()
	hc := &http.Client{Transport: shortenPuts{next: http.DefaultTransport}}
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithMaxRetries(0), taskrouting.WithHTTPClient(hc))
	require.NoError(t, err)
	_, err = c.Tasks.Attachments.Upload(ctx, "task_a", []byte("hello!"), taskrouting.UploadParams{Filename: "b.txt", ContentType: "text/plain"})
	var apiErr *taskrouting.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, taskrouting.CodeUploadFailed, apiErr.Code)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	list, err := c.Tasks.Attachments.List(ctx, "task_a")
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, taskrouting.AttachmentPending, list[0].Status)
	for _, r := range srv.Requests() {
		assert.NotContains(t, r.Path, "/confirm", "confirm called after a refused upload")
	}
}
