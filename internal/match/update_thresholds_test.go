package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUpdateDropsThresholdsOfRemovedTags: a task whose tags change keeps the skill
// thresholds of the tags it still has and drops the others, both in what it shows and in
// matching: a worker below a dropped tag's minimum is no longer held back by it, one below
// a kept tag's minimum still is.
func TestUpdateDropsThresholdsOfRemovedTags(t *testing.T) {
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		t.Run(string(rules), func(t *testing.T) {
			h := newHarness(t, Config{Rules: rules})
			h.taskIn(TaskInput{ID: "t1", Tags: []string{"a", "b"}, SkillThresholds: map[string]float64{"a": 3, "b": 2}})
			h.taskIn(TaskInput{ID: "t2", Tags: []string{"a", "b"}, SkillThresholds: map[string]float64{"a": 3, "b": 2}})
			// Weight 1 for a and b: below both minimums.
			h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a", "b", "c"}, Available: ptr(true)})
			h.ok(h.e.UpdateTask(h.step(), "t1", TaskUpdate{Tags: []string{"b", "c"}}))
			h.ok(h.e.UpdateTask(h.step(), "t2", TaskUpdate{Tags: []string{"a", "c"}}))
			got := map[string]map[string]float64{}
			for _, id := range []string{"t1", "t2"} {
				tk, err := h.e.Task(id)
				if err != nil {
					t.Fatal(err)
				}
				got[id] = tk.SkillThresholds
			}
			want := map[string]map[string]float64{"t1": {"b": 2}, "t2": {"a": 3}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("thresholds (-want +got):\n%s", diff)
			}
			h.ok(h.e.PatchWorker(h.step(), "w1", WorkerInput{RoutingWeights: map[string]float64{"b": 2}}))
			if diff := cmp.Diff(map[string]string{"t1": "pending:w1", "t2": "queued"}, h.state()); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
		})
	}
}
