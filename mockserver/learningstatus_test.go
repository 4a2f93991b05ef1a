package mockserver

import (
	"encoding/json"
	"testing"

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
