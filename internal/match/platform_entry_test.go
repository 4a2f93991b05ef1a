package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlatformEntryScoreAgreesWithTheTask: the score a window reads from a plain task's
// order entry (platEligibleEntry, which skips the task) is the one platEligible computes
// from the task: the share of the worker's tags the task carries, priority + score as the
// pass ranks, and no eligibility for a task sharing no tag or ranked at exactly 0.
func TestPlatformEntryScoreAgreesWithTheTask(t *testing.T) {
	type answer struct {
		Score, Prio float64
		OK          bool
	}
	cases := []struct {
		name     string
		worker   []string
		task     []string
		priority float64
		want     answer
	}{
		{"one of two tags", []string{"a", "b"}, []string{"a"}, 1, answer{0.5, 1.5, true}},
		{"both tags of three", []string{"a", "b"}, []string{"a", "b", "c"}, 0, answer{1, 1, true}},
		{"a negative priority", []string{"a"}, []string{"a"}, -2, answer{1, -1, true}},
		{"no tag in common", []string{"a"}, []string{"b"}, 1, answer{}},
		{"no tag in common, priority 0", []string{"a", "c"}, []string{"b"}, 0, answer{}},
		{"ranked at exactly 0", []string{"a", "b"}, []string{"a"}, -0.5, answer{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Config{Rules: RulesPlatform})
			if _, err := e.UpsertWorker(t0, WorkerInput{ID: "w", Tags: tc.worker}); err != nil { // unavailable: the task stays queued
				t.Fatal(err)
			}
			if _, err := e.CreateTask(t0, TaskInput{ID: "t", Tags: tc.task, Priority: tc.priority}); err != nil {
				t.Fatal(err)
			}
			w, tk := e.workers["w"], e.tasks["t"]
			en := orderEntryOf(tk)
			if !en.plain {
				t.Fatal("precondition: the task's entry is not plain")
			}
			var got [2]answer
			got[0].Score, got[0].Prio, got[0].OK = e.platEligibleEntry(w, &en)
			got[1].Score, got[1].Prio, got[1].OK = e.platEligible(w, tk)
			if diff := cmp.Diff([2]answer{tc.want, tc.want}, got); diff != "" {
				t.Errorf("(score, priority, eligible) from the entry and from the task (-want +got):\n%s", diff)
			}
		})
	}
}
