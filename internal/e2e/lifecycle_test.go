package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestLifecycleExactlyOnce drives every task through create, accept and complete from 16
// goroutines under the same faults as TestCreateExactlyOnce, on every POST (create, accept,
// complete, worker upserts). Afterwards every task is completed, and the server emitted
// exactly one task.matched, one task.accepted and one task.completed per task, all for the
// same worker: a retried accept or complete whose first answer was lost replays it instead
// of running again or failing with invalid_state.
//
// The server runs on a manual clock that never moves, so no offer expires while a call waits
// out a Retry-After: every requeue in this test would be a bug, not a timeout.
func TestLifecycleExactlyOnce(t *testing.T) {
	t.Parallel()
	n := size(300, 10_000)
	const goroutines, workers = 16, 8
	srv := mockserver.Start(t, mockserver.WithClock(mockserver.NewManualClock(t0)), mockserver.WithRequestLog(n*8))
	injectAll(t, srv, reliabilityFaults(30))
	c := newClient(t, srv, failureBudget)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()

	// 8 workers of 9 slots hold 72 offers, more than the 16 tasks in flight at a time, so
	// every new task is offered at once.
	for w := range workers {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: fmt.Sprintf("agent_%d", w), Tags: []string{"x"}, Available: taskrouting.Ptr(true)})
		require.NoError(t, err)
	}

	fanOut(n, goroutines, func(i int) {
		ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"x"}, Meta: map[string]any{"n": i}})
		if !assert.NoError(t, err, "create %d", i) {
			return
		}
		tk, err := c.Tasks.Get(ctx, ref.ID)
		if !assert.NoError(t, err) || !assert.Equal(t, taskrouting.TaskStatusPending, tk.Status, "task %d offered at once", i) {
			return
		}
		accepted, err := c.Decisions.Accept(ctx, tk.ID, tk.WorkerID)
		if !assert.NoError(t, err, "accept %d", i) || !assert.Equal(t, taskrouting.TaskStatusAccepted, accepted.Status) {
			return
		}
		done, err := c.Decisions.Complete(ctx, tk.ID, tk.WorkerID, map[string]any{"n": i})
		if assert.NoError(t, err, "complete %d", i) {
			assert.Equal(t, taskrouting.TaskStatusCompleted, done.Status)
		}
	})

	srv.ClearFaults()
	perCall := make([]int, n)
	for _, tk := range allTasks(ctx, t, c) {
		i, err := metaIndex(tk)
		require.NoError(t, err)
		require.True(t, i >= 0 && i < n, "meta.n %d out of range", i)
		perCall[i]++
		assert.Equal(t, taskrouting.TaskStatusCompleted, tk.Status, "task %s (call %d)", tk.ID, i)
	}
	want := make([]int, n)
	for i := range want {
		want[i] = 1
	}
	assert.Empty(t, cmp.Diff(want, perCall), "one task per call (index = call, value = copies)")

	// The event log is the server's own account of every transition.
	type story struct{ matched, accepted, completed, other []string } // worker ids per event kind
	stories := map[string]*story{}
	for _, ev := range srv.Events() {
		s := stories[ev.TaskID]
		if s == nil {
			s = &story{}
			stories[ev.TaskID] = s
		}
		switch ev.Kind {
		case "task.matched":
			s.matched = append(s.matched, ev.WorkerID)
		case "task.accepted":
			s.accepted = append(s.accepted, ev.WorkerID)
		case "task.completed":
			s.completed = append(s.completed, ev.WorkerID)
		default:
			s.other = append(s.other, string(ev.Kind))
		}
	}
	assert.Len(t, stories, n)
	var broken []string
	for id, s := range stories {
		if len(s.matched) != 1 || len(s.other) != 0 ||
			!cmp.Equal(s.matched, s.accepted) || !cmp.Equal(s.accepted, s.completed) {
			broken = append(broken, fmt.Sprintf("%s: %+v", id, *s))
		}
	}
	assert.Empty(t, broken, "each task: one match, one accept and one complete, same worker, nothing else")
	t.Logf("%d tasks completed, %d events; server saw %v", n, len(srv.Events()), faultCounts(srv))
}
