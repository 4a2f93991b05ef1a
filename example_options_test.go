package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// ExampleWithMaxRetries turns retries off for one call, so a 503 comes back
// at once, while the client's other calls keep retrying.
func ExampleWithMaxRetries() {
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		attempts.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":{"code":"internal_error","message":"maintenance"}}`)
	}))
	defer srv.Close()
	c, err := taskrouting.NewClient(srv.URL+"/v1", "sk_test_example", taskrouting.WithRetryWait(0, time.Millisecond))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	_, err = c.Workers.List(ctx, taskrouting.WithMaxRetries(0))
	fmt.Println(errors.Is(err, taskrouting.ErrServer), "after", attempts.Swap(0), "attempt")
	_, err = c.Workers.List(ctx)
	fmt.Println(errors.Is(err, taskrouting.ErrServer), "after", attempts.Load(), "attempts")
	// Output:
	// true after 1 attempt
	// true after 3 attempts
}

// ExampleWithTimeout gives one call a shorter bound per attempt than the
// client's; the context still bounds the call as a whole.
func ExampleWithTimeout() {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select { // a server that never answers in time
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := taskrouting.NewClient(srv.URL+"/v1", "sk_test_example", taskrouting.WithMaxRetries(0))
	if err != nil {
		panic(err)
	}

	_, err = c.Tasks.Get(context.Background(), "task_8fk2", taskrouting.WithTimeout(50*time.Millisecond))
	var netErr interface{ Timeout() bool }
	fmt.Println("timed out:", errors.As(err, &netErr) && netErr.Timeout())
	// Output:
	// timed out: true
}

// ExampleWithResponseInto reads the HTTP side of a call: status, headers,
// the server's request id and how many attempts it took.
func ExampleWithResponseInto() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Request-Id", "req_7Hq2")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprint(w, `{"id":"task_8fk2","status":"queued"}`)
	}))
	defer srv.Close()
	c, err := taskrouting.NewClient(srv.URL+"/v1", "sk_test_example")
	if err != nil {
		panic(err)
	}

	var resp taskrouting.Response
	ref, err := c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{Tags: []string{"billing"}},
		taskrouting.WithResponseInto(&resp))
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.ID, resp.StatusCode, resp.RequestID, resp.Attempts)
	// Output:
	// task_8fk2 202 req_7Hq2 1
}
