package match

import (
	"slices"
	"strconv"

	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestDecisionsNameWorkersThatAreNotReady: a decision also lists carriers of the task's
// tags that could not be offered it because of their state, with that state as the reason.
func TestDecisionsNameWorkersThatAreNotReady(t *testing.T) {
	h := newHarness(t, Config{})
	h.workerIn(WorkerInput{ID: "away", Tags: []string{"a", "b"}})
	h.workerIn(WorkerInput{ID: "full", Tags: []string{"a", "b"}, MaxBacklogSize: ptr(0), Available: ptr(true)})
	h.worker("resting", "a", "b")
	h.ok(h.e.StartBreak(h.step(), "resting", "lunch"))
	h.worker("ready", "a", "b")
	h.task("t1", "a", "b")

	require.Len(t, h.decisions, 1)
	weights := []Reason{{Kind: ReasonTagWeight, Tag: "a", Weight: 1}, {Kind: ReasonTagWeight, Tag: "b", Weight: 1}}
	with := func(r Reason) []Reason { return append([]Reason{r}, weights...) }
	want := []Candidate{
		{WorkerID: "ready", Eligible: true, Chosen: true, Score: 2, Reasons: weights},
		{WorkerID: "away", Score: 2, Reasons: with(Reason{Kind: ReasonUnavailable})},
		{WorkerID: "full", Score: 2, Reasons: with(Reason{Kind: ReasonBacklogFull})},
		{WorkerID: "resting", Score: 2, Reasons: with(Reason{Kind: ReasonOnBreak})},
	}
	if diff := cmp.Diff(want, h.decisions[0].Candidates); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
}

// TestNotReadyCandidatesShareTheLimit: not-ready carriers get up to a fifth of the slots
// (at most 3), even when the ready workers could fill them all, and never the chosen
// worker's slot.
func TestNotReadyCandidatesShareTheLimit(t *testing.T) {
	tests := []struct {
		name          string
		maxCandidates int
		ready, away   int
		want          []string
	}{
		{"ready ones fill all but the quota", 5, 6, 3, []string{"r1", "r2", "r3", "r4", "a1"}},
		{"few ready ones leave the rest empty", 5, 2, 4, []string{"r1", "r2", "a1"}},
		{"a fifth of a larger limit", 10, 3, 4, []string{"r1", "r2", "r3", "a1", "a2"}},
		{"at most three", 25, 30, 5, []string{"r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
			"r11", "r12", "r13", "r14", "r15", "r16", "r17", "r18", "r19", "r20", "r21", "r22", "a1", "a2", "a3"}},
		{"no not-ready ones", 3, 5, 0, []string{"r1", "r2", "r3"}},
		{"a limit of one is the chosen worker", 1, 2, 2, []string{"r1"}},
		{"a quota of one at small limits", 2, 3, 2, []string{"r1", "a1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{MaxCandidates: tt.maxCandidates})
			for i := range tt.away {
				h.workerIn(WorkerInput{ID: "a" + strconv.Itoa(i+1), Tags: []string{"x"}})
			}
			for i := range tt.ready {
				h.worker("r"+strconv.Itoa(i+1), "x")
			}
			h.task("t1", "x")
			require.Len(t, h.decisions, 1)
			got := candidateIDs(h.decisions[0])
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetainedDecisionsReadBackUnchanged: the engine keeps decisions in a compact form;
// reading them back must give exactly what the commands returned, for every reason kind
// the random commands produce (learning, load penalty, thresholds, assign, ...).
func TestRetainedDecisionsReadBackUnchanged(t *testing.T) {
	for _, cfg := range []Config{
		{Rules: RulesEveryTag},
		{Rules: RulesEveryTag, Mode: ModeBalanced, AnyTagEligibility: true},
		{Rules: RulesEveryTag, Learning: LearningConfig{ShadowMode: true}},
		{Rules: RulesEveryTag, Learning: LearningConfig{LearnedVeto: true, LearnedVetoMinSamples: 2}, DecisionRetention: 50},
	} {
		seed := propSeed(t)
		p := newPropRun(cfg, seed)
		require.NoError(t, p.run(1500), "seed %d", seed)
		require.NotEmpty(t, p.decided)
		kept := min(len(p.decided), p.cfg.DecisionRetention)
		want := slices.Clone(p.decided[len(p.decided)-kept:])
		slices.Reverse(want) // Decisions lists newest first
		got := p.e.Decisions(DecisionQuery{Limit: kept + 1})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("config %+v seed %d: read back (-returned +retained):\n%s", cfg, seed, diff)
		}
		kinds := map[ReasonKind]bool{}
		for _, d := range got {
			for _, c := range d.Candidates {
				for _, r := range c.Reasons {
					kinds[r.Kind] = true
				}
			}
		}
		if len(kinds) < 5 {
			t.Errorf("config %+v: only reason kinds %v; the test is not covering the compact form", cfg, kinds)
		}
	}
}

// TestPlatformDecisionListsCarriersThenPatterns: under RulesPlatform a decision names the
// chosen worker, then the literal carriers of the task's tags, then every worker with a
// pattern weight (eligible or not), in the order met and at most MaxCandidates in all: a
// cut inside the carriers leaves every pattern worker out, one inside the pattern workers
// keeps those met first (registration order). The eligible ones are listed first.
func TestPlatformDecisionListsCarriersThenPatterns(t *testing.T) {
	tests := []struct {
		limit int
		want  []string
	}{
		{1, []string{"w1"}},
		{2, []string{"w1", "w2"}},
		{3, []string{"w1", "w2", "p1"}},
		{4, []string{"w1", "w2", "p1", "p2"}},
		{5, []string{"w1", "w2", "p1", "p3", "p2"}},
		{25, []string{"w1", "w2", "p1", "p3", "p2"}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.limit), func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform, MaxCandidates: tt.limit})
			h.worker("w1", "a", "b")
			h.worker("w2", "a")
			h.workerIn(WorkerInput{ID: "p1", RoutingWeights: map[string]float64{"a*": 1}, Available: ptr(true)})
			h.workerIn(WorkerInput{ID: "p2", RoutingWeights: map[string]float64{"zz*": 1}, Available: ptr(true)}) // reaches nothing of the task
			h.workerIn(WorkerInput{ID: "p3", RoutingWeights: map[string]float64{"b*": 1}, Available: ptr(true)})
			h.worker("other", "c")
			h.task("t1", "a", "b")
			require.Len(t, h.decisions, 1)
			got := candidateIDs(h.decisions[0])
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
		})
	}
}
