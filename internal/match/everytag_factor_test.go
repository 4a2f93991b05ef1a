package match

import (
	"math"
	"testing"
)

// TestEveryTagScoreCarriesTheLearningFactor: under the every-tag rules a worker's score is
// its weight times the learning factor 1 + 0.5 × the mean over the task's tags of
// tanh(mean reward / 2) (docs/contract.md), here after one accept (+1 on tag a) and for a
// task of tags a and b, of which the worker has learned a only.
func TestEveryTagScoreCarriesTheLearningFactor(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesEveryTag})
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a", "b"}, Available: ptr(true)})
	h.task("t1", "a")
	h.accept("t1", "w1")
	cands, err := h.e.SuggestWorkers(SuggestInput{Tags: []string{"a", "b"}})
	if err != nil || len(cands) != 1 {
		t.Fatalf("SuggestWorkers = %+v, %v; want w1 alone", cands, err)
	}
	alone, err := h.e.SuggestWorkers(SuggestInput{Tags: []string{"b"}})
	if err != nil || len(alone) != 1 {
		t.Fatalf("SuggestWorkers(b) = %+v, %v; want w1 alone", alone, err)
	}
	// w1 carries a and b at weight 1 each: the score is their sum times the factor, whose
	// mean is over both tags (tanh(1/2) for a, 0 for b, which has no reward yet).
	factor := 1 + 0.5*(math.Tanh(0.5)+0)/2
	if got, want := cands[0].Score, 2*factor; math.Abs(got-want) > 1e-12 {
		t.Errorf("score of a and b %.15g, want %.15g", got, want)
	}
	if got := alone[0].Score; got != 1 {
		t.Errorf("score of b alone %v, want 1 (no reward on b: factor 1)", got)
	}
}
