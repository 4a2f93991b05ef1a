package taskroutingotel_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestStorageSpans: an attachment's storage PUT and GET go through the
// client's middleware, so they are traced like API calls (operation ids
// storage.upload and storage.download), retries included, and no span
// carries the presigned URL.
func TestStorageSpans(t *testing.T) {
	h := newHarness(t)
	srv := mockserver.Start(t)
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithRetryWait(0, 0),
		taskrouting.WithMiddleware(h.tel.Middleware()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.InjectFault(mockserver.Fault{Method: "PUT", Path: "/_storage/*", Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	data := []byte("scanned receipt")
	att, err := c.Tasks.Attachments.UploadReader(ctx, ref.ID, bytes.NewReader(data), int64(len(data)),
		taskrouting.UploadParams{Filename: "r.txt", ContentType: "text/plain"})
	if err != nil {
		t.Fatal(err)
	}
	content, err := c.Tasks.Attachments.Open(ctx, ref.ID, att.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(content); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %q, %v", got, err)
	}
	content.Close()

	keys := []string{"http.request.method", "http.response.status_code", "http.request.resend_count", "taskrouting.operation.id", "taskrouting.attempts", "taskrouting.outcome"}
	var got []spanView
	for _, s := range h.spans.Ended()[1:] { // after the create
		got = append(got, view(s, keys...))
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.Emit(), "_storage") {
				t.Errorf("%s: attribute %s carries the presigned URL", s.Name(), kv.Key)
			}
		}
	}
	want := []spanView{
		{Name: "tasks.attachments.create", Attrs: map[string]string{"http.request.method": "POST", "http.response.status_code": "201",
			"taskrouting.operation.id": "tasks.attachments.create", "taskrouting.attempts": "1", "taskrouting.outcome": "success"}},
		{Name: "storage.upload", Attrs: map[string]string{"http.request.method": "PUT", "http.response.status_code": "200", "http.request.resend_count": "1",
			"taskrouting.operation.id": "storage.upload", "taskrouting.attempts": "2", "taskrouting.outcome": "success"},
			Events: []string{"retry 1 503"}},
		{Name: "tasks.attachments.confirm", Attrs: map[string]string{"http.request.method": "POST", "http.response.status_code": "200",
			"taskrouting.operation.id": "tasks.attachments.confirm", "taskrouting.attempts": "1", "taskrouting.outcome": "success"}},
		{Name: "tasks.attachments.download", Attrs: map[string]string{"http.request.method": "GET", "http.response.status_code": "200",
			"taskrouting.operation.id": "tasks.attachments.download", "taskrouting.attempts": "1", "taskrouting.outcome": "success"}},
		{Name: "storage.download", Attrs: map[string]string{"http.request.method": "GET", "http.response.status_code": "200",
			"taskrouting.operation.id": "storage.download", "taskrouting.attempts": "1", "taskrouting.outcome": "success"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}
