package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSweepTickIsTheFirstTickAtOrAfter: under RulesPlatform with a maintenance interval, an
// offer expires on the first sweep at or after its deadline, and sweeps fall on whole
// multiples of the interval of Unix time, before 1970 as after.
func TestSweepTickIsTheFirstTickAtOrAfter(t *testing.T) {
	e := New(Config{Rules: RulesPlatform, MaintenanceInterval: 10 * time.Second})
	s := int64(time.Second)
	in := []int64{-25 * s, -20 * s, -15 * s, -1, 0, 1, 15 * s, 20 * s, 25 * s}
	want := []int64{-20 * s, -20 * s, -10 * s, 0, 0, 10 * s, 20 * s, 20 * s, 30 * s}
	got := make([]int64, len(in))
	for i, at := range in {
		got[i] = e.sweepTick(at)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ticks of %v (-want +got):\n%s", in, diff)
	}
}
