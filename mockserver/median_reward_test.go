package mockserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMedianIsAValueThatHappened: the middle value of unsorted samples, the lower of the two
// middle ones for an even count, nil for none.
func TestMedianIsAValueThatHappened(t *testing.T) {
	for _, tc := range []struct {
		in   []int64
		want *int64
	}{
		{nil, nil},
		{[]int64{7}, ptrTo(int64(7))},
		{[]int64{5, 1, 3}, ptrTo(int64(3))},
		{[]int64{4, 1, 3, 2}, ptrTo(int64(2))},
		{[]int64{9, 9, 1, 1, 5}, ptrTo(int64(5))},
	} {
		if d := cmp.Diff(tc.want, median(append([]int64(nil), tc.in...))); d != "" {
			t.Errorf("median(%v) (-want +got):\n%s", tc.in, d)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestSignalRewardSumsInAFixedOrder: a feedback's reward is the sum of its signals in the
// order of their names, so the same signals give the same bits whatever a map's order
// (0.1 + 0.2 + 0.3 is 0.6000000000000001; summed from the other end it is 0.6).
func TestSignalRewardSumsInAFixedOrder(t *testing.T) {
	a, b, c := 0.1, 0.2, 0.3 // variables: constant arithmetic would be exact
	signals := map[string]float64{"a": a, "b": b, "c": c}
	want := (a + b) + c
	if want == (c+b)+a {
		t.Fatalf("the two summing orders agree (%.17g): the test shows nothing", want)
	}
	for range 200 {
		if got := signalReward(signals); got != want {
			t.Fatalf("signalReward = %.17g, want %.17g", got, want)
		}
	}
}
