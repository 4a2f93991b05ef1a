package match

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClockHeapOrder: the task clocks come off the heap in time order, ties in creation
// order, after any mix of pushes and removals from the middle, so the clock fired next is
// always the earliest one due.
func TestClockHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 60))
	for round := range 50 {
		var d clockHeap
		var live []*task
		for i := range 40 {
			tk := &task{id: "t", seq: uint64(i), cl: &clockState{at: 1 + rng.Int64N(20)}}
			d.push(tk)
			live = append(live, tk)
		}
		for range 15 { // removals from anywhere in the heap
			k := rng.IntN(len(live))
			d.remove(live[k])
			live = slices.Delete(live, k, k+1)
		}
		type clock struct {
			At  int64
			Seq uint64
		}
		var want []clock
		for _, tk := range live {
			want = append(want, clock{tk.cl.at, tk.seq})
		}
		slices.SortFunc(want, func(a, b clock) int {
			if a.At != b.At {
				return int(a.At - b.At)
			}
			return int(a.Seq) - int(b.Seq)
		})
		var got []clock
		for len(d.h) > 0 {
			top := d.h[0]
			got = append(got, clock{top.cl.at, top.seq})
			d.remove(top)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d: order off the heap (-want +got):\n%s", round, diff)
		}
	}
}
