//go:build !race

package webhook

import "testing"

// TestPreparedKeyKeepsItsStates: a key's MAC states are reused, whichever order concurrent
// verifications hand them back in: two states taken and returned, again and again,
// allocate nothing after the first round. (Not under the race detector, whose sync.Pool
// drops items on purpose.)
func TestPreparedKeyKeepsItsStates(t *testing.T) {
	k := newPreparedKey("whsec_test")
	bad := 0
	allocs := testing.AllocsPerRun(100, func() {
		a, b := k.get(), k.get()
		if a == nil || b == nil || a == b {
			bad++
		}
		k.put(a)
		k.put(b)
	})
	if allocs != 0 || bad != 0 {
		t.Errorf("%v allocations per round of two states, want 0; %d rounds without two distinct states", allocs, bad)
	}
}
