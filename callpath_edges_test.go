package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRedirectLoopStopsAtTen: a server that keeps redirecting within its origin gets ten
// requests, as from net/http's own client (the first and nine redirects followed; the tenth
// redirect is refused), and the call then fails without a retry.
func TestRedirectLoopStopsAtTen(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		http.Redirect(w, r, fmt.Sprintf("/v1/workers?hop=%d", i), http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithRetryWait(0, 0))
	_, err := c.Workers.List(context.Background())
	if err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Fatalf("err = %v, want the redirect limit", err)
	}
	if got := n.Load(); got != 10 {
		t.Errorf("%d requests, want 10, no retry", got)
	}
}

// failingBody is a request body whose Read fails.
type failingBody struct{}

func (failingBody) Read([]byte) (int, error) { return 0, errors.New("disk gone") }
func (failingBody) Close() error             { return nil }

// TestMiddlewareMistakes: what the call returns when a middleware passes a nil request to
// next, gives a body that cannot be read, or returns an answer together with an error
// (the answer's body is closed; the error is the call's).
func TestMiddlewareMistakes(t *testing.T) {
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		fmt.Fprint(w, `{"workers":[],"count":0}`)
	}))
	t.Cleanup(srv.Close)
	errOwn := errors.New("middleware gave up")
	var closed atomic.Bool
	for _, tc := range []struct {
		name string
		mw   Middleware
		then Middleware // a second, inner middleware; nil for none
		want string     // in the error
		sent int64      // requests that reached the server
	}{
		{
			name: "nil request to next",
			mw:   func(_ *http.Request, next MiddlewareNext) (*http.Response, error) { return next(nil) },
			want: "a middleware passed a nil request to next",
		},
		{
			name: "nil request to the next middleware",
			mw:   func(_ *http.Request, next MiddlewareNext) (*http.Response, error) { return next(nil) },
			then: func(r *http.Request, next MiddlewareNext) (*http.Response, error) {
				r.Header.Set("X-Inner", "1") // a middleware is never handed a nil request
				return next(r)
			},
			want: "a middleware passed a nil request to next",
		},
		{
			name: "a body that cannot be read",
			mw: func(r *http.Request, next MiddlewareNext) (*http.Response, error) {
				r = r.Clone(r.Context())
				r.Body = failingBody{}
				return next(r)
			},
			want: "read a middleware's request body: disk gone",
		},
		{
			name: "an answer and an error",
			mw: func(r *http.Request, next MiddlewareNext) (*http.Response, error) {
				resp, err := next(r)
				if err != nil {
					return nil, err
				}
				resp.Body = closeRecorder{resp.Body, &closed}
				return resp, errOwn
			},
			want: errOwn.Error(),
			sent: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sent.Store(0)
			mws := []Middleware{tc.mw}
			if tc.then != nil {
				mws = append(mws, tc.then)
			}
			c := newTestClient(t, srv.URL+"/v1", WithMiddleware(mws...), WithMaxRetries(0))
			_, err := c.Workers.List(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q in it", err, tc.want)
			}
			if got := sent.Load(); got != tc.sent {
				t.Errorf("%d requests sent, want %d", got, tc.sent)
			}
		})
	}
	if !closed.Load() {
		t.Error("the answer a middleware returned with an error was not closed")
	}
}

// closeRecorder records that a body was closed.
type closeRecorder struct {
	io.ReadCloser
	closed *atomic.Bool
}

func (c closeRecorder) Close() error {
	c.closed.Store(true)
	return c.ReadCloser.Close()
}

// TestAnswerCutShortIsAReadError: an answer whose body ends before its declared length is
// a read error of the call, not a decode error of the part that came.
func TestAnswerCutShortIsAReadError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"workers\":[")
		buf.Flush()
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
	_, err := c.Workers.List(context.Background())
	if err == nil || !strings.Contains(err.Error(), "GET /workers: read response: unexpected EOF") {
		t.Errorf("err = %v, want a read error", err)
	}
}
