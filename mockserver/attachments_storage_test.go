package mockserver

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// newUpload makes task_a and one attachment of 3 text bytes on it, and returns the
// attachment's id and upload URL.
func newUpload(t *testing.T, srv *Server) (string, string) {
	t.Helper()
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_a", "tags": []string{"billing"}})
	a := mustAPI(t, srv, 201, "POST", "/tasks/task_a/attachments", map[string]any{"filename": "a.txt", "contentType": "text/plain", "sizeBytes": 3}).json(t)
	return a["attachment"].(map[string]any)["id"].(string), a["upload"].(map[string]any)["url"].(string)
}

// TestStorageDelayFaultWaitsFirst: a storage fault's Delay is waited (through the same seam
// as an API request's, so a test sees it without waiting) before the fault's answer or,
// with no status or drop, before the upload is stored as usual; a fault without a Delay
// waits nothing.
func TestStorageDelayFaultWaitsFirst(t *testing.T) {
	type outcome struct {
		Waited    []time.Duration
		Status    int
		Confirmed bool
	}
	cases := []struct {
		name  string
		fault Fault
		want  outcome
	}{
		{"delay then status", Fault{Path: "/_storage/*", Delay: 250 * time.Millisecond, Status: 503},
			outcome{Waited: []time.Duration{250 * time.Millisecond}, Status: 503}},
		{"delay alone", Fault{Path: "/_storage/*", Delay: 40 * time.Millisecond},
			outcome{Waited: []time.Duration{40 * time.Millisecond}, Status: 200, Confirmed: true}},
		{"status alone", Fault{Path: "/_storage/*", Status: 500}, outcome{Status: 500}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := Start(t, WithClock(NewManualClock(t0)))
			var mu sync.Mutex
			var got outcome
			srv.faults.sleep = func(_ context.Context, d time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				got.Waited = append(got.Waited, d)
			}
			id, upload := newUpload(t, srv)
			require.NoError(t, srv.InjectFault(tc.fault))
			req, err := http.NewRequest(http.MethodPut, upload, strings.NewReader("abc"))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "text/plain")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			srv.ClearFaults()
			mu.Lock()
			got.Status = resp.StatusCode
			mu.Unlock()
			got.Confirmed = api(t, srv, "POST", "/tasks/task_a/attachments/"+id+"/confirm", nil).Status == http.StatusOK
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestStorageUploadBodyThatCannotBeRead: an upload whose body breaks off (here a chunk
// length that is not hexadecimal) is answered 400 in the store's plain text, and nothing is
// stored: the attachment cannot be confirmed.
func TestStorageUploadBodyThatCannotBeRead(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	id, upload := newUpload(t, srv)
	u, err := url.Parse(upload)
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "PUT "+u.RequestURI()+" HTTP/1.1\r\nHost: "+u.Host+"\r\nContent-Type: text/plain\r\n"+
		"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	type answer struct {
		Status int
		Body   string
	}
	if d := cmp.Diff(answer{http.StatusBadRequest, "body could not be read\n"}, answer{resp.StatusCode, string(body)}); d != "" {
		t.Errorf("the store's answer (-want +got):\n%s", d)
	}
	confirm := api(t, srv, "POST", "/tasks/task_a/attachments/"+id+"/confirm", nil)
	require.Equal(t, http.StatusConflict, confirm.Status, "nothing stored: %s", confirm.Body)
}
