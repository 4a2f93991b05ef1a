package taskrouting_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// trail records what middlewares saw, across the goroutines a call may use.
type trail struct {
	mu    sync.Mutex
	steps []string
}

func (tr *trail) add(s string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.steps = append(tr.steps, s)
}

func (tr *trail) get() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.steps...)
}

// named records entering and leaving, with the operation the call sends.
func named(tr *trail, name string) taskrouting.Middleware {
	return func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
		ci := taskrouting.CallInfoFromContext(req.Context())
		tr.add(name + " in " + ci.OperationID() + " " + ci.PathTemplate())
		resp, err := next(req)
		tr.add(name + " out")
		return resp, err
	}
}

func mockClient(t *testing.T, srv *mockserver.Server, opts ...taskrouting.RequestOption) *taskrouting.Client {
	t.Helper()
	opts = append([]taskrouting.RequestOption{taskrouting.WithRetryWait(0, 0)}, opts...)
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMiddlewareOrderClientThenCall(t *testing.T) {
	srv := mockserver.Start(t)
	tr := &trail{}
	c := mockClient(t, srv, taskrouting.WithMiddleware(named(tr, "a"), nil, named(tr, "b")))
	ctx := context.Background()
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}},
		taskrouting.WithMiddleware(named(tr, "x"), named(tr, "y")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tasks.Get(ctx, ref.ID); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a in tasks.create /tasks", "b in tasks.create /tasks", "x in tasks.create /tasks", "y in tasks.create /tasks",
		"y out", "x out", "b out", "a out",
		// The next call has the client's middlewares only: a call's never stick.
		"a in tasks.get /tasks/{id}", "b in tasks.get /tasks/{id}", "b out", "a out",
	}
	if diff := cmp.Diff(want, tr.get()); diff != "" {
		t.Errorf("middleware order (-want +got):\n%s", diff)
	}
}

func TestMiddlewareWrapsTheCallNotEachAttempt(t *testing.T) {
	srv := mockserver.Start(t)
	if err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/tasks", Status: 503, Times: 2}); err != nil {
		t.Fatal(err)
	}
	var runs int
	var attempts []taskrouting.Attempt
	count := func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
		runs++
		resp, err := next(req)
		attempts = taskrouting.CallInfoFromContext(req.Context()).Attempts()
		return resp, err
	}
	c := mockClient(t, srv, taskrouting.WithMiddleware(count))
	var resp taskrouting.Response
	if _, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{Tags: []string{"english"}},
		taskrouting.WithResponseInto(&resp)); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		Number, Status int
		Retried        bool
	}
	var got []seen
	for _, a := range attempts {
		got = append(got, seen{a.Number, a.StatusCode, a.Retried})
		if a.Start.IsZero() || a.Duration < 0 || a.Err != nil {
			t.Errorf("attempt %d: start %v, duration %v, err %v", a.Number, a.Start, a.Duration, a.Err)
		}
	}
	want := []seen{{1, 503, true}, {2, 503, true}, {3, 202, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	if runs != 1 || resp.Attempts != 3 {
		t.Errorf("middleware ran %d times for a call of %d attempts, want once for 3", runs, resp.Attempts)
	}
}

func TestMiddlewareChangesTheRequest(t *testing.T) {
	srv := mockserver.Start(t)
	type ctxKey struct{}
	tests := []struct {
		name string
		mw   taskrouting.Middleware
		tags []string // the tags the task is stored with
	}{
		{"header set in place", func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
			req.Header.Set("X-Trace", "t-1")
			return next(req)
		}, []string{"french"}},
		{"new request from WithContext keeps the body", func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
			r := req.WithContext(context.WithValue(req.Context(), ctxKey{}, 1))
			r.Header = req.Header.Clone()
			r.Header.Set("X-Trace", "t-1")
			return next(r)
		}, []string{"french"}},
		{"own body replaces the call's", func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
			r := req.Clone(req.Context())
			r.Header.Set("X-Trace", "t-1")
			body := `{"tags":["german"]}`
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
			return next(r)
		}, []string{"german"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Reset()
			c := mockClient(t, srv)
			ref, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{Tags: []string{"french"}}, taskrouting.WithMiddleware(tt.mw))
			if err != nil {
				t.Fatal(err)
			}
			task, err := c.Tasks.Get(context.Background(), ref.ID)
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if got := reqs[0].Header.Get("X-Trace"); got != "t-1" {
				t.Errorf("X-Trace = %q, want t-1", got)
			}
			if diff := cmp.Diff(tt.tags, task.Tags); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMiddlewareRefusesWithoutSending(t *testing.T) {
	srv := mockserver.Start(t)
	errBudget := errors.New("budget spent")
	c := mockClient(t, srv, taskrouting.WithMiddleware(func(*http.Request, taskrouting.MiddlewareNext) (*http.Response, error) {
		return nil, errBudget
	}))
	_, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{Tags: []string{"english"}})
	if !errors.Is(err, errBudget) {
		t.Fatalf("err = %v, want the middleware's error wrapped", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the server, want none", n)
	}
	silent := mockClient(t, srv, taskrouting.WithMiddleware(func(*http.Request, taskrouting.MiddlewareNext) (*http.Response, error) {
		return nil, nil
	}))
	if _, err := silent.Tasks.Get(context.Background(), "t1"); err == nil || !strings.Contains(err.Error(), "no response") {
		t.Errorf("a middleware answering nothing: err = %v", err)
	}
}

// The transport under WithHTTPClient runs once per attempt and sees the
// same CallInfo, for what must happen on every attempt.
func TestCallInfoReachesTheTransport(t *testing.T) {
	srv := mockserver.Start(t)
	if err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/workers", Status: 500, Times: 1}); err != nil {
		t.Fatal(err)
	}
	tr := &trail{}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		ci := taskrouting.CallInfoFromContext(r.Context())
		tr.add(ci.Method() + " " + ci.OperationID())
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := mockClient(t, srv, taskrouting.WithHTTPClient(hc))
	if _, err := c.Workers.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"GET workers.list", "GET workers.list"}, tr.get()); diff != "" {
		t.Errorf("transport saw (-want +got):\n%s", diff)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
