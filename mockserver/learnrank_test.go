package mockserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// learnServer starts a server whose platform rules rank by learning, exploring at rate.
func learnServer(t *testing.T, seed uint64, rate *float64) (*Server, *ManualClock) {
	t.Helper()
	clk := NewManualClock(t0)
	srv := Start(t, WithClock(clk), WithSeed(seed), WithTestLogger(nil),
		WithMatcher(MatcherConfig{LearningRanks: true, LearningExplorationRate: rate}))
	return srv, clk
}

// holder reads a task's holder over HTTP ("" when queued).
func holder(t *testing.T, srv *Server, id string) string {
	t.Helper()
	return fmt.Sprint(mustAPI(t, srv, 200, "GET", "/tasks/"+id, nil).json(t)["workerId"])
}

// TestLearningRanksThroughTheServer: with MatcherConfig.LearningRanks the history of
// accepts, completions, rejections, failures and expiries, played over HTTP, ranks the
// next task as the engine's formula says (docs/contract.md, "Learning under the platform
// rules"). Workers w1 [a] and w2 [b]; the history is on t1 [a], held by w1; then
// t2 [a, b] priority 1, where both score 1: without learning a tie to the first registered.
// By hand (features of w1 for t1: bias, tag:a, overlap, each 1):
//   - reject −1: each −0.1 / 3; t2: w1 2 − 2.5 × 0.1 / 3, w2 2 − 1.5 × 0.1 / 3 → w2
//   - accept 1 then complete 2: each 0.1 / 3, then + 0.1 × 1.9 / 3; w1 gains 2.5 of them,
//     w2 1.5 → w1
//   - expiry −0.3: each −0.01 → w2
//   - accept 1 then fail −0.8: each 0.1 / 3 − 0.1 × 0.9 / 3 > 0 → w1
func TestLearningRanksThroughTheServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		first   string
		history func(t *testing.T, srv *Server, clk *ManualClock)
		want    string
	}{
		{"reject", "w1", func(t *testing.T, srv *Server, _ *ManualClock) {
			mustAPI(t, srv, 200, "POST", "/tasks/t1/reject", map[string]any{"workerId": "w1"})
		}, "w2"},
		{"accept and complete", "w2", func(t *testing.T, srv *Server, _ *ManualClock) {
			mustAPI(t, srv, 200, "POST", "/tasks/t1/accept", map[string]any{"workerId": "w1"})
			mustAPI(t, srv, 200, "POST", "/tasks/t1/complete", map[string]any{"workerId": "w1"})
		}, "w1"},
		{"expiry", "w1", func(t *testing.T, srv *Server, clk *ManualClock) {
			clk.Advance(61 * time.Second)
			mustAPI(t, srv, 204, "DELETE", "/tasks/t1", nil)
		}, "w2"},
		{"accept and fail", "w2", func(t *testing.T, srv *Server, _ *ManualClock) {
			mustAPI(t, srv, 200, "POST", "/tasks/t1/accept", map[string]any{"workerId": "w1"})
			mustAPI(t, srv, 200, "POST", "/tasks/t1/fail", map[string]any{"workerId": "w1", "reason": "broken"})
		}, "w1"},
		{"no history", "w2", func(*testing.T, *Server, *ManualClock) {}, "w2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, clk := learnServer(t, 1, new(float64))
			tags := map[string]string{"w1": "a", "w2": "b"}
			other := map[string]string{"w1": "w2", "w2": "w1"}[tc.first]
			for _, w := range []string{tc.first, other} {
				mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": w, "tags": []string{tags[w]}, "available": true})
			}
			if tc.name != "no history" {
				mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}})
				require.Equal(t, "w1", holder(t, srv, "t1"))
				tc.history(t, srv, clk)
			}
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"a", "b"}, "priority": 1})
			require.Equal(t, tc.want, holder(t, srv, "t2"))
		})
	}
}

// TestLearningExplorationThroughTheServer: exploration is drawn from the server's seed: a
// seed decides alike on every server, rate 1 gives a tie to each worker over seeds, and
// rate 0 never explores.
func TestLearningExplorationThroughTheServer(t *testing.T) {
	t.Parallel()
	play := func(seed uint64, rate float64) string {
		srv, _ := learnServer(t, seed, &rate)
		mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "available": true})
		mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w2", "tags": []string{"b"}, "available": true})
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a", "b"}, "priority": 1})
		return holder(t, srv, "t1")
	}
	wins := map[string]int{}
	for seed := uint64(1); seed <= 10; seed++ {
		got := play(seed, 1)
		require.Equal(t, got, play(seed, 1), "seed %d", seed)
		wins[got]++
		require.Equal(t, "w1", play(seed, 0), "rate 0, seed %d", seed)
	}
	require.NotZero(t, wins["w1"], "rate 1 over 10 seeds: %v", wins)
	require.NotZero(t, wins["w2"], "rate 1 over 10 seeds: %v", wins)
}

func TestLearningExplorationRateIsChecked(t *testing.T) {
	t.Parallel()
	for _, r := range []float64{-0.1, 1.5} {
		_, err := New(WithMatcher(MatcherConfig{LearningRanks: true, LearningExplorationRate: &r}))
		require.ErrorContains(t, err, "LearningExplorationRate")
	}
}
