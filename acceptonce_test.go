package taskrouting_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// offered makes one available worker and one task offered to it.
func offered(t *testing.T, c *taskrouting.Client, worker, tag string) string {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: worker, Tags: []string{tag}, Available: taskrouting.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{tag}})
	if err != nil {
		t.Fatal(err)
	}
	return ref.ID
}

// A redelivered task.matched: the first delivery's accept went through
// (its answer lost, or the handler failed after it), and the second
// delivery's accept must count as done.
func TestEnsureAcceptedOnARedelivery(t *testing.T) {
	srv := mockserver.Start(t)
	c := mockClient(t, srv, taskrouting.WithMaxRetries(0))
	ctx := context.Background()
	id := offered(t, c, "agent_1", "english")
	if _, err := c.Decisions.Accept(ctx, id, "agent_1"); err != nil {
		t.Fatal(err)
	}
	// A plain Accept now fails: the trap.
	if _, err := c.Decisions.Accept(ctx, id, "agent_1"); !errors.Is(err, taskrouting.ErrInvalidState) {
		t.Fatalf("second Accept: %v, want invalid_state", err)
	}
	ref, err := c.Decisions.EnsureAccepted(ctx, id, "agent_1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&taskrouting.TaskRef{ID: id, Status: taskrouting.TaskStatusAccepted}, ref); diff != "" {
		t.Errorf("ref (-want +got):\n%s", diff)
	}
	if _, err := c.Decisions.Complete(ctx, id, "agent_1", nil); err != nil {
		t.Fatal(err)
	}
	ref, err = c.Decisions.EnsureAccepted(ctx, id, "agent_1")
	if err != nil || ref.Status != taskrouting.TaskStatusCompleted {
		t.Errorf("after completion: %+v, %v; want completed, nil", ref, err)
	}
}

func TestEnsureAcceptedRefusesWhatMovedOn(t *testing.T) {
	srv := mockserver.Start(t)
	c := mockClient(t, srv)
	ctx := context.Background()
	id := offered(t, c, "agent_1", "english")
	if err := c.Tasks.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	_, err := c.Decisions.EnsureAccepted(ctx, id, "agent_1")
	var apiErr *taskrouting.APIError
	if !errors.As(err, &apiErr) || apiErr.Path != "/tasks/"+id+"/accept" || !errors.Is(err, taskrouting.ErrInvalidState) {
		t.Errorf("a cancelled task: %v, want the accept's 409 invalid_state", err)
	}
	other := offered(t, c, "agent_2", "french")
	if _, err := c.Decisions.EnsureAccepted(ctx, other, "agent_2"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Decisions.EnsureAccepted(ctx, other, "agent_1"); !errors.Is(err, taskrouting.ErrInvalidState) {
		t.Errorf("a task another worker holds: %v, want invalid_state", err)
	}
}

// The other safe pattern: an idempotency key derived from the event id
// makes the redelivery's accept a replay of the first one's answer.
func TestAcceptWithAnEventKeyReplays(t *testing.T) {
	srv := mockserver.Start(t)
	c := mockClient(t, srv)
	ctx := context.Background()
	id := offered(t, c, "agent_1", "english")
	key := taskrouting.WithIdempotencyKey("accept:evt_123")
	if _, err := c.Decisions.Accept(ctx, id, "agent_1", key); err != nil {
		t.Fatal(err)
	}
	var resp taskrouting.Response
	ref, err := c.Decisions.Accept(ctx, id, "agent_1", key, taskrouting.WithResponseInto(&resp))
	if err != nil {
		t.Fatalf("the redelivery's accept under the same key: %v", err)
	}
	if ref.Status != taskrouting.TaskStatusAccepted || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay: status %q, Idempotent-Replayed %q", ref.Status, resp.Header.Get("Idempotent-Replayed"))
	}
}
