package match

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestWorkerStatsPerTag pins WorkerStats' view of each learned tag, sorted by tag: the
// explicit routingWeights entry as CurrentWeight (none without one), and the learned
// weight as the tag's weight times the learning factor, 0 for a tag the worker no longer
// carries.
func TestWorkerStatsPerTag(t *testing.T) {
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		t.Run(string(rules), func(t *testing.T) {
			h := newHarness(t, Config{Rules: rules})
			h.workerIn(WorkerInput{ID: "w1", Tags: []string{"c", "b", "a"}, RoutingWeights: map[string]float64{"a": 2}, Available: ptr(true)})
			h.task("t1", "c", "b", "a")
			h.accept("t1", "w1") // +1 on a, b and c
			h.ok(h.e.PatchWorker(h.step(), "w1", WorkerInput{Tags: []string{"a", "c"}, RoutingWeights: map[string]float64{"a": 2, "c": 0.5}}))
			got, err := h.e.WorkerStats("w1")
			if err != nil {
				t.Fatal(err)
			}
			factor := 1 + 0.5*math.Tanh(0.5) // one reward of +1
			want := []TagStat{
				{Tag: "a", Count: 1, MeanReward: 1, CurrentWeight: ptr(2.0), LearnedWeight: ptr(2 * factor)},
				{Tag: "b", Count: 1, MeanReward: 1, LearnedWeight: ptr(0.0)},
				{Tag: "c", Count: 1, MeanReward: 1, CurrentWeight: ptr(0.5), LearnedWeight: ptr(0.5 * factor)},
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("WorkerStats (-want +got):\n%s", diff)
			}
		})
	}
}
