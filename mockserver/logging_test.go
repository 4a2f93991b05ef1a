package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedBuffer is a log sink the server may write to from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lines decodes every JSON log line.
func (b *lockedBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "log line %q", l)
		out = append(out, m)
	}
	return out
}

func findLog(lines []map[string]any, msg string, match map[string]any) map[string]any {
	for _, l := range lines {
		if !strings.HasPrefix(l["msg"].(string), msg) {
			continue
		}
		ok := true
		for k, v := range match {
			ok = ok && l[k] == v
		}
		if ok {
			return l
		}
	}
	return nil
}

// TestLoggerTellsWhatHappens: with WithLogger the server logs each request, each delivery
// attempt, a delivery stalled behind the manual clock, and on Close how many queued deliveries
// it drops, never a credential.
func TestLoggerTellsWhatHappens(t *testing.T) {
	t.Parallel()
	var sink lockedBuffer
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(failing.Close)
	clk := NewManualClock(t0)
	const secret = "whsec_logged_never"
	srv, err := New(WithClock(clk), WithWebhookURL(failing.URL), WithSigningSecret(secret),
		WithLogger(slog.New(slog.NewJSONHandler(&sink, nil))))
	require.NoError(t, err)
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"english"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	require.NoError(t, srv.Flush(t.Context()))
	// Two more events queue behind the stalled one: accept, then complete.
	mustAPI(t, srv, 200, "POST", "/tasks/task_1/accept", map[string]any{"workerId": "ana"})
	mustAPI(t, srv, 200, "POST", "/tasks/task_1/complete", map[string]any{"workerId": "ana"})
	srv.Close()

	lines := sink.lines(t)
	assert.NotNil(t, findLog(lines, "request", map[string]any{"method": "POST", "path": "/v1/tasks", "status": float64(202)}), "the create is logged")
	stall := findLog(lines, "webhook delivery stalled", map[string]any{"kind": "task.matched", "attempt": float64(1), "status": float64(503)})
	if assert.NotNil(t, stall, "the failed attempt under a manual clock is reported as a stall") {
		assert.Equal(t, t0.Add(50*time.Millisecond).Format(time.RFC3339Nano), stall["retryAt"])
	}
	closing := findLog(lines, "closing", nil)
	if assert.NotNil(t, closing) {
		assert.Equal(t, float64(3), closing["dropped"], "matched (waiting to retry), accepted and completed are dropped")
	}
	raw, _ := json.Marshal(lines)
	assert.NotContains(t, string(raw), srv.APIKey())
	assert.NotContains(t, string(raw), secret)
}

// TestRequestLogSource: the request line carries the program counter of the server's own
// log line, looked up once instead of on every request, so a handler that prints the
// source names the recording function for the first request and every later one, as
// Logger.LogAttrs would.
func TestRequestLogSource(t *testing.T) {
	t.Parallel()
	var sink lockedBuffer
	srv, err := New(WithLogger(slog.New(slog.NewJSONHandler(&sink, &slog.HandlerOptions{AddSource: true}))))
	require.NoError(t, err)
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	mustAPI(t, srv, 200, "GET", "/tasks/task_1", nil)
	srv.Close()

	var got []string
	for _, l := range sink.lines(t) {
		if l["msg"] != "request" {
			continue
		}
		src, _ := l["source"].(map[string]any)
		file, _ := src["file"].(string)
		got = append(got, fmt.Sprintf("%s %s %v %s %s", l["level"], l["method"], l["status"], src["function"], filepath.Base(file)))
	}
	want := []string{
		"INFO POST 202 github.com/taskrouting/taskrouting-go/mockserver.(*Server).record logging.go",
		"INFO GET 200 github.com/taskrouting/taskrouting-go/mockserver.(*Server).record logging.go",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request lines (-want +got):\n%s", diff)
	}
}
