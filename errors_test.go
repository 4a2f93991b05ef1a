package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
)

// serveOnce answers every request with status, headers and body.
func serveOnce(t *testing.T, status int, header map[string]string, body string) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func TestErrorMapping(t *testing.T) {
	quotaHeaders := map[string]string{
		"X-Quota-Task-Rate-Limit":     "600",
		"X-Quota-Task-Rate-Remaining": "0",
	}
	tests := []struct {
		name    string
		status  int
		header  map[string]string
		body    string
		want    APIError
		is      []error
		isNot   []error
		retries int
	}{
		{
			name: "validation", status: 400,
			body: `{"error":{"code":"validation_failed","message":"tags is required"}}`,
			want: APIError{StatusCode: 400, Code: "validation_failed", Message: "tags is required"},
			is:   []error{ErrValidation}, isNot: []error{ErrNotFound, ErrConflict},
		},
		{
			name: "unauthorized", status: 401,
			body: `{"error":{"code":"unauthorized","message":"missing or invalid API key"}}`,
			want: APIError{StatusCode: 401, Code: "unauthorized", Message: "missing or invalid API key"},
			is:   []error{ErrUnauthorized},
		},
		{
			name: "plan limit with quota headers", status: 402, header: quotaHeaders,
			body: `{"error":{"code":"plan_limit_exceeded","message":"task-rate limit reached"}}`,
			want: APIError{StatusCode: 402, Code: "plan_limit_exceeded", Message: "task-rate limit reached",
				Quota: Quota{TaskRate: QuotaCounter{Limit: 600, Remaining: 0, Known: true}}},
			is: []error{ErrPlanLimit}, isNot: []error{ErrRateLimited},
		},
		{
			name: "not found", status: 404,
			body: `{"error":{"code":"not_found","message":"task not found"}}`,
			want: APIError{StatusCode: 404, Code: "not_found", Message: "task not found"},
			is:   []error{ErrNotFound},
		},
		{
			name: "task exists", status: 409,
			body: `{"error":{"code":"task_exists","message":"task task_8fk2 exists"}}`,
			want: APIError{StatusCode: 409, Code: "task_exists", Message: "task task_8fk2 exists"},
			is:   []error{ErrConflict, ErrTaskExists}, isNot: []error{ErrInvalidState, ErrBacklogFull},
		},
		{
			name: "backlog full", status: 409,
			body: `{"error":{"code":"worker_backlog_full","message":"agent_1 is full"}}`,
			want: APIError{StatusCode: 409, Code: "worker_backlog_full", Message: "agent_1 is full"},
			is:   []error{ErrConflict, ErrBacklogFull},
		},
		{
			name: "invalid state", status: 409,
			body: `{"error":{"code":"invalid_state","message":"task is completed"}}`,
			want: APIError{StatusCode: 409, Code: "invalid_state", Message: "task is completed"},
			is:   []error{ErrConflict, ErrInvalidState},
		},
		{
			name: "idempotency conflict", status: 409,
			body: `{"error":{"code":"idempotency_conflict","message":"key reused with another body"}}`,
			want: APIError{StatusCode: 409, Code: "idempotency_conflict", Message: "key reused with another body"},
			is:   []error{ErrConflict, ErrIdempotencyKey},
		},
		{
			name: "too large", status: 413,
			body: `{"error":{"code":"payload_too_large","message":"body over 1 MiB"}}`,
			want: APIError{StatusCode: 413, Code: "payload_too_large", Message: "body over 1 MiB"},
			is:   []error{ErrPayloadTooLarge},
		},
		{
			name: "rate limited beyond the cap", status: 429,
			header: map[string]string{"Retry-After": "120", "X-Quota-Task-Rate-Limit": "600", "X-Quota-Task-Rate-Remaining": "0"},
			body:   `{"error":{"code":"rate_limited","message":"slow down"}}`,
			want: APIError{StatusCode: 429, Code: "rate_limited", Message: "slow down", RetryAfter: 120 * time.Second,
				Quota: Quota{TaskRate: QuotaCounter{Limit: 600, Remaining: 0, Known: true}}},
			is: []error{ErrRateLimited},
		},
		{
			name: "not the envelope", status: 502, body: `<html>bad gateway</html>`,
			want: APIError{StatusCode: 502, Code: "unknown_error", Message: "http 502"},
			is:   []error{ErrServer}, retries: 2,
		},
		{
			name: "empty body", status: 500,
			want: APIError{StatusCode: 500, Code: "unknown_error", Message: "http 500"},
			is:   []error{ErrServer}, retries: 2,
		},
		{
			name: "envelope without a code", status: 400, body: `{"error":{"message":"?"}}`,
			want: APIError{StatusCode: 400, Code: "unknown_error", Message: "http 400"},
			is:   []error{ErrValidation},
		},
		{
			name: "not implemented is not retried", status: 501,
			body: `{"error":{"code":"not_implemented","message":"no"}}`,
			want: APIError{StatusCode: 501, Code: "not_implemented", Message: "no"},
			is:   []error{ErrServer},
		},
		{
			name: "redirect outside 2xx", status: 304,
			want: APIError{StatusCode: 304, Code: "unknown_error", Message: "http 304"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, tc.status, tc.header, tc.body)
			c := newTestClient(t, srv.URL+"/v1", WithRetryWait(0, time.Millisecond), WithMaxRetryAfter(time.Second))

			_, err := c.Tasks.Get(context.Background(), "task_8fk2")

			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T) is not an *APIError", err, err)
			}
			want := tc.want
			want.Method, want.Path = "GET", "/tasks/task_8fk2"
			diff(t, "APIError", &want, apiErr, cmpopts.EquateEmpty())
			for _, target := range tc.is {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(err, %v) = false", target)
				}
			}
			for _, target := range tc.isNot {
				if errors.Is(err, target) {
					t.Errorf("errors.Is(err, %v) = true", target)
				}
			}
			diff(t, "attempts", 1+tc.retries, len(rec.all()))
			diff(t, "client quota", want.Quota, c.Quota())
		})
	}
}

func TestAPIErrorMessage(t *testing.T) {
	e := &APIError{StatusCode: 404, Code: "not_found", Message: "task not found", Method: "GET", Path: "/tasks/x"}
	diff(t, "Error()", "taskrouting: GET /tasks/x: 404 not_found: task not found", e.Error())
}

func TestSuccessStatuses(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   *TaskRef
	}{
		{"200 with body", 200, `{"id":"task_1","status":"queued","extra":{"nested":[1,2]}}`, &TaskRef{ID: "task_1", Status: "queued"}},
		{"202 unknown status kept", 202, `{"id":"task_1","status":"parked_by_ops"}`, &TaskRef{ID: "task_1", Status: "parked_by_ops"}},
		{"204 no body", 204, ``, &TaskRef{}},
		{"200 empty body", 200, ``, &TaskRef{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serveOnce(t, tc.status, nil, tc.body)
			c := newTestClient(t, srv.URL+"/v1")
			got, err := c.Tasks.Create(context.Background(), CreateTaskParams{Tags: []string{"english"}})
			noError(t, err)
			diff(t, "answer", tc.want, got)
		})
	}
}

func TestUndecodableSuccess(t *testing.T) {
	srv, _ := serveOnce(t, 200, nil, `{"id":`)
	c := newTestClient(t, srv.URL+"/v1")
	_, err := c.Tasks.Get(context.Background(), "task_1")
	if err == nil {
		t.Fatal("want a decode error")
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		t.Errorf("a 200 that does not decode is not an *APIError: %v", err)
	}
}

// TestUnknownValuesDecode: new members, new enum values and new reason kinds
// must never fail a response.
func TestUnknownValuesDecode(t *testing.T) {
	body := `{"id":"t","tags":["a"],"priority":1.5,"status":"escalated","workerId":null,"createdAt":1763700000000.0,
		"meta":null,"escalation":null,"sla":{"expireAfterMs":5000,"maxRejections":3,"onMaxRejections":"park","later":true},
		"schedule":{"notBefore":1763700000000},"geo":{"lat":1}}`
	srv, _ := serveOnce(t, 200, nil, body)
	c := newTestClient(t, srv.URL+"/v1")
	got, err := c.Tasks.Get(context.Background(), "t")
	noError(t, err)
	want := &Task{
		ID: "t", Tags: []string{"a"}, Priority: 1.5, Status: "escalated", CreatedAt: t0,
		SLA:      &SLA{ExpireAfter: 5 * time.Second, MaxRejections: 3, OnMaxRejections: "park"},
		Schedule: &Schedule{NotBefore: t0},
	}
	diff(t, "task", want, got, rawOpts())
}

func TestParamErrorsSendNothing(t *testing.T) {
	srv, rec := serveOnce(t, 200, nil, `{}`)
	c := newTestClient(t, srv.URL+"/v1")
	ctx := context.Background()
	calls := map[string]func() error{
		"Tasks.Get empty":         func() error { _, err := c.Tasks.Get(ctx, ""); return err },
		"Tasks.Get dots":          func() error { _, err := c.Tasks.Get(ctx, ".."); return err },
		"Tasks.Create no tags":    func() error { _, err := c.Tasks.Create(ctx, CreateTaskParams{}); return err },
		"Tasks.Cancel":            func() error { return c.Tasks.Cancel(ctx, "") },
		"Tasks.Assign task":       func() error { _, err := c.Tasks.Assign(ctx, "", AssignTaskParams{WorkerID: "w"}); return err },
		"Tasks.Assign worker":     func() error { _, err := c.Tasks.Assign(ctx, "t", AssignTaskParams{}); return err },
		"Tasks.SetPriority":       func() error { _, err := c.Tasks.SetPriority(ctx, "", 1); return err },
		"Tasks.SuggestWorkers":    func() error { _, err := c.Tasks.SuggestWorkers(ctx, SuggestWorkersParams{}); return err },
		"Tasks.ListPage limit":    func() error { _, err := c.Tasks.ListPage(ctx, ListTasksParams{Limit: -1}); return err },
		"Workers.Upsert dot id":   func() error { _, err := c.Workers.Upsert(ctx, UpsertWorkerParams{ID: "."}); return err },
		"Workers.Patch":           func() error { _, err := c.Workers.Patch(ctx, "", PatchWorkerParams{}); return err },
		"Workers.Get":             func() error { _, err := c.Workers.Get(ctx, ""); return err },
		"Workers.SetAvailability": func() error { _, err := c.Workers.SetAvailability(ctx, "", SetAvailabilityParams{}); return err },
		"Workers.SetAvailability rb": func() error {
			_, err := c.Workers.SetAvailability(ctx, "w", SetAvailabilityParams{Available: true, ReleaseBacklog: true})
			return err
		},
		"Workers.Queue":           func() error { _, err := c.Workers.Queue(ctx, ""); return err },
		"Workers.Remove":          func() error { return c.Workers.Remove(ctx, "") },
		"Decisions.Accept task":   func() error { _, err := c.Decisions.Accept(ctx, "", "w"); return err },
		"Decisions.Accept worker": func() error { _, err := c.Decisions.Accept(ctx, "t", ""); return err },
		"Decisions.Reject":        func() error { _, err := c.Decisions.Reject(ctx, "t", ""); return err },
		"Decisions.Complete":      func() error { _, err := c.Decisions.Complete(ctx, "", "w", nil); return err },
		"Decisions.List limit":    func() error { _, err := c.Decisions.List(ctx, ListDecisionsParams{Limit: -5}); return err },
		"Learning.WorkerStats":    func() error { _, err := c.Learning.WorkerStats(ctx, ""); return err },
		"owned header":            func() error { _, err := c.Workers.List(ctx, WithHeader("authorization", "x")); return err },
		//lint:ignore SA1012 checking the nil-context guard on purpose
		"nil context": func() error { _, err := c.Workers.List(nil); return err },
	}
	for name, call := range calls {
		err := call()
		var pe *ParamError
		if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidParams) {
			t.Errorf("%s: got %v, want a *ParamError matching ErrInvalidParams", name, err)
		}
	}
	diff(t, "requests sent", 0, len(rec.all()))
}
