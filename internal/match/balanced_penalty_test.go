package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBalancedPenaltyPerOffer: in ModeBalanced under the every-tag rules a worker's score
// loses Config.BalancedLoadPenalty for each pending offer it holds, for a worker with
// routing weights and for a plain one alike, and a decision names the amount
// (loadPenalty).
func TestBalancedPenaltyPerOffer(t *testing.T) {
	cases := []struct {
		name    string
		penalty float64
		loaded  WorkerInput // holds two offers (tasks of tag x)
		other   WorkerInput
		want    string
		boost   float64 // the loaded worker's loadPenalty in the decision
	}{
		{"two offers cost more than a weight's lead", 0.25,
			WorkerInput{ID: "w1", Tags: []string{"a", "x"}, RoutingWeights: map[string]float64{"a": 1.4}},
			WorkerInput{ID: "w2", Tags: []string{"a"}}, "w2", 0.5},
		{"two offers cost less than a weight's lead", 0.25,
			WorkerInput{ID: "w1", Tags: []string{"a", "x"}, RoutingWeights: map[string]float64{"a": 1.6}},
			WorkerInput{ID: "w2", Tags: []string{"a"}}, "w1", 0.5},
		{"a plain worker's offers", 0.5,
			WorkerInput{ID: "w1", Tags: []string{"a", "x"}},
			WorkerInput{ID: "w2", Tags: []string{"a"}, RoutingWeights: map[string]float64{"a": 0.5}}, "w2", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesEveryTag, Mode: ModeBalanced, BalancedLoadPenalty: tc.penalty,
				Learning: LearningConfig{Disabled: true}})
			tc.loaded.Available, tc.other.Available = ptr(true), ptr(true)
			h.workerIn(tc.loaded)
			h.workerIn(tc.other)
			h.task("p1", "x")
			h.task("p2", "x")
			h.task("t", "a")
			if got := h.state()["t"]; got != "pending:"+tc.want {
				t.Errorf("t is %s, want pending:%s", got, tc.want)
			}
			d := h.decisions[len(h.decisions)-1]
			var got []Reason
			for _, c := range d.Candidates {
				for _, r := range c.Reasons {
					if r.Kind == ReasonLoadPenalty {
						got = append(got, r)
					}
				}
			}
			if diff := cmp.Diff([]Reason{{Kind: ReasonLoadPenalty, Boost: tc.boost}}, got); diff != "" {
				t.Errorf("load penalties named (-want +got):\n%s", diff)
			}
		})
	}
}
