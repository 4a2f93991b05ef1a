package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestQueueOrderWithinOneInstant creates four tasks in one clock instant, with ids whose
// lexical order is the reverse of their creation order, and serves them one at a time to a
// worker with room for one offer. Equal priorities must come out in creation order, and an
// offer released back to the queue must keep its place ahead of later tasks.
func TestQueueOrderWithinOneInstant(t *testing.T) {
	e := New(Config{Rules: RulesEveryTag})
	now := t0
	must := func(_ Result, err error) {
		t.Helper()
		require.NoError(t, err)
	}
	must(e.UpsertWorker(now, WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1)}))
	for _, in := range []TaskInput{
		{ID: "t4-low", Tags: []string{"a"}, Priority: 0},
		{ID: "t3-mid", Tags: []string{"a"}, Priority: 1},
		{ID: "t2-mid2", Tags: []string{"a"}, Priority: 1},
		{ID: "t1-high", Tags: []string{"a"}, Priority: 5},
	} {
		must(e.CreateTask(now, in))
	}
	offered := func() string {
		t.Helper()
		q, err := e.WorkerQueue("w1")
		require.NoError(t, err)
		require.Len(t, q, 1)
		return q[0]
	}
	must(e.SetAvailability(now, "w1", true, false))
	require.Equal(t, "t1-high", offered())
	// Releasing the backlog requeues the offer; it must come back first, not after the rest.
	must(e.SetAvailability(now, "w1", false, true))
	must(e.SetAvailability(now, "w1", true, false))

	var served []string
	for range 4 {
		id := offered()
		served = append(served, id)
		must(e.Accept(now, id, "w1"))
		must(e.Complete(now, id, "w1", nil))
	}
	want := []string{"t1-high", "t3-mid", "t2-mid2", "t4-low"}
	if diff := cmp.Diff(want, served); diff != "" {
		t.Errorf("service order (-want +got):\n%s", diff)
	}
}
