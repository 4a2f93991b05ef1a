package taskrouting_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// inProcessClient is a client whose requests never touch a socket: the
// mock server's handler serves them in this process.
func inProcessClient(t *testing.T, srv *mockserver.Server, opts ...taskrouting.RequestOption) *taskrouting.Client {
	t.Helper()
	opts = append([]taskrouting.RequestOption{taskrouting.WithRetryWait(0, 0),
		taskrouting.WithHTTPClient(&http.Client{Transport: srv.Transport()})}, opts...)
	c, err := taskrouting.NewClient("http://mock.invalid"+mockserver.BasePath, srv.APIKey(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestInProcessTransportRunsTheClientsRealPath(t *testing.T) {
	srv, err := mockserver.NewUnstarted()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if srv.URL() != "" {
		t.Fatalf("an unstarted server listens at %s", srv.URL())
	}
	c := inProcessClient(t, srv)
	ctx := context.Background()
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"english"}, Available: taskrouting.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	// A 503, then a commit whose answer is lost: the retries, with the
	// call's one idempotency key, still make exactly one task.
	if err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/tasks", Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	if err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/tasks", DropAfterCommit: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	var resp taskrouting.Response
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}}, taskrouting.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.Tasks.Get(ctx, ref.ID)
	if err != nil || task.WorkerID != "ana" {
		t.Fatalf("task %+v, %v: want it offered to ana", task, err)
	}
	var tasks int
	for _, e := range srv.Events() {
		if e.Kind == "task.matched" {
			tasks++
		}
	}
	if resp.Attempts != 3 || tasks != 1 || resp.RequestID == "" {
		t.Errorf("attempts %d (want 3), matches %d (want 1), request id %q", resp.Attempts, tasks, resp.RequestID)
	}
	_, err = c.Tasks.Get(ctx, "nope")
	if !errors.Is(err, taskrouting.ErrNotFound) {
		t.Errorf("unknown task: %v, want ErrNotFound", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Tasks.Get(cancelled, ref.ID); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}
