package mockserver_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// storyStart is where the examples' manual clocks start, so the ids and
// times they print are the same on every run: 2025-11-21 04:40 UTC.
const storyStart = 1763700000000 // Unix ms

// connect returns a client for srv; the examples' setup, not their point.
func connect(srv *mockserver.Server, opts ...taskrouting.RequestOption) *taskrouting.Client {
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), opts...)
	if err != nil {
		panic(err)
	}
	return c
}

// agent upserts an available worker carrying tags.
func agent(c *taskrouting.Client, id string, tags ...string) {
	_, err := c.Workers.Upsert(context.Background(), taskrouting.UpsertWorkerParams{ID: id, Tags: tags, Available: taskrouting.Ptr(true)})
	if err != nil {
		panic(err)
	}
}

// In a test, Start is New plus t.Fatal on error and Close on t.Cleanup.
// (This example is compiled, not run: it needs a *testing.T.)
func ExampleStart() {
	testNoMatch := func(t *testing.T) {
		clk := mockserver.NewManualClock(time.UnixMilli(storyStart))
		srv := mockserver.Start(t, mockserver.WithClock(clk)) // closed on t.Cleanup
		c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{Tags: []string{"english"}})
		if err != nil || len(srv.Events()) != 0 {
			t.Errorf("create: %v, events: %v; want a queued task: nobody carries english", err, srv.Events())
		}
	}
	_ = testNoMatch
}

func ExampleNew() {
	// Fixed credentials and seed make a run reproducible; without them the
	// key and secret are random.
	srv, err := mockserver.New(
		mockserver.WithAPIKey("sk_test_example"),
		mockserver.WithSigningSecret("whsec_example"),
		mockserver.WithSeed(42),
	)
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	fmt.Println(strings.HasPrefix(srv.URL(), "http://127.0.0.1:"), strings.HasSuffix(srv.URL(), "/v1"))
	fmt.Println(srv.APIKey(), srv.SigningSecret(), srv.WorkspaceID())

	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		panic(err)
	}
	fmt.Println("sandbox:", c.Sandbox())
	// Output:
	// true true
	// sk_test_example whsec_example ws_sandbox
	// sandbox: true
}

// An offer that is not answered in time expires and the task goes to the
// next worker. The clock only moves when the test moves it, and Advance
// returns after everything due on the way has happened.
func ExampleManualClock_Advance() {
	clk := mockserver.NewManualClock(time.UnixMilli(storyStart))
	srv, err := mockserver.New(mockserver.WithClock(clk))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c := connect(srv)
	agent(c, "agent_1", "english")
	agent(c, "agent_2", "english")
	ctx := context.Background()
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{
		ID: "task_1", Tags: []string{"english"},
		// "block": a worker who let the offer expire does not get it again.
		Escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: 30 * time.Second, OnNoResponse: "block"}),
	})
	if err != nil {
		panic(err)
	}

	clk.Advance(29 * time.Second)
	task, _ := c.Tasks.Get(ctx, "task_1")
	fmt.Println("after 29s:", task.Status, task.WorkerID)

	clk.Advance(time.Second)
	task, _ = c.Tasks.Get(ctx, "task_1")
	fmt.Println("after 30s:", task.Status, task.WorkerID)
	for _, ev := range srv.Events() {
		fmt.Println(ev.Kind, ev.WorkerID, ev.CreatedAt.Sub(time.UnixMilli(storyStart)))
	}
	// Output:
	// after 29s: pending agent_1
	// after 30s: pending agent_2
	// task.matched agent_1 0s
	// task.expired agent_1 30s
	// task.matched agent_2 30s
}

// Dropping the connection after the change is committed is what a flaky
// network does; the client's retry carries the same Idempotency-Key, so the
// server answers it from its store and no second task is made.
func ExampleServer_InjectFault() {
	srv, err := mockserver.New()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c := connect(srv, taskrouting.WithRetryWait(time.Millisecond, time.Millisecond))
	ctx := context.Background()

	err = srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/tasks", DropAfterCommit: true, Times: 1})
	if err != nil {
		panic(err)
	}
	if _, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}}); err != nil {
		panic(err)
	}
	for _, r := range srv.Requests() {
		fmt.Printf("%s %s %d fault=%q\n", r.Method, r.Path, r.StatusCode, r.Fault)
	}
	page, err := c.Tasks.ListPage(ctx, taskrouting.ListTasksParams{Status: taskrouting.TaskStatusAll})
	if err != nil {
		panic(err)
	}
	fmt.Println("tasks:", len(page.Tasks))

	err = srv.InjectFault(mockserver.Fault{Status: 200})
	fmt.Println(errors.Is(err, mockserver.ErrInvalidFault))
	// Output:
	// POST /v1/tasks 0 fault="drop-after-commit"
	// POST /v1/tasks 202 fault=""
	// tasks: 1
	// true
}

// A receiver that fails gets the event again after a backoff on the server's
// clock; Deliveries shows every attempt, Events what was emitted.
func ExampleServer_Deliveries() {
	clk := mockserver.NewManualClock(time.UnixMilli(storyStart))
	const secret = "whsec_example"
	v, err := webhook.NewVerifier(secret, webhook.WithClock(clk.Now))
	if err != nil {
		panic(err)
	}
	var attempts atomic.Int32
	receiver := httptest.NewServer(webhook.Handler(v, func(ctx context.Context, ev webhook.Event) error {
		if attempts.Add(1) == 1 {
			return errors.New("not ready yet")
		}
		return nil
	}))
	defer receiver.Close()

	srv, err := mockserver.New(mockserver.WithClock(clk), mockserver.WithSigningSecret(secret),
		mockserver.WithWebhookURL(receiver.URL), mockserver.WithDeliveryPolicy(mockserver.DeliveryPolicy{InitialBackoff: time.Second}))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c := connect(srv)
	agent(c, "agent_1", "english")
	if _, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"}}); err != nil {
		panic(err)
	}

	// The first attempt happens at once; Flush waits for it without sleeping.
	if err := srv.Flush(context.Background()); err != nil {
		panic(err)
	}
	clk.Advance(time.Second) // the retry falls due and is made
	for _, ev := range srv.Events() {
		fmt.Println("event", ev.ID, ev.Kind, ev.TaskID, ev.WorkerID)
	}
	for _, d := range srv.Deliveries() {
		fmt.Println("attempt", d.Attempt, d.EventID, d.StatusCode, d.Outcome, "at +"+d.At.Sub(time.UnixMilli(storyStart)).String())
	}
	// Output:
	// event evt_1 task.matched task_1 agent_1
	// attempt 1 evt_1 500 retrying at +0s
	// attempt 2 evt_1 204 delivered at +1s
}

func ExampleServer_Reset() {
	srv, err := mockserver.New()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c := connect(srv)
	agent(c, "agent_1", "english")
	ctx := context.Background()

	// Between subtests: a clean workspace, same URL, key and secret.
	srv.Reset()
	fmt.Println("events:", len(srv.Events()), "requests:", len(srv.Requests()))
	list, err := c.Workers.List(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("workers:", list.Count)
	// Output:
	// events: 0 requests: 0
	// workers: 0
}

// Handler serves the API without a socket, e.g. through httptest.NewRecorder.
func ExampleServer_Handler() {
	srv, err := mockserver.NewUnstarted(mockserver.WithAPIKey("sk_test_example"))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	h := srv.Handler()

	req := httptest.NewRequest(http.MethodPost, mockserver.BasePath+"/workers", strings.NewReader(`{"id":"agent_1","tags":["english"]}`))
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))

	req = httptest.NewRequest(http.MethodGet, mockserver.BasePath+"/workers/agent_1", nil)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req) // no key
	fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
	// Output:
	// 200 {"id":"agent_1"}
	// 401 {"error":{"code":"unauthorized","message":"missing or invalid API key"}}
}

func ExampleServer_Requests() {
	srv, err := mockserver.New()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c := connect(srv)
	agent(c, "agent_1", "english")
	_, _ = c.Tasks.Get(context.Background(), "task_404")

	for _, r := range srv.Requests() {
		fmt.Println(r.Method, r.Path, r.StatusCode, r.Header.Get("Authorization"), r.Header.Get("Idempotency-Key") != "")
	}
	// Output:
	// POST /v1/workers 200 Bearer [REDACTED] true
	// GET /v1/tasks/task_404 404 Bearer [REDACTED] false
}

// Each key reaches its own workspace: one never sees another's objects.
func ExampleWithExtraAPIKey() {
	srv, err := mockserver.New(mockserver.WithExtraAPIKey("sk_test_tenant_b"))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	tenantA := connect(srv)
	tenantB, err := taskrouting.NewClient(srv.URL(), "sk_test_tenant_b")
	if err != nil {
		panic(err)
	}
	agent(tenantA, "agent_1", "english")

	_, err = tenantB.Workers.Get(context.Background(), "agent_1")
	fmt.Println(errors.Is(err, taskrouting.ErrNotFound))
	// Output:
	// true
}

// Plan limits are off by default. The task-rate window runs on the server's
// clock, so a test sees the 429 and its end without waiting.
func ExampleWithLimits() {
	clk := mockserver.NewManualClock(time.UnixMilli(storyStart))
	srv, err := mockserver.New(mockserver.WithClock(clk),
		mockserver.WithLimits(mockserver.Limits{TaskRate: 2, TaskRateWindow: time.Minute}))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c := connect(srv, taskrouting.WithMaxRetries(0)) // see the 429 rather than wait it out
	ctx := context.Background()
	create := func() error {
		_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
		return err
	}

	fmt.Println(create(), create())
	err = create()
	var apiErr *taskrouting.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, "retry after", apiErr.RetryAfter)
	}
	clk.Advance(time.Minute)
	fmt.Println(create())
	// Output:
	// <nil> <nil>
	// 429 rate_limited retry after 1m0s
	// <nil>
}

// By default (the platform's rules) a worker carrying any one tag of a task
// is offered it; the every-tag rules of earlier releases are a matcher option.
func ExampleWithMatcher() {
	for _, m := range []mockserver.MatcherConfig{{}, {Rules: mockserver.RulesEveryTag}} {
		srv, err := mockserver.New(mockserver.WithMatcher(m))
		if err != nil {
			panic(err)
		}
		c := connect(srv)
		agent(c, "agent_1", "english")
		ctx := context.Background()
		if _, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english", "billing"}}); err != nil {
			panic(err)
		}
		task, err := c.Tasks.Get(ctx, "task_1")
		if err != nil {
			panic(err)
		}
		fmt.Printf("rules %q: %s %q\n", m.Rules, task.Status, task.WorkerID)
		srv.Close()
	}
	// Output:
	// rules "": pending "agent_1"
	// rules "every-tag": queued ""
}

// After the last attempt an event is kept as failed, visible to the test,
// and the next event for that endpoint proceeds: here the task.expired of
// the offer that agent_1 never saw.
func ExampleWithDeliveryPolicy() {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable) // always down
	}))
	defer receiver.Close()
	clk := mockserver.NewManualClock(time.UnixMilli(storyStart))
	srv, err := mockserver.New(mockserver.WithClock(clk), mockserver.WithWebhookURL(receiver.URL),
		mockserver.WithDeliveryPolicy(mockserver.DeliveryPolicy{MaxAttempts: 3, InitialBackoff: time.Second, MaxBackoff: time.Minute}))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c := connect(srv)
	agent(c, "agent_1", "english")
	if _, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"}}); err != nil {
		panic(err)
	}

	clk.Advance(time.Minute) // waits for the first attempt, then runs the retries due
	for _, d := range srv.Deliveries() {
		fmt.Println("attempt", d.Attempt, d.Kind, d.StatusCode, d.Outcome, "at +"+d.At.Sub(time.UnixMilli(storyStart)).String())
	}
	// Output:
	// attempt 1 task.matched 503 retrying at +0s
	// attempt 2 task.matched 503 retrying at +1s
	// attempt 3 task.matched 503 failed at +3s
	// attempt 1 task.expired 503 retrying at +1m0s
}

// Events are recorded with or without webhook URLs; Payload is the exact
// body every endpoint receives.
func ExampleServer_Events() {
	clk := mockserver.NewManualClock(time.UnixMilli(storyStart))
	srv, err := mockserver.New(mockserver.WithClock(clk))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c := connect(srv)
	agent(c, "agent_1", "english")
	if _, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"}, Priority: 5}); err != nil {
		panic(err)
	}

	ev := srv.Events()[0]
	fmt.Println(ev.ID, ev.Kind, ev.TaskID, ev.WorkerID)
	fmt.Println(string(ev.Payload))
	// Output:
	// evt_1 task.matched task_1 agent_1
	// {"event":"task.matched","id":"evt_1","createdAt":1763700000000,"taskId":"task_1","workerId":"agent_1","decisionId":"dec_1","matchedAt":1763700000000,"expiresAt":1763700060000,"priority":5,"tags":["english"]}
}
