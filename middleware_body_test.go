package taskrouting_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
)

// sentRequest is what a recorder server saw of one attempt.
type sentRequest struct {
	Method, Path, Body string
	IdempotencyKey     string
	ContentType        string
	Query              string
}

// recorder is a loopback server that keeps every attempt it is sent and
// answers each with the next of its scripted answers (the last repeats).
type recorder struct {
	mu      sync.Mutex
	sent    []sentRequest
	answers []func(w http.ResponseWriter, r *http.Request)
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	n := len(rec.sent)
	rec.sent = append(rec.sent, sentRequest{r.Method, r.URL.Path, string(b), r.Header.Get("Idempotency-Key"), r.Header.Get("Content-Type"), r.URL.RawQuery})
	answer := rec.answers[min(n, len(rec.answers)-1)]
	rec.mu.Unlock()
	answer(w, r)
}

func (rec *recorder) requests() []sentRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]sentRequest(nil), rec.sent...)
}

// answer is a scripted answer: status and JSON body.
func answer(status int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// startRecorder serves rec over loopback and returns a client of it.
func startRecorder(t *testing.T, rec *recorder, opts ...taskrouting.RequestOption) *taskrouting.Client {
	t.Helper()
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	opts = append([]taskrouting.RequestOption{taskrouting.WithRetryWait(0, 0)}, opts...)
	c, err := taskrouting.NewClient(srv.URL, "sk_test_recorder", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMiddlewareOwnBodyIsSent: a middleware that hands next a request with
// a body of its own has that body sent, on every attempt, whatever the
// length the request it cloned declared; one that hands on the call's
// request, or a copy without a body of its own, sends the call's JSON.
func TestMiddlewareOwnBodyIsSent(t *testing.T) {
	const callBody = `{"tags":["english"]}`
	const ownBody = `{"tags":["french","german"],"priority":3}`
	withBody := func(setLength bool) taskrouting.Middleware {
		return func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
			r := req.Clone(req.Context())
			r.Body = io.NopCloser(strings.NewReader(ownBody))
			if setLength {
				r.ContentLength = int64(len(ownBody))
			}
			return next(r)
		}
	}
	tests := []struct {
		name string
		mw   taskrouting.Middleware
		want string
	}{
		{"own body, its length set", withBody(true), ownBody},
		{"own body, the cloned request's length kept", withBody(false), ownBody},
		{"own body given as http.NoBody keeps the call's", func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
			r := req.Clone(req.Context())
			r.Body = http.NoBody
			return next(r)
		}, callBody},
		{"the call's request passed on", func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
			return next(req)
		}, callBody},
		{"a copy from WithContext", func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
			return next(req.WithContext(req.Context()))
		}, callBody},
	}
	closed := &closeTracker{Reader: strings.NewReader(ownBody)}
	tests = append(tests, struct {
		name string
		mw   taskrouting.Middleware
		want string
	}{"own body is closed once read", func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
		r := req.Clone(req.Context())
		r.Body = closed
		return next(r)
	}, ownBody})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Two 503s first: every attempt must carry the same body.
			rec := &recorder{answers: []func(http.ResponseWriter, *http.Request){
				answer(503, `{"error":{"code":"unavailable","message":"try again"}}`),
				answer(503, `{"error":{"code":"unavailable","message":"try again"}}`),
				answer(202, `{"id":"t1","status":"queued"}`),
			}}
			c := startRecorder(t, rec)
			if _, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{Tags: []string{"english"}},
				taskrouting.WithMiddleware(tt.mw)); err != nil {
				t.Fatal(err)
			}
			var bodies []string
			for _, r := range rec.requests() {
				bodies = append(bodies, r.Body)
			}
			if diff := cmp.Diff([]string{tt.want, tt.want, tt.want}, bodies); diff != "" {
				t.Errorf("bodies sent (-want +got):\n%s", diff)
			}
		})
	}
	if !closed.closed {
		t.Error("the middleware's body was not closed")
	}
}

// closeTracker is a request body that records its Close.
type closeTracker struct {
	*strings.Reader
	closed bool
}

func (c *closeTracker) Close() error { c.closed = true; return nil }
