package match

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPrioOrderFirstAboveIsStrictlyAbove: firstAbove gives the first entry whose priority is
// strictly above the one asked, never one equal to it, whether it is in the same chunk as the
// equal ones or starts the next. The window read stops a tag on it when rounding makes two
// priorities' bounds equal (platPast).
func TestPrioOrderFirstAboveIsStrictlyAbove(t *testing.T) {
	var o prioOrder
	var all []*task
	// Ten priorities, 30 tasks each: chunks of 32 to 64 entries, so most priorities share a
	// chunk with the next one and some end a chunk.
	for p := range 10 {
		for i := range 30 {
			id := fmt.Sprintf("t%d-%02d", p, i)
			tk := &task{id: id, key: keyOf(id), priority: float64(p) / 4}
			o.add(tk)
			all = append(all, tk)
		}
	}
	if len(o.chunks) < 5 {
		t.Fatalf("precondition: several chunks, got %d", len(o.chunks))
	}
	// all was built in the order's own order (priority, then id): its first task above a
	// priority is the answer.
	var got, want []string
	for q := -1; q <= 10; q++ {
		for _, prio := range []float64{float64(q) / 4, float64(q)/4 + 0.1} {
			name := strconv.FormatFloat(prio, 'g', -1, 64)
			wantID := "none"
			for _, tk := range all {
				if tk.priority > prio {
					wantID = tk.id
					break
				}
			}
			want = append(want, name+": "+wantID)
			gotID := "none"
			if en, ok := o.firstAbove(prio); ok {
				gotID = en.t.id
			}
			got = append(got, name+": "+gotID)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("first entry above each priority (-want +got):\n%s", diff)
	}
}
