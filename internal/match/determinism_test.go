package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDeterminism replays the same random commands twice, on fresh engines, and requires
// byte-identical events and decisions (ids, times, scores, candidates and reasons).
func TestDeterminism(t *testing.T) {
	for _, cfg := range []Config{{}, {Mode: ModeBalanced}, {Rules: RulesEveryTag}, {Rules: RulesEveryTag, AnyTagEligibility: true, Mode: ModeBalanced}} {
		seed := propSeed(t)
		a, err := runPropertyLog(cfg, seed, 3000)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		b, err := runPropertyLog(cfg, seed, 3000)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if a.log.Len() < 100_000 {
			t.Fatalf("log too short to mean anything: %d bytes", a.log.Len())
		}
		if diff := cmp.Diff(a.log.String(), b.log.String()); diff != "" {
			t.Errorf("mode %s seed %d: runs differ (-first +second):\n%s", cfg.Mode, seed, diff)
		}
	}
}

// TestOrderedWalkAgreesWithFullScan: best-match's early-stopping walk of the ready heaps
// must choose exactly the worker a scan of every ready carrier chooses.
func TestOrderedWalkAgreesWithFullScan(t *testing.T) {
	for _, cfg := range []Config{{Rules: RulesEveryTag}, {Rules: RulesEveryTag, DefaultMaxBacklog: 2}, {Rules: RulesEveryTag, Learning: LearningConfig{LearnedVeto: true, LearnedVetoMinSamples: 2}}} {
		seed := propSeed(t)
		walk := newPropRun(cfg, seed)
		scan := newPropRun(cfg, seed)
		scan.e.fullScan = true
		if err := walk.run(4000); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := scan.run(4000); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if diff := cmp.Diff(scan.events.String(), walk.events.String()); diff != "" {
			t.Errorf("seed %d: events differ (-full scan +ordered walk):\n%s", seed, diff)
		}
	}
}

// TestInterningIgnoresMapOrder: tag ids (which order tags inside the engine, and with
// them score sums and reasons) come from sorted keys, never from map iteration order.
func TestInterningIgnoresMapOrder(t *testing.T) {
	weights := map[string]float64{}
	thresholds := map[string]float64{}
	for _, k := range []string{"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"} {
		weights["w"+k] = 1
		thresholds["t"+k] = 0
	}
	var first []string
	for i := range 20 {
		e := New(Config{Rules: RulesEveryTag})
		if _, err := e.UpsertWorker(t0, WorkerInput{ID: "w", RoutingWeights: weights}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.CreateTask(t0, TaskInput{ID: "t", Tags: []string{"x"}, SkillThresholds: thresholds}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = e.tagNames
			continue
		}
		if diff := cmp.Diff(first, e.tagNames); diff != "" {
			t.Fatalf("run %d interned in another order:\n%s", i, diff)
		}
	}
}
