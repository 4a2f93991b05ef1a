package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecisionsQueryFiltersAndLimit: Decisions lists the retained decisions newest first,
// at most Limit of them, those of one task, of one worker, or of one task offered to one
// worker when both are given.
func TestDecisionsQueryFiltersAndLimit(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform})
	h.worker("w1", "a")
	h.worker("w2", "b")
	h.task("t1", "a", "b") // to w1, registered first
	h.reject("t1", "w1")   // then to w2
	h.task("t2", "a")      // to w1
	h.task("t3", "b")      // to w2
	pairs := func(ds []Decision) []string {
		out := []string{}
		for _, d := range ds {
			out = append(out, d.TaskID+":"+d.WorkerID)
		}
		return out
	}
	cases := []struct {
		q    DecisionQuery
		want []string
	}{
		{DecisionQuery{}, []string{"t3:w2", "t2:w1", "t1:w2", "t1:w1"}},
		{DecisionQuery{Limit: 2}, []string{"t3:w2", "t2:w1"}},
		{DecisionQuery{Limit: 1}, []string{"t3:w2"}},
		{DecisionQuery{Limit: 4}, []string{"t3:w2", "t2:w1", "t1:w2", "t1:w1"}},
		{DecisionQuery{TaskID: "t1"}, []string{"t1:w2", "t1:w1"}},
		{DecisionQuery{TaskID: "t1", Limit: 1}, []string{"t1:w2"}},
		{DecisionQuery{WorkerID: "w1"}, []string{"t2:w1", "t1:w1"}},
		{DecisionQuery{WorkerID: "w2", Limit: 1}, []string{"t3:w2"}},
		{DecisionQuery{TaskID: "t1", WorkerID: "w1"}, []string{"t1:w1"}},
		{DecisionQuery{TaskID: "t1", WorkerID: "w2"}, []string{"t1:w2"}},
		{DecisionQuery{TaskID: "t2", WorkerID: "w2"}, []string{}},
		{DecisionQuery{TaskID: "t1", WorkerID: "w9"}, []string{}},
		{DecisionQuery{TaskID: "t9"}, []string{}},
		{DecisionQuery{WorkerID: "w9"}, []string{}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, pairs(h.e.Decisions(tc.q))); diff != "" {
			t.Errorf("Decisions(%+v) (-want +got):\n%s", tc.q, diff)
		}
	}
}
