package match

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlatformWindowReadsPastRoundedBounds: the window read stops a tag only when nothing
// left in it can enter the window, even where rounding makes the bounds of two priorities
// equal. With a weight of 0.5, the priorities -4 and -3 times the least subnormal both rank
// -2 times it (a half rounds to even), so task a, read after b and c, ties b, the window's
// worst, and enters the window of one by its id.
func TestPlatformWindowReadsPastRoundedBounds(t *testing.T) {
	ulp := math.SmallestNonzeroFloat64
	if 0.5*(-4*ulp) != 0.5*(-3*ulp) {
		t.Fatal("precondition: the two ranks round to one value")
	}
	h := newHarness(t, Config{Rules: RulesPlatform, CandidateWindow: 1})
	h.workerIn(WorkerInput{ID: "w1", RoutingWeights: map[string]float64{"a": 0.5}, MaxBacklogSize: ptr(1)})
	h.taskIn(TaskInput{ID: "b", Tags: []string{"a"}, Priority: -4 * ulp})
	h.taskIn(TaskInput{ID: "c", Tags: []string{"a"}, Priority: -4 * ulp})
	h.taskIn(TaskInput{ID: "a", Tags: []string{"a"}, Priority: -3 * ulp})
	h.available("w1", true)
	want := map[string]string{"a": "pending:w1", "b": "queued", "c": "queued"}
	if diff := cmp.Diff(want, h.state()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
