package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// fakeAPI stands in for the service so the example runs offline; real code
// points the client at the API root (or at the mock server's URL).
func fakeAPI() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("X-Quota-Task-Rate-Limit", "600")
		w.Header().Set("X-Quota-Task-Rate-Remaining", "599")
		switch r.Method + " " + r.URL.Path {
		case "POST /v1/workers":
			fmt.Fprint(w, `{"id":"agent_1"}`)
		case "POST /v1/tasks":
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprint(w, `{"id":"task_8fk2","status":"queued"}`)
		case "GET /v1/tasks/task_8fk2":
			fmt.Fprint(w, `{"id":"task_8fk2","tags":["english","billing"],"priority":90,"status":"pending","workerId":"agent_1","createdAt":1763700000000,"meta":null}`)
		case "POST /v1/tasks/task_8fk2/accept":
			fmt.Fprint(w, `{"id":"task_8fk2","status":"accepted"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"not_found","message":"no such thing"}}`)
		}
	}))
}

func Example() {
	srv := fakeAPI()
	defer srv.Close()
	ctx := context.Background()

	c, err := taskrouting.NewClient(srv.URL+"/v1", "sk_test_example")
	if err != nil {
		panic(err)
	}
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{
		ID: "agent_1", Tags: []string{"english", "billing"}, Available: taskrouting.Ptr(true),
	})
	if err != nil {
		panic(err)
	}
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english", "billing"}, Priority: 90})
	if err != nil {
		panic(err)
	}
	task, err := c.Tasks.Get(ctx, ref.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(task.ID, task.Status, "offered to", task.WorkerID, "at", task.CreatedAt.Format("15:04 UTC"))

	accepted, err := c.Decisions.Accept(ctx, task.ID, task.WorkerID)
	if err != nil {
		panic(err)
	}
	fmt.Println(accepted.Status)

	_, err = c.Tasks.Get(ctx, "task_missing")
	var apiErr *taskrouting.APIError
	if errors.As(err, &apiErr) && errors.Is(err, taskrouting.ErrNotFound) {
		fmt.Println(apiErr.StatusCode, apiErr.Code)
	}
	fmt.Println("task-rate remaining:", c.Quota().TaskRate.Remaining)
	// Output:
	// task_8fk2 pending offered to agent_1 at 04:40 UTC
	// accepted
	// 404 not_found
	// task-rate remaining: 599
}
