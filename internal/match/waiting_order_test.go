package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestNotReadyCandidatesComeFromTheRarestTagFirst: the carriers that are not ready which a
// decision lists are taken from the task's rarest tag (by carriers) first, then from its
// other tags, each worker once, in the order they joined a tag's list.
func TestNotReadyCandidatesComeFromTheRarestTagFirst(t *testing.T) {
	tests := []struct {
		name          string
		maxCandidates int // the quota of not-ready ones is a fifth, at most 3
		want          []string
	}{
		{"a quota of one: the rarest tag's", 5, []string{"r1", "nab"}},
		{"a quota of two: the rarest tag's", 10, []string{"r1", "nab", "nb"}},
		{"a quota of three: then the other tag's, a worker of both once", 15, []string{"r1", "nab", "nb", "na1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{MaxCandidates: tt.maxCandidates})
			// Tag a has five carriers, tag b three: b is the rarest.
			h.workerIn(WorkerInput{ID: "nab", Tags: []string{"b", "a"}})
			h.workerIn(WorkerInput{ID: "na1", Tags: []string{"a"}})
			h.workerIn(WorkerInput{ID: "na2", Tags: []string{"a"}})
			h.workerIn(WorkerInput{ID: "na3", Tags: []string{"a"}})
			h.workerIn(WorkerInput{ID: "nb", Tags: []string{"b"}})
			h.worker("r1", "a", "b")
			h.task("t1", "a", "b")
			require.Len(t, h.decisions, 1)
			got := candidateIDs(h.decisions[0])
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
		})
	}
}
