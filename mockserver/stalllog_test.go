package mockserver

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestStalledDeliveryLogCountsTheEventsBehindIt holds the warnings a refused delivery under
// the manual clock logs to what a test needs to unstick it: the attempt, when the retry is
// due, and how many later events to the same URL wait behind it (the stalled event itself
// not counted), then the error when the event is given up. The first attempt of
// task.matched has nothing behind it; by its retries the accept and the completion have
// queued behind it; the sixth attempt, 1.55 s after the first, is the last.
func TestStalledDeliveryLogCountsTheEventsBehindIt(t *testing.T) {
	t.Parallel()
	var sink lockedBuffer
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(refusing.Close)
	clk := NewManualClock(t0)
	srv, err := New(WithClock(clk), WithWebhookURL(refusing.URL), WithLogger(slog.New(slog.NewJSONHandler(&sink, nil))))
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"english"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	require.NoError(t, srv.Flush(t.Context()))
	mustAPI(t, srv, 200, "POST", "/tasks/task_1/accept", map[string]any{"workerId": "ana"})
	mustAPI(t, srv, 200, "POST", "/tasks/task_1/complete", map[string]any{"workerId": "ana"})
	clk.Advance(1550 * time.Millisecond) // waits of 50 ms doubling: attempts at 0, 50, 150, 350, 750 and 1550 ms

	type line struct {
		Level, Msg   string
		Attempt      float64
		RetryAt      string
		QueuedBehind any
	}
	const stalled = "webhook delivery stalled: the retry and every later event to this url wait until the manual clock reaches retryAt"
	var got []line
	for _, l := range sink.lines(t) {
		if l["kind"] != "task.matched" {
			continue
		}
		retryAt, _ := l["retryAt"].(string)
		got = append(got, line{Level: l["level"].(string), Msg: l["msg"].(string), Attempt: l["attempt"].(float64), RetryAt: retryAt, QueuedBehind: l["queuedBehind"]})
	}
	at := func(ms int) string { return t0.Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano) }
	want := []line{
		{"WARN", stalled, 1, at(50), 0.0},
		{"WARN", stalled, 2, at(150), 2.0},
		{"WARN", stalled, 3, at(350), 2.0},
		{"WARN", stalled, 4, at(750), 2.0},
		{"WARN", stalled, 5, at(1550), 2.0},
		{"ERROR", "webhook delivery failed for good", 6, "", nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines of task.matched's delivery (-want +got):\n%s", diff)
	}
}
