package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSetWorkerRoutingNilClears: SetWorkerRouting with nil clears a worker's skills and
// teams, under both rule sets: the worker reads back without routing, a task requiring its
// old skill or team no longer reaches it, and a plain task still does.
func TestSetWorkerRoutingNilClears(t *testing.T) {
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		t.Run(string(rules), func(t *testing.T) {
			h := newHarness(t, Config{Rules: rules})
			h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true),
				Routing: &WorkerRouting{Skills: []WorkerSkill{{ID: "s1", Level: 3}}, Teams: []string{"tA"}}})
			h.ok(h.e.SetWorkerRouting(h.step(), "w1", nil))
			d, err := h.e.Worker("w1")
			if err != nil {
				t.Fatal(err)
			}
			if d.Routing != nil {
				t.Errorf("routing after clearing: %+v, want nil", *d.Routing)
			}
			h.taskIn(TaskInput{ID: "skill", Tags: []string{"a"}, Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s1", MinLevel: 1}}}})
			h.taskIn(TaskInput{ID: "team", Tags: []string{"a"}, Routing: &TaskRouting{TeamID: "tA"}})
			h.task("plain", "a")
			want := map[string]string{"skill": "queued", "team": "queued", "plain": "pending:w1"}
			if diff := cmp.Diff(want, h.state()); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
			if err := verifyInternal(h.e); err != nil {
				t.Error(err)
			}
		})
	}
}
