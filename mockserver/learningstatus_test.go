package mockserver

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// learningOff is the platform's learning.status while its learning is off (its contract case
// learning_status_before_any_rewards), member for member.
const learningOff = `{"enabled":false,"shadowMode":true,"autoWeights":false,"stats":null,"modelSize":0}`

// TestLearningStatusSaysWhatRanks: learning.status reports the learning that ranks in each
// setting, after the same history (w1 accepts and completes t1, rejects t2): under the
// platform rules the engine's model (off unless LearningRanks: the platform's own answer),
// under the every-tag rules the per-tag factors (docs/contract.md, "Learning under the
// platform rules"). learning.workerStats keeps the per-tag means in every setting but
// -no-learning, where learnedWeight is null.
func TestLearningStatusSaysWhatRanks(t *testing.T) {
	t.Parallel()
	// The engine's model after +1, +2, -1 on the features bias, tag:a and overlap: 3
	// weights, 3 rewards summing to 2.
	const engineOn = `"autoWeights":false,"signalWeights":{},"rewards":{"accept":1,"complete":2,"reject":-1},
		"stats":{"decisions":2,"rewards":3,"totalReward":2,"averageReward":0.6666666666666666},"modelSize":3}`
	// The every-tag rules: the same rewards on the pair (w1, a), and their own expiry reward.
	const everyTagOn = `"autoWeights":false,"signalWeights":{},"rewards":{"accept":1,"complete":2,"reject":-1,"expiry":-0.5},
		"stats":{"decisions":2,"rewards":3,"totalReward":2,"averageReward":0.6666666666666666},"modelSize":1}`
	tests := []struct {
		name        string
		cfg         MatcherConfig
		want        string
		wantLearned bool // learning.workerStats gives w1's tag a learnedWeight
	}{
		{"platform, default", MatcherConfig{}, learningOff, true},
		{"platform, -no-learning", MatcherConfig{LearningDisabled: true}, learningOff, false},
		{"platform, shadow mode without -learning-rank", MatcherConfig{LearningShadowMode: true}, learningOff, true},
		{"platform, -learning-rank", MatcherConfig{LearningRanks: true}, `{"enabled":true,"shadowMode":false,` + engineOn, true},
		{"platform, -learning-rank in shadow mode", MatcherConfig{LearningRanks: true, LearningShadowMode: true},
			`{"enabled":true,"shadowMode":true,` + engineOn, true},
		{"platform, -learning-rank and -no-learning", MatcherConfig{LearningRanks: true, LearningDisabled: true}, learningOff, false},
		{"every-tag", MatcherConfig{Rules: RulesEveryTag}, `{"enabled":true,"shadowMode":false,` + everyTagOn, true},
		{"every-tag, shadow mode", MatcherConfig{Rules: RulesEveryTag, LearningShadowMode: true},
			`{"enabled":true,"shadowMode":true,` + everyTagOn, true},
		{"every-tag, -no-learning", MatcherConfig{Rules: RulesEveryTag, LearningDisabled: true},
			`{"enabled":false,"shadowMode":false,"autoWeights":false,"signalWeights":{},"stats":null,"modelSize":0}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := Start(t, WithClock(NewManualClock(t0)), WithMatcher(tc.cfg))
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "available": true})
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}})
			mustAPI(t, srv, 200, "POST", "/tasks/t1/accept", map[string]any{"workerId": "w1"})
			mustAPI(t, srv, 200, "POST", "/tasks/t1/complete", map[string]any{"workerId": "w1"})
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"a"}})
			mustAPI(t, srv, 200, "POST", "/tasks/t2/reject", map[string]any{"workerId": "w1"})

			assert.JSONEq(t, tc.want, string(mustAPI(t, srv, 200, "GET", "/learning/status", nil).Body))

			var ws struct {
				Skills []struct {
					Tag           string   `json:"tag"`
					LearnedWeight *float64 `json:"learnedWeight"`
				} `json:"skills"`
			}
			require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/learning/workers/w1", nil).Body, &ws))
			learned := false
			for _, s := range ws.Skills {
				learned = learned || s.LearnedWeight != nil
			}
			assert.Equal(t, tc.wantLearned, learned, "learnedWeight of %+v", ws.Skills)
		})
	}
}

// TestLearningBoostNamesThePrediction: with LearningRanks each eligible candidate of a
// decision carries a learningBoost with the reward the engine's model predicted for it
// (predicted; shadow in shadow mode, where it does not rank), an ineligible one none, and
// without LearningRanks no candidate does. The
// history is docs/contract.md's example: w1 [a] rejects t1 [a], so bias, tag:a and overlap
// each weigh −0.1 / 3; for t2 [a, b] w1 predicts −0.1 / 3 × 2.5 and w2 −0.1 / 3 × 1.5.
func TestLearningBoostNamesThePrediction(t *testing.T) {
	t.Parallel()
	w1, w2 := -0.1/3*2.5, -0.1/3*1.5
	tests := []struct {
		name   string
		cfg    MatcherConfig
		holder string
		want   map[string][]map[string]any // t2's decision: each candidate's learningBoost reasons
		wantT1 map[string][]map[string]any // t1's, before any reward
	}{
		{"-learning-rank", MatcherConfig{LearningRanks: true, LearningExplorationRate: new(float64)}, "w2",
			map[string][]map[string]any{"w1": {{"kind": "learningBoost", "predicted": w1}}, "w2": {{"kind": "learningBoost", "predicted": w2}}},
			map[string][]map[string]any{"w1": {{"kind": "learningBoost", "predicted": 0.0}}}},
		{"-learning-rank in shadow mode", MatcherConfig{LearningRanks: true, LearningShadowMode: true}, "w1",
			map[string][]map[string]any{"w1": {{"kind": "learningBoost", "predicted": w1, "shadow": true}},
				"w2": {{"kind": "learningBoost", "predicted": w2, "shadow": true}}},
			map[string][]map[string]any{"w1": {{"kind": "learningBoost", "predicted": 0.0, "shadow": true}}}},
		{"default: learning does not rank", MatcherConfig{}, "w1", map[string][]map[string]any{}, map[string][]map[string]any{}},
	}
	boosts := func(t *testing.T, srv *Server, task string) map[string][]map[string]any {
		var ans struct {
			Decisions []struct {
				Candidates []struct {
					WorkerID string           `json:"workerId"`
					Reasons  []map[string]any `json:"reasons"`
				} `json:"candidates"`
			} `json:"decisions"`
		}
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/decisions?taskId="+task, nil).Body, &ans))
		require.NotEmpty(t, ans.Decisions)
		out := map[string][]map[string]any{}
		for _, c := range ans.Decisions[0].Candidates {
			for _, r := range c.Reasons {
				if r["kind"] == "learningBoost" {
					out[c.WorkerID] = append(out[c.WorkerID], r)
				}
			}
		}
		return out
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := Start(t, WithClock(NewManualClock(t0)), WithMatcher(tc.cfg))
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "available": true})
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w2", "tags": []string{"b"}, "available": true})
			// w3 is listed in both decisions, unavailable: ineligible, so not scored.
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w3", "tags": []string{"a"}})
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}})
			mustAPI(t, srv, 200, "POST", "/tasks/t1/reject", map[string]any{"workerId": "w1"})
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"a", "b"}, "priority": 1})
			require.Equal(t, tc.holder, holder(t, srv, "t2"))

			approx := cmpopts.EquateApprox(0, 1e-12)
			if diff := cmp.Diff(tc.wantT1, boosts(t, srv, "t1"), approx); diff != "" {
				t.Errorf("t1's decision (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, boosts(t, srv, "t2"), approx); diff != "" {
				t.Errorf("t2's decision (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLearningBoostKeepsItsFactorUnderEveryTag: the every-tag rules' learningBoost names the
// factor that multiplied the score, never predicted: w1's accept (+1) and completion (+2) on
// tag a give it 1 + 0.5 × tanh(1.5 / 2) for t2 [a].
func TestLearningBoostKeepsItsFactorUnderEveryTag(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)), WithMatcher(MatcherConfig{Rules: RulesEveryTag}))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}})
	mustAPI(t, srv, 200, "POST", "/tasks/t1/accept", map[string]any{"workerId": "w1"})
	mustAPI(t, srv, 200, "POST", "/tasks/t1/complete", map[string]any{"workerId": "w1"})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"a"}})

	var ans struct {
		Decisions []struct {
			Candidates []struct {
				Reasons []map[string]any `json:"reasons"`
			} `json:"candidates"`
		} `json:"decisions"`
	}
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/decisions?taskId=t2", nil).Body, &ans))
	require.NotEmpty(t, ans.Decisions)
	require.NotEmpty(t, ans.Decisions[0].Candidates)
	var got []map[string]any
	for _, r := range ans.Decisions[0].Candidates[0].Reasons {
		if r["kind"] == "learningBoost" {
			got = append(got, r)
		}
	}
	want := []map[string]any{{"kind": "learningBoost", "factor": 1 + 0.5*math.Tanh(0.75)}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("learningBoost (-want +got):\n%s", diff)
	}
}
