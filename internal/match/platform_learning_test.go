package match

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// learnCfg is RulesPlatform ranking by learning, exploring at rate (nil: the default).
func learnCfg(rate *float64, seed uint64) Config {
	return Config{Rules: RulesPlatform, Seed: seed, Learning: LearningConfig{Rank: true, ExplorationRate: rate}}
}

// TestPlatformLearningRanks: after accept, reject and expiry history, the platform rules
// with learning rank as the engine's formula says (platform_learning.go). Each case's
// expected model and choice are worked out by hand in its comment: features of a worker
// [x] for a task [x] are bias 1, tag:x 1, overlap 1 (Σ value² = 3); for a task [a, b]
// overlap is 0.5.
func TestPlatformLearningRanks(t *testing.T) {
	never := ptr(0.0)
	tests := []struct {
		name    string
		first   string // registered first: the choice without learning
		history func(h *harness)
		model   map[string]float64
		chosen  string
	}{
		{
			// reject −1: step 0.1 × −1 / 3 = −0.03̅ on bias, tag:a, overlap.
			// t2 [a, b]: w1 2 − 0.03̅ × 2.5 = 1.916̅; w2 2 − 0.03̅ × 1.5 = 1.95.
			name:  "a rejection lowers the worker's tags",
			first: "w1",
			history: func(h *harness) {
				h.task("t1", "a")
				h.reject("t1", "w1")
			},
			model:  map[string]float64{"bias": -1.0 / 30, "tag:a": -1.0 / 30, "overlap": -1.0 / 30},
			chosen: "w2",
		},
		{
			// accept 1: step 0.03̅ each. complete 2: prediction 0.1, step 0.1 × 1.9 / 3 =
			// 0.063̅ each, so 0.096̅. t2: w1 gains 0.096̅ × 2.5, w2 0.096̅ × 1.5: w1, although
			// registered second.
			name:  "an accepted and completed task raises them",
			first: "w2",
			history: func(h *harness) {
				h.task("t1", "a")
				h.accept("t1", "w1")
				h.complete("t1", "w1")
			},
			model:  map[string]float64{"bias": 0.29 / 3, "tag:a": 0.29 / 3, "overlap": 0.29 / 3},
			chosen: "w1",
		},
		{
			// expiry −0.3: step −0.01 each. t2: w1 −0.025, w2 −0.015: w2.
			name:  "an expired offer lowers them",
			first: "w1",
			history: func(h *harness) {
				h.task("t1", "a")
				h.advance(61 * time.Second)
				h.ok(h.e.CancelTask(h.step(), "t1"))
			},
			model:  map[string]float64{"bias": -0.01, "tag:a": -0.01, "overlap": -0.01},
			chosen: "w2",
		},
		{
			// accept 1 then fail −0.8: 0.03̅ each, then prediction 0.1, step
			// 0.1 × −0.9 / 3 = −0.03: 0.003̅ each, still above 0. t2: w1 gains 2.5 of it,
			// w2 1.5: w1, although registered second.
			name:  "a failure after accepting takes back most of the accept",
			first: "w2",
			history: func(h *harness) {
				h.task("t1", "a")
				h.accept("t1", "w1")
				h.ok(h.e.Fail(h.step(), "t1", "w1", "broken"))
			},
			model:  map[string]float64{"bias": 0.01 / 3, "tag:a": 0.01 / 3, "overlap": 0.01 / 3},
			chosen: "w1",
		},
		{
			name:    "no history: the registration order",
			first:   "w2",
			history: func(*harness) {},
			model:   map[string]float64{},
			chosen:  "w2",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, learnCfg(never, 1))
			other := map[string]string{"w1": "w2", "w2": "w1"}[tc.first]
			tags := map[string]string{"w1": "a", "w2": "b"}
			h.worker(tc.first, tags[tc.first])
			h.worker(other, tags[other])
			tc.history(h)
			h.taskIn(TaskInput{ID: "t2", Tags: []string{"a", "b"}, Priority: 1})
			if diff := cmp.Diff(tc.model, h.e.LearnedModel(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("model (-want +got):\n%s", diff)
			}
			if got := h.state()["t2"]; got != "pending:"+tc.chosen {
				t.Errorf("t2 is %s, want pending:%s", got, tc.chosen)
			}
		})
	}
}

// TestPlatformLearningWalksTheWholeWindow: with learning a first-come worker ranks its
// whole window by priority + score + prediction before taking as many as it has slots.
func TestPlatformLearningWalksTheWholeWindow(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform, Mode: ModeFirstCome, DefaultMaxBacklog: 1,
		Learning: LearningConfig{Rank: true, ExplorationRate: ptr(0.0)}})
	h.worker("w1", "a", "b")
	h.task("t0", "a")
	h.reject("t0", "w1") // bias, tag:a, overlap (1: w1 lists the task's one tag) −0.03̅ each
	h.available("w1", false)
	h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, Priority: 1}) // 1 + 0.5 − 0.1 = 1.4
	h.taskIn(TaskInput{ID: "t2", Tags: []string{"b"}, Priority: 1}) // 1 + 0.5 − 0.06̅ = 1.43̅
	h.available("w1", true)
	if got := h.state(); got["t2"] != "pending:w1" || got["t1"] != "queued" {
		t.Errorf("state %v: want t2 to w1 (1.43 against 1.4), t1 queued", got)
	}
}

// TestPlatformLearningExploration: exploration draws from Config.Seed, so a seed decides
// alike every time; over seeds at rate 1 both tied workers win; at rate 0 never.
func TestPlatformLearningExploration(t *testing.T) {
	play := func(rate *float64, seed uint64) string {
		h := newHarness(t, learnCfg(rate, seed))
		h.worker("w1", "a")
		h.worker("w2", "b")
		h.taskIn(TaskInput{ID: "t1", Tags: []string{"a", "b"}, Priority: 1})
		return h.state()["t1"]
	}
	always, never := ptr(1.0), ptr(0.0)
	wins := map[string]int{}
	for seed := uint64(0); seed < 20; seed++ {
		a, b := play(always, seed), play(always, seed)
		if a != b {
			t.Errorf("seed %d: %s, then %s", seed, a, b)
		}
		wins[a]++
		if got := play(never, seed); got != "pending:w1" {
			t.Errorf("rate 0, seed %d: %s, want pending:w1 (registration order)", seed, got)
		}
	}
	if wins["pending:w1"] == 0 || wins["pending:w2"] == 0 {
		t.Errorf("rate 1 over 20 seeds: %v; want both workers", wins)
	}
	if got := play(nil, 3); got != play(nil, 3) {
		t.Errorf("default rate, seed 3: not reproducible")
	}
}

// TestPlatformLearningUpdateIsBounded: one step moves the weights by at most a norm of 1,
// and a weight stays within ±100.
func TestPlatformLearningUpdateIsBounded(t *testing.T) {
	l := &platLearning{model: map[string]float64{}}
	fs := []feature{{"bias", 1}, {"skill:a", 1}}
	l.update(fs, 1e6) // 0.1 × 1e6 / 2 each: norm clipped to 1
	for _, k := range []string{"bias", "skill:a"} {
		if got, want := l.model[k], 1/math.Sqrt2; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
	l.model["bias"] = 99.9
	l.update(fs, 1e6)
	if got := l.model["bias"]; got != 100 {
		t.Errorf("bias = %v, want held at 100", got)
	}
}

// TestPlatformLearningShadowAndDisabled: in shadow mode the model learns and does not rank;
// disabled, nothing is learned.
func TestPlatformLearningShadowAndDisabled(t *testing.T) {
	tests := []struct {
		name  string
		l     LearningConfig
		model map[string]float64
	}{
		{"shadow", LearningConfig{Rank: true, ShadowMode: true, ExplorationRate: ptr(1.0)},
			map[string]float64{"bias": -1.0 / 30, "tag:a": -1.0 / 30, "overlap": -1.0 / 30}},
		{"disabled", LearningConfig{Rank: true, Disabled: true}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform, Learning: tc.l})
			h.worker("w1", "a")
			h.worker("w2", "b")
			h.task("t1", "a")
			h.reject("t1", "w1")
			h.taskIn(TaskInput{ID: "t2", Tags: []string{"a", "b"}, Priority: 1})
			if diff := cmp.Diff(tc.model, h.e.LearnedModel(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("model (-want +got):\n%s", diff)
			}
			if got := h.state()["t2"]; got != "pending:w1" {
				t.Errorf("t2 is %s, want pending:w1 (the tie, as without learning)", got)
			}
		})
	}
}
