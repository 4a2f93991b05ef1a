package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestPlatformLearningStatusAndBoost: LearningStatus.Model is the engine's learning under
// RulesPlatform with Rank (nil otherwise), and each eligible candidate of its decisions
// carries a learningBoost whose Boost is the model's prediction (Predicted). History: w1 [a]
// rejects t1 [a] (bias, tag:a, overlap each −0.1 / 3); then t2 [a, b] priority 1.
func TestPlatformLearningStatusAndBoost(t *testing.T) {
	w := -0.1 / 3
	tests := []struct {
		name  string
		cfg   Config
		model *LearnedModelStatus
		boost map[string][]Reason // t2's decision: each candidate's learningBoost reasons
	}{
		{"rank", learnCfg(ptr(0.0), 1), &LearnedModelStatus{Weights: 3, Decisions: 2, Outcomes: 1, TotalReward: -1},
			map[string][]Reason{
				"w1": {{Kind: ReasonLearningBoost, Boost: 2.5 * w, Predicted: true}},
				"w2": {{Kind: ReasonLearningBoost, Boost: 1.5 * w, Predicted: true}},
			}},
		{"rank in shadow mode", Config{Rules: RulesPlatform, Learning: LearningConfig{Rank: true, ShadowMode: true}},
			&LearnedModelStatus{Shadow: true, Weights: 3, Decisions: 2, Outcomes: 1, TotalReward: -1},
			map[string][]Reason{
				"w1": {{Kind: ReasonLearningBoost, Boost: 2.5 * w, Shadow: true, Predicted: true}},
				"w2": {{Kind: ReasonLearningBoost, Boost: 1.5 * w, Shadow: true, Predicted: true}},
			}},
		{"platform default", Config{Rules: RulesPlatform}, nil, map[string][]Reason{}},
		{"rank and disabled", Config{Rules: RulesPlatform, Learning: LearningConfig{Rank: true, Disabled: true}}, nil, map[string][]Reason{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.cfg)
			h.worker("w1", "a")
			h.worker("w2", "b")
			h.task("t1", "a")
			h.reject("t1", "w1")
			h.taskIn(TaskInput{ID: "t2", Tags: []string{"a", "b"}, Priority: 1})
			approx := cmpopts.EquateApprox(0, 1e-12)
			st := h.e.LearningStatus()
			if diff := cmp.Diff(tc.model, st.Model, approx); diff != "" {
				t.Errorf("model status (-want +got):\n%s", diff)
			}
			if st.Rules != RulesPlatform {
				t.Errorf("rules %q, want %q", st.Rules, RulesPlatform)
			}
			ds := h.e.Decisions(DecisionQuery{TaskID: "t2", Limit: 1})
			if len(ds) != 1 {
				t.Fatalf("%d decisions for t2, want 1", len(ds))
			}
			got := map[string][]Reason{}
			for _, c := range ds[0].Candidates {
				for _, r := range c.Reasons {
					if r.Kind == ReasonLearningBoost {
						got[c.WorkerID] = append(got[c.WorkerID], r)
					}
				}
			}
			if diff := cmp.Diff(tc.boost, got, approx); diff != "" {
				t.Errorf("learningBoost reasons (-want +got):\n%s", diff)
			}
		})
	}
}
