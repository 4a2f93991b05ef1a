package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRouteIndexSkillListedTwice: a worker that lists one skill id twice sits in one bucket
// of that skill (the entry the skill check reads), so the route index stays exact through
// ready, unready and a routing change, and a decision over the skill's bucket names the
// worker once.
func TestRouteIndexSkillListedTwice(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesEveryTag})
	verify := func(when string) {
		t.Helper()
		if err := verifyInternal(h.e); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
	}
	twice := &WorkerRouting{Skills: []WorkerSkill{{ID: "s1", Level: 4}, {ID: "s2", Level: 1}, {ID: "s1", Level: 4}}}
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true), Routing: twice})
	verify("ready with a skill listed twice")
	h.workerIn(WorkerInput{ID: "w2", Tags: []string{"a"}, Available: ptr(true), Routing: &WorkerRouting{Skills: []WorkerSkill{{ID: "s1", Level: 4}}}})
	h.available("w1", false)
	verify("unready")
	h.available("w1", true)
	verify("ready again")
	h.ok(h.e.SetWorkerRouting(h.step(), "w1", twice))
	verify("routing set again")

	h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s1", MinLevel: 2}}}})
	verify("after the offer")
	if len(h.decisions) != 1 {
		t.Fatalf("%d decisions, want 1", len(h.decisions))
	}
	named := candidateIDs(h.decisions[0])
	// Equal scores, equal backlogs, neither matched before: by id.
	if diff := cmp.Diff([]string{"w1", "w2"}, named); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
}
