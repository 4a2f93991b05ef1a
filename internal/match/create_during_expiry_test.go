package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCreateAtAnExpiryIsOffered: under the every-tag rules a task created at the instant
// another task's offer expires is offered to the idle worker who can take it; the expiry
// runs first, in the same command, and its task is offered again.
func TestCreateAtAnExpiryIsOffered(t *testing.T) {
	h := newHarness(t, Config{OfferTimeout: 10 * time.Second})
	h.worker("ana", "x")
	h.worker("bo", "y")
	h.task("t1", "x") // offered to ana until now+10s
	at := h.now.Add(10 * time.Second)
	h.ok(h.e.CreateTask(at, TaskInput{ID: "t2", Tags: []string{"y"}}))
	want := map[string]string{"t1": "pending:ana", "t2": "pending:bo"} // pending: offered, not yet accepted
	if diff := cmp.Diff(want, h.state()); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"task.matched t1 ana", "task.expired t1 ana", "task.matched t1 ana", "task.matched t2 bo"}, h.kinds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
