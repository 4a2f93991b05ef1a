package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatMean: a learned (worker, tag) mean is the decayed weighted rewards over the
// decayed weight, and 0 (not NaN) when the weight is 0, as after a decay that underflows.
func TestStatMean(t *testing.T) {
	got := []float64{
		(&stat{}).mean(),
		(&stat{sumW: 0, sumWR: 0, count: 3}).mean(),
		(&stat{sumW: 2, sumWR: 3, count: 2}).mean(),
		(&stat{sumW: 0.5, sumWR: -1, count: 1}).mean(),
	}
	if diff := cmp.Diff([]float64{0, 0, 1.5, -2}, got); diff != "" {
		t.Errorf("means (-want +got):\n%s", diff)
	}
}
