package match

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFrontierWalksAHeapInOrder: a frontier walk visits a binary min-heap's nodes in the
// heap's order (lowest first) without changing the heap, for heaps of every shape up to 64
// nodes, with repeated values, and for walks stopped early.
func TestFrontierWalksAHeapInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for n := 1; n <= 64; n++ {
		for round := range 20 {
			vals := make([]int, n)
			for i := range vals {
				vals[i] = rng.IntN(n) // repeats
			}
			// Build the heap by sifting each new value up, as the package's heaps do.
			for c := range vals {
				for c > 0 && vals[c] < vals[(c-1)/2] {
					vals[c], vals[(c-1)/2] = vals[(c-1)/2], vals[c]
					c = (c - 1) / 2
				}
			}
			before := slices.Clone(vals)
			f := frontier{size: int32(n), less: func(a, b int32) bool { return vals[a] < vals[b] }}
			f.push(0)
			stop := max(1, n-round%3) // some walks stop before the end
			var got []int
			for len(f.idx) > 0 && len(got) < stop {
				i := f.pop()
				got = append(got, vals[i])
				f.pushChildren(i)
			}
			want := slices.Sorted(slices.Values(before))[:stop]
			if !slices.Equal(got, want) {
				t.Fatalf("heap of %d %v: walked %v, want %v", n, before, got, want)
			}
			if !slices.Equal(vals, before) {
				t.Fatalf("the walk changed the heap: %v, was %v", vals, before)
			}
		}
	}
}
