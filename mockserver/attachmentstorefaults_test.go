package mockserver_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestAttachmentStorageFaults holds storage URLs to the Fault rules as the store answers
// them: a Status fault is a plain-text status, with Retry-After in whole seconds rounded up
// only when RetryAfter is set, and stores nothing; DropBeforeCommit drops the connection and
// stores nothing; DropAfterCommit stores the bytes and drops the answer.
func TestAttachmentStorageFaults(t *testing.T) {
	t.Parallel()
	type answer struct {
		Status     int
		RetryAfter string
		Body       string
		Dropped    bool
		Confirmed  bool // whether confirm then succeeds: the bytes were stored
	}
	cases := []struct {
		name  string
		fault mockserver.Fault
		want  answer
	}{
		{"status with retry-after", mockserver.Fault{Method: "PUT", Path: "/_storage/*", Status: 503, RetryAfter: 1500 * time.Millisecond},
			answer{Status: 503, RetryAfter: "2", Body: "injected fault\n"}},
		{"status without retry-after", mockserver.Fault{Method: "PUT", Path: "/_storage/*", Status: 500},
			answer{Status: 500, Body: "injected fault\n"}},
		{"drop before commit", mockserver.Fault{Method: "PUT", Path: "/_storage/*", DropBeforeCommit: true}, answer{Dropped: true}},
		{"drop after commit", mockserver.Fault{Method: "PUT", Path: "/_storage/*", DropAfterCommit: true}, answer{Dropped: true, Confirmed: true}},
		{"a fault of another path", mockserver.Fault{Method: "PUT", Path: "/tasks/*", Status: 503}, answer{Status: 200, Confirmed: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c, _ := attachmentsSetup(t)
			ctx := context.Background()
			created, err := c.Tasks.Attachments.Create(ctx, "task_a", taskrouting.CreateAttachmentParams{Filename: "a.txt", ContentType: "text/plain", SizeBytes: 3})
			require.NoError(t, err)
			require.NoError(t, srv.InjectFault(tc.fault))

			var got answer
			req, err := http.NewRequestWithContext(ctx, http.MethodPut, created.Upload.URL, bytes.NewReader([]byte("abc")))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "text/plain")
			resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
			if err != nil {
				got.Dropped = true
			} else {
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				resp.Body.Close()
				got.Status, got.RetryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
				if resp.StatusCode != http.StatusOK {
					got.Body = string(body)
				}
			}
			srv.ClearFaults()
			_, err = c.Tasks.Attachments.Confirm(ctx, "task_a", created.Attachment.ID)
			got.Confirmed = err == nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestAttachmentStorageURLsTakeTheirMethod: an upload URL takes PUT only, a download URL GET
// only, and a download URL lapses at its expiresAt; each refusal is the store's plain text.
func TestAttachmentStorageURLsTakeTheirMethod(t *testing.T) {
	t.Parallel()
	_, c, clk := attachmentsSetup(t)
	ctx := context.Background()
	created, err := c.Tasks.Attachments.Create(ctx, "task_a", taskrouting.CreateAttachmentParams{Filename: "a.txt", ContentType: "text/plain", SizeBytes: 3})
	require.NoError(t, err)
	type answer struct {
		Status int
		Body   string
	}
	var got []answer
	do := func(method, url string, body []byte) {
		status, b := storageDo(t, method, url, "text/plain", body)
		got = append(got, answer{status, string(b)})
	}
	do(http.MethodGet, created.Upload.URL, nil)
	do(http.MethodPut, created.Upload.URL, []byte("abc"))
	_, err = c.Tasks.Attachments.Confirm(ctx, "task_a", created.Attachment.ID)
	require.NoError(t, err)
	dl, err := c.Tasks.Attachments.Download(ctx, "task_a", created.Attachment.ID)
	require.NoError(t, err)
	do(http.MethodPut, dl.URL, []byte("xyz"))
	do(http.MethodGet, dl.URL, nil)
	clk.Set(dl.ExpiresAt.Add(-time.Millisecond))
	do(http.MethodGet, dl.URL, nil)
	clk.Set(dl.ExpiresAt)
	do(http.MethodGet, dl.URL, nil)
	want := []answer{
		{405, "upload URLs take PUT\n"},
		{200, ""},
		{405, "download URLs take GET\n"},
		{200, "abc"},
		{200, "abc"},
		{403, "download URL expired\n"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
