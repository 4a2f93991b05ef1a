package taskrouting_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// startMock is the mock server the examples below run against.
func startMock() *mockserver.Server {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

// A middleware sees each call once, however many attempts it takes, with
// the operation it sends; here it stamps a header and prints the outcome.
func ExampleWithMiddleware() {
	srv := startMock()
	defer srv.Close()
	audit := func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
		req.Header.Set("X-Tenant", "acme")
		info := taskrouting.CallInfoFromContext(req.Context())
		resp, err := next(req)
		if err == nil {
			fmt.Println(info.OperationID(), info.PathTemplate(), resp.StatusCode, len(info.Attempts()), "attempt(s)")
		}
		return resp, err
	}
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithMiddleware(audit))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
	if err != nil {
		log.Fatal(err)
	}
	_, _ = c.Tasks.Get(ctx, ref.ID)
	// Output:
	// tasks.create /tasks 202 1 attempt(s)
	// tasks.get /tasks/{id} 200 1 attempt(s)
}

// Client.Do sends an operation by method and path, through the same
// credential, retries, idempotency keys, quota and errors as the typed
// methods: for an operation this version does not model yet.
func ExampleClient_Do() {
	srv := startMock()
	defer srv.Close()
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		log.Fatal(err)
	}
	var stats json.RawMessage
	if err := c.Do(context.Background(), "GET", "/stats/sla?tag=english", nil, &stats); err != nil {
		log.Fatal(err)
	}
	err = c.Do(context.Background(), "GET", "/tasks/no_such_task", nil, nil)
	var apiErr *taskrouting.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.RequestID != "")
	}
	// Output:
	// 404 not_found true
}

// WithJSONSet adds a body member the params type lacks.
func ExampleWithJSONSet() {
	srv := startMock()
	defer srv.Close()
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}},
		taskrouting.WithJSONSet("meta.source", "crm"))
	if err != nil {
		log.Fatal(err)
	}
	task, err := c.Tasks.Get(ctx, ref.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(task.Meta["source"])
	// Output:
	// crm
}

// The webhook-safe accept: a second accept of the same match is done, not
// an error to retry.
func ExampleDecisionsService_EnsureAccepted() {
	srv := startMock()
	defer srv.Close()
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"english"}, Available: taskrouting.Ptr(true)}); err != nil {
		log.Fatal(err)
	}
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
	if err != nil {
		log.Fatal(err)
	}
	for delivery := 1; delivery <= 2; delivery++ { // a task.matched delivered twice
		_, err := c.Decisions.Accept(ctx, ref.ID, "ana")
		fmt.Println("delivery", delivery, "Accept: invalid_state", errors.Is(err, taskrouting.ErrInvalidState))
	}
	got, err := c.Decisions.EnsureAccepted(ctx, ref.ID, "ana")
	fmt.Println("EnsureAccepted:", got.Status, err)
	// Output:
	// delivery 1 Accept: invalid_state false
	// delivery 2 Accept: invalid_state true
	// EnsureAccepted: accepted <nil>
}
