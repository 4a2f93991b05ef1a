package taskrouting_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// The id the server gave an answer reaches the caller: on Response for a
// success, on *APIError for a failure, and it is the id the server logged.
func TestRequestIDReachesTheCaller(t *testing.T) {
	srv := mockserver.Start(t)
	c := mockClient(t, srv, taskrouting.WithMaxRetries(0))
	ctx := context.Background()

	var ok taskrouting.Response
	if _, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}}, taskrouting.WithResponseInto(&ok)); err != nil {
		t.Fatal(err)
	}
	_, err := c.Tasks.Get(ctx, "no_such_task")
	var apiErr *taskrouting.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want *APIError", err)
	}
	if err := srv.InjectFault(mockserver.Fault{Path: "/workers", Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Workers.List(ctx)
	var faultErr *taskrouting.APIError
	if !errors.As(err, &faultErr) {
		t.Fatalf("err = %v, want *APIError", err)
	}

	var logged []string
	for _, r := range srv.Requests() {
		logged = append(logged, r.RequestID)
	}
	got := []string{ok.RequestID, apiErr.RequestID, faultErr.RequestID}
	if diff := cmp.Diff(logged, got); diff != "" {
		t.Errorf("request ids (-server logged +client saw):\n%s", diff)
	}
	for _, id := range got {
		if id == "" {
			t.Errorf("an answer reached the caller without its request id: %q", got)
		}
	}
}
