package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

func ExampleNewClient() {
	c, err := taskrouting.NewClient("https://api.example.com/v1/", "sk_test_example",
		taskrouting.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}), // bounds each attempt
		taskrouting.WithMaxRetries(3),
		taskrouting.WithMaxRetryAfter(30*time.Second),
		taskrouting.WithUserAgent("billing-service/1.4"),
	)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.BaseURL(), c.Sandbox())
	fmt.Println(c) // never shows the key

	_, err = taskrouting.NewClient("api.example.com/v1", "sk_test_example")
	fmt.Println(err)
	// Output:
	// https://api.example.com/v1 true
	// taskrouting.Client{baseURL: "https://api.example.com/v1", sandbox: true, apiKey: [redacted]}
	// taskrouting: invalid parameter baseURL: needs an http or https scheme
}

// Every POST carries an Idempotency-Key, generated per call and reused on
// its retries. Set your own to make a repeat of the same logical call (say,
// after your process restarted) return the first answer.
func ExampleWithIdempotencyKey() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	params := taskrouting.CreateTaskParams{Tags: []string{"english"}, Meta: map[string]any{"order": "A-77"}}

	first, err := c.Tasks.Create(ctx, params, taskrouting.WithIdempotencyKey("order-A-77"))
	if err != nil {
		panic(err)
	}
	again, err := c.Tasks.Create(ctx, params, taskrouting.WithIdempotencyKey("order-A-77"))
	if err != nil {
		panic(err)
	}
	fmt.Println(first.ID == again.ID)

	// The same key with another body is a conflict, not a silent replay.
	params.Priority = 99
	_, err = c.Tasks.Create(ctx, params, taskrouting.WithIdempotencyKey("order-A-77"))
	fmt.Println(errors.Is(err, taskrouting.ErrIdempotencyKey))
	// Output:
	// true
	// true
}

// One line per attempt; never the key, headers or bodies.
func ExampleWithLogger() {
	_, sb := newSandbox()
	defer sb.Close()
	err := sb.srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/tasks", Status: 503, Times: 1})
	if err != nil {
		panic(err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{} // vary from run to run
			}
			return a
		},
	}))
	c, err := taskrouting.NewClient(sb.srv.URL(), sb.srv.APIKey(),
		taskrouting.WithLogger(logger), taskrouting.WithRetryWait(time.Millisecond, time.Millisecond))
	if err != nil {
		panic(err)
	}

	if _, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{Tags: []string{"english"}}); err != nil {
		panic(err)
	}
	// Output:
	// level=WARN msg="taskrouting request" method=POST path=/tasks status=503 attempt=1 retrying=true
	// level=DEBUG msg="taskrouting request" method=POST path=/tasks status=202 attempt=2 retrying=false
}

func ExampleAPIError() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.worker("agent_2", "french")
	sb.task("task_1", 0, "english") // offered to agent_1
	ctx := context.Background()

	// Only the offered worker may accept.
	_, err := c.Decisions.Accept(ctx, "task_1", "agent_2")
	var apiErr *taskrouting.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.Method, apiErr.Path)
	}
	fmt.Println(errors.Is(err, taskrouting.ErrConflict), errors.Is(err, taskrouting.ErrInvalidState))

	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"}})
	fmt.Println(errors.Is(err, taskrouting.ErrTaskExists))

	_, err = c.Tasks.Get(ctx, "task_404")
	fmt.Println(errors.Is(err, taskrouting.ErrNotFound))
	// Output:
	// 409 invalid_state POST /tasks/task_1/accept
	// true true
	// true
	// true
}

// A Retry-After longer than the client will wait is returned at once, so the
// caller can queue the work for later instead of blocking.
func ExampleAPIError_retryAfter() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	err := sb.srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/tasks", Status: 429, RetryAfter: 5 * time.Minute})
	if err != nil {
		panic(err)
	}

	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
	var apiErr *taskrouting.APIError
	if errors.As(err, &apiErr) && errors.Is(err, taskrouting.ErrRateLimited) {
		fmt.Println("retry in", apiErr.RetryAfter)
	}
	// Output:
	// retry in 5m0s
}

func ExampleParamError() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()

	// Caught before any request is sent.
	_, err := c.Tasks.Get(ctx, "")
	fmt.Println(err)
	fmt.Println(errors.Is(err, taskrouting.ErrInvalidParams))
	fmt.Println("requests sent:", len(sb.srv.Requests()))
	// Output:
	// taskrouting: invalid parameter taskID: must not be empty
	// true
	// requests sent: 0
}

func ExampleClient_Quota() {
	c, sb := newSandbox(mockserver.WithLimits(mockserver.Limits{TaskRate: 100, Workers: 50}))
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english")

	// The latest X-Quota-* headers, merged over every answer so far.
	q := c.Quota()
	fmt.Printf("task-rate %d/%d, workers %d/%d\n",
		q.TaskRate.Remaining, q.TaskRate.Limit, q.Workers.Remaining, q.Workers.Limit)
	// Output:
	// task-rate 99/100, workers 49/50
}
