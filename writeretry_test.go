package taskrouting

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeylessWriteRetryRule: a write without an Idempotency-Key is retried
// only after an answer that says it was not run (429, 503 with
// Retry-After); a read, a PUT and a keyed POST are retried after any
// retryable answer.
func TestKeylessWriteRetryRule(t *testing.T) {
	type send func(ctx context.Context, c *Client, w *WorkerClient) error
	calls := []struct {
		name string
		send send
		safe bool // safe to repeat whatever became of an attempt
	}{
		{"workspace GET", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			return c.Do(ctx, "GET", "/tasks/t1", nil, nil)
		}, true},
		{"workspace PUT", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			return c.Do(ctx, "PUT", "/workflows/w1", map[string]any{}, nil)
		}, true},
		{"workspace POST with key", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			return c.Do(ctx, "POST", "/tasks/t1/complete", map[string]any{"workerId": "a"}, nil)
		}, true},
		{"workspace PATCH", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			return c.Do(ctx, "PATCH", "/workers/a", map[string]any{}, nil)
		}, false},
		{"workspace DELETE", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			return c.Do(ctx, "DELETE", "/tasks/t1", nil, nil)
		}, false},
		{"worker POST", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.Complete(ctx, "t1", nil)
			return err
		}, false},
	}
	answers := []struct {
		name       string
		status     int
		retryAfter string
		notRun     bool // the answer says the request was not run
	}{
		{"500", 500, "", false},
		{"502", 502, "", false},
		{"504", 504, "", false},
		{"503 without Retry-After", 503, "", false},
		{"503 with Retry-After", 503, "0", true},
		{"429 with Retry-After", 429, "0", true},
		{"429 without Retry-After", 429, "", true},
	}
	for _, call := range calls {
		for _, ans := range answers {
			t.Run(call.name+" "+ans.name, func(t *testing.T) {
				hdr := map[string]string{"Content-Type": "application/json"}
				if ans.retryAfter != "" {
					hdr["Retry-After"] = ans.retryAfter
				}
				srv, rec := serveOnce(t, ans.status, hdr, `{"error":{"code":"x","message":"y"}}`)
				opts := []Option{WithMaxRetries(2), WithRetryWait(0, time.Millisecond)}
				c := newTestClient(t, srv.URL+"/v1", opts...)
				w := newTestWorkerClient(t, srv.URL+"/v1", opts...)
				signIn(w)
				err := call.send(context.Background(), c, w)
				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, ans.status, apiErr.StatusCode)
				assert.NotErrorIs(t, err, ErrOutcomeUnknown, "an answer came")
				want := 1
				if call.safe || ans.notRun {
					want = 3
				}
				assert.Len(t, rec.all(), want)
			})
		}
	}
}

// TestKeylessWriteDialFailureRetried: no connection made means nothing
// was sent, so even a keyless write is retried, and the error is not
// ErrOutcomeUnknown.
func TestKeylessWriteDialFailureRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now: connection refused
	w := newTestWorkerClient(t, "http://"+addr+"/v1", WithMaxRetries(2), WithRetryWait(0, time.Millisecond))
	signIn(w)
	var attempts []Attempt
	count := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		attempts = CallInfoFromContext(req.Context()).Attempts()
		return resp, err
	}
	_, err = w.Complete(context.Background(), "t1", nil, WithMiddleware(count))
	var urlErr *url.Error
	require.ErrorAs(t, err, &urlErr)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	assert.Len(t, attempts, 3)
}

// TestKeylessWriteDroppedAnswer: an attempt that reached the server and
// lost its answer is not repeated for a keyless write, and its error
// matches ErrOutcomeUnknown (and still the transport's *url.Error); a
// keyed POST is repeated.
func TestKeylessWriteDroppedAnswer(t *testing.T) {
	tests := []struct {
		name     string
		send     func(ctx context.Context, c *Client, w *WorkerClient) error
		attempts int
	}{
		{"worker POST", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.StartBreak(ctx, StartBreakParams{})
			return err
		}, 1},
		{"workspace DELETE", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			return c.Tasks.Cancel(ctx, "t1")
		}, 1},
		{"workspace POST with key", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Decisions.Complete(ctx, "t1", "a", nil)
			return err
		}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec.record(r)
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					_ = conn.Close() // the request arrived; its answer never leaves
				}
			}))
			t.Cleanup(srv.Close)
			// No keep-alive: net/http's Transport would itself resend a keyed
			// request whose reused connection closed, which is not what is measured here.
			hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			opts := []Option{WithMaxRetries(2), WithRetryWait(0, time.Millisecond), WithHTTPClient(hc)}
			c := newTestClient(t, srv.URL+"/v1", opts...)
			w := newTestWorkerClient(t, srv.URL+"/v1", opts...)
			signIn(w)
			err := tt.send(context.Background(), c, w)
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			var urlErr *url.Error
			assert.ErrorAs(t, err, &urlErr)
			assert.False(t, errors.Is(err, ErrConflict))
			assert.Len(t, rec.all(), tt.attempts)
		})
	}
}
