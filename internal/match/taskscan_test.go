package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFreedWorkerTakesHighestPriorityAcrossGroups queues two tasks in different tag groups
// and then frees a worker that can serve both. bestTaskFor skips a group whose head cannot
// beat the best task found so far; the low-priority task sits in the group visited first
// (its tag was interned first), so the high-priority group is only reached through that
// pruning test and a pruning test with the priority order inverted hands out the
// priority-1 task. Both lookup strategies are covered: a worker with few tags looks up
// the subsets of its tags, one with many walks the groups keyed under its tags.
func TestFreedWorkerTakesHighestPriorityAcrossGroups(t *testing.T) {
	tests := []struct {
		name string
		tags []string // the worker's tags; "a" first so it is interned before "b"
	}{
		{"subset lookup", []string{"a", "b"}},
		{"walk by tag", []string{"a", "b", "c", "d", "e", "f"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			h.workerIn(WorkerInput{ID: "w1", Tags: tc.tags, MaxBacklogSize: ptr(1)})
			h.taskIn(TaskInput{ID: "low", Tags: []string{"a"}, Priority: 1})
			h.taskIn(TaskInput{ID: "high", Tags: []string{"b"}, Priority: 99})
			h.available("w1", true)
			want := map[string]string{"low": "queued", "high": "pending:w1"}
			if diff := cmp.Diff(want, h.state()); diff != "" {
				t.Errorf("task states (-want +got):\n%s", diff)
			}
		})
	}
}
