package taskrouting

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// cancelOnLog is a slog handler that cancels a context when the client logs an attempt:
// it lets a test cancel the call exactly between the retry decision and the hand-back of
// the last response, where a real deadline can also expire.
type cancelOnLog struct{ cancel context.CancelFunc }

func (h cancelOnLog) Enabled(context.Context, slog.Level) bool  { return true }
func (h cancelOnLog) Handle(context.Context, slog.Record) error { h.cancel(); return nil }
func (h cancelOnLog) WithAttrs([]slog.Attr) slog.Handler        { return h }
func (h cancelOnLog) WithGroup(string) slog.Handler             { return h }

// TestQACancelAfterLastRetryDecisionIsAnError: a context ending after the last attempt was
// judged retryable (a 503 with no retries left) but before the response was handed back used
// to make the retry layer return neither a response nor an error, and the call panicked on a
// nil response.
func TestQACancelAfterLastRetryDecisionIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	for _, retries := range []int{0, 1} {
		ctx, cancel := context.WithCancel(context.Background())
		c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(retries), WithRetryWait(0, 0), WithLogger(slog.New(cancelOnLog{cancel})))
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("retries %d: the call panicked: %v", retries, p)
				}
			}()
			_, err = c.Tasks.Get(ctx, "t1")
		}()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("retries %d: error %v, want context.Canceled", retries, err)
		}
		cancel()
	}
}
