package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// defaultCap is the workspace default of maxBacklogSize (docs/contract.md, section 7).
const defaultCap = 9

// checkLoadInvariants checks the matcher invariants of docs/contract.md, section 7, after the load, through the
// client's reads (workers, their queues, every task) and the server's event log:
//   - no worker holds more offers than its cap, and queueDepth agrees with its queue;
//   - a pending task is in exactly one queue, its worker's, and that worker carries every
//     tag of the task and is not vetoed for it; a task in any other state is in no queue;
//   - every successful create exists, and nothing exists that no client tried to create;
//   - replaying each task's events gives a legal story: only the offered worker accepts,
//     only the accepting worker completes, a rejecting or vetoed worker is never offered the
//     task again, nothing follows a terminal state, and the story ends in the listed state.
func checkLoadInvariants(ctx context.Context, t *testing.T, srv *mockserver.Server, c *taskrouting.Client, led *loadLedger) {
	t.Helper()
	var broken []string
	fail := func(format string, args ...any) { broken = append(broken, fmt.Sprintf(format, args...)) }

	list, err := c.Workers.List(ctx)
	require.NoError(t, err)
	workerTags := map[string][]string{}
	holders := map[string][]string{} // task id -> workers holding it in their queue
	for _, id := range list.Workers {
		w, err := c.Workers.Get(ctx, id)
		require.NoError(t, err)
		q, err := c.Workers.Queue(ctx, id)
		require.NoError(t, err)
		workerTags[id] = w.Tags
		capacity := defaultCap
		if w.MaxBacklogSize != nil {
			capacity = *w.MaxBacklogSize
		}
		if len(q.TaskIDs) > capacity {
			fail("worker %s holds %d offers, cap %d", id, len(q.TaskIDs), capacity)
		}
		if w.QueueDepth != len(q.TaskIDs) {
			fail("worker %s: queueDepth %d, queue of %d", id, w.QueueDepth, len(q.TaskIDs))
		}
		for _, tid := range q.TaskIDs {
			holders[tid] = append(holders[tid], id)
		}
	}

	tasks := map[string]taskrouting.Task{}
	counts := map[taskrouting.TaskStatus]int{}
	for _, tk := range allTasks(ctx, t, c) {
		tasks[tk.ID] = tk
		counts[tk.Status]++
		if !led.created[tk.ID] && !led.ambiguous[tk.ID] {
			fail("task %s exists but no create for it was sent", tk.ID)
		}
		switch tk.Status {
		case taskrouting.TaskStatusPending:
			if h := holders[tk.ID]; len(h) != 1 || h[0] != tk.WorkerID {
				fail("pending task %s offered to %q but held by %v", tk.ID, tk.WorkerID, h)
			}
		case taskrouting.TaskStatusQueued, taskrouting.TaskStatusAccepted, taskrouting.TaskStatusCompleted, taskrouting.TaskStatusCancelled:
			if h := holders[tk.ID]; len(h) != 0 {
				fail("%s task %s still in the queues of %v", tk.Status, tk.ID, h)
			}
		default:
			fail("task %s in unexpected status %q", tk.ID, tk.Status)
		}
	}
	for id := range led.created {
		if _, ok := tasks[id]; !ok {
			fail("task %s was created but is missing", id)
		}
	}

	for id, s := range replayEvents(srv.Events()) {
		tk, ok := tasks[id]
		if !ok {
			fail("events for unknown task %s", id)
			continue
		}
		for _, m := range s.matchedTo {
			// The default (platform) rules offer a task through any one shared tag.
			if !sharesAny(workerTags[m], tk.Tags) {
				fail("task %s (tags %v) offered to %s (tags %v)", id, tk.Tags, m, workerTags[m])
			}
			if slices.Contains(led.vetoed[id], m) {
				fail("task %s offered to its vetoed worker %s", id, m)
			}
		}
		broken = append(broken, s.errs...)
		if s.status != tk.Status || (s.worker != tk.WorkerID && tk.Status != taskrouting.TaskStatusCompleted && tk.Status != taskrouting.TaskStatusCancelled) {
			fail("task %s: events end in %s/%q, listed as %s/%q", id, s.status, s.worker, tk.Status, tk.WorkerID)
		}
	}
	t.Logf("invariants checked on %d workers and %d tasks %v", len(list.Workers), len(tasks), counts)
	assert.Empty(t, broken, "matcher invariants")
}

func sharesAny(workerTags, taskTags []string) bool {
	for _, tag := range taskTags {
		if slices.Contains(workerTags, tag) {
			return true
		}
	}
	return false
}

// taskStory is one task's state as its events tell it.
type taskStory struct {
	status    taskrouting.TaskStatus
	worker    string   // the worker offered or holding the task
	rejected  []string // workers that rejected it
	matchedTo []string // every worker it was offered to
	errs      []string
}

// replayEvents runs each task's events, in emission order, through the task state machine
// of docs/contract.md, section 7, and notes every transition it does not allow.
func replayEvents(events []mockserver.Event) map[string]*taskStory {
	stories := map[string]*taskStory{}
	for _, ev := range events {
		if ev.TaskID == "" {
			continue
		}
		s := stories[ev.TaskID]
		if s == nil {
			s = &taskStory{status: taskrouting.TaskStatusQueued}
			stories[ev.TaskID] = s
		}
		bad := func(why string) {
			s.errs = append(s.errs, fmt.Sprintf("task %s: %s %s after %s/%q: %s", ev.TaskID, ev.Kind, ev.WorkerID, s.status, s.worker, why))
		}
		pendingWith := s.status == taskrouting.TaskStatusPending && s.worker == ev.WorkerID
		switch ev.Kind {
		case "task.matched":
			if s.status != taskrouting.TaskStatusQueued {
				bad("matched while not queued")
			}
			if slices.Contains(s.rejected, ev.WorkerID) {
				bad("offered again to a worker that rejected it")
			}
			s.status, s.worker = taskrouting.TaskStatusPending, ev.WorkerID
			s.matchedTo = append(s.matchedTo, ev.WorkerID)
		case "task.accepted":
			if !pendingWith {
				bad("accepted by a worker it was not offered to")
			}
			s.status = taskrouting.TaskStatusAccepted
		case "task.completed":
			if s.status != taskrouting.TaskStatusAccepted || s.worker != ev.WorkerID {
				bad("completed by a worker that had not accepted it")
			}
			s.status = taskrouting.TaskStatusCompleted
		case "task.rejected", "task.expired", "task.released":
			if !pendingWith {
				bad("offer ended for a worker that did not hold it")
			}
			if ev.Kind == "task.rejected" {
				s.rejected = append(s.rejected, ev.WorkerID)
			}
			s.status, s.worker = taskrouting.TaskStatusQueued, ""
		case "task.cancelled":
			if s.status == taskrouting.TaskStatusCompleted || s.status == taskrouting.TaskStatusCancelled {
				bad("cancelled after a terminal state")
			}
			s.status, s.worker = taskrouting.TaskStatusCancelled, ""
		default:
			bad("unknown event kind")
		}
	}
	return stories
}
