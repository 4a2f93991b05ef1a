package mockserver

import (
	"errors"
	"math"
	"testing"
	"time"
)

// TestDelayDistributionEdges: each distribution's rule at its edges, as its error message
// states it: a fixed delay > 0; uniform 0 <= min <= max, max > 0; log-normal median > 0, a
// finite sigma >= 0 (0: every draw is the median) and max >= 0; no delay over an hour.
func TestDelayDistributionEdges(t *testing.T) {
	srv := Start(t)
	tests := []struct {
		name string
		d    DelayDistribution
		ok   bool
	}{
		{"fixed 0", DelayDistribution{Type: DelayFixed, Fixed: 0}, false},
		{"fixed 1 ns", DelayDistribution{Type: DelayFixed, Fixed: 1}, true},
		{"fixed an hour", DelayDistribution{Type: DelayFixed, Fixed: time.Hour}, true},
		{"fixed an hour and 1 ns", DelayDistribution{Type: DelayFixed, Fixed: time.Hour + 1}, false},
		{"uniform from 0", DelayDistribution{Type: DelayUniform, Min: 0, Max: 1}, true},
		{"uniform min equal to max", DelayDistribution{Type: DelayUniform, Min: 5, Max: 5}, true},
		{"uniform max 0", DelayDistribution{Type: DelayUniform, Min: 0, Max: 0}, false},
		{"log-normal sigma 0", DelayDistribution{Type: DelayLogNormal, Median: 5, Sigma: 0}, true},
		{"log-normal median 1 ns", DelayDistribution{Type: DelayLogNormal, Median: 1, Sigma: 1}, true},
		{"log-normal median 0", DelayDistribution{Type: DelayLogNormal, Median: 0, Sigma: 1}, false},
		{"log-normal infinite sigma", DelayDistribution{Type: DelayLogNormal, Median: 5, Sigma: math.Inf(1)}, false},
		{"log-normal max 0 (none)", DelayDistribution{Type: DelayLogNormal, Median: 5, Sigma: 1, Max: 0}, true},
		{"log-normal negative max", DelayDistribution{Type: DelayLogNormal, Median: 5, Sigma: 1, Max: -1}, false},
		{"log-normal max over an hour", DelayDistribution{Type: DelayLogNormal, Median: 5, Sigma: 1, Max: time.Hour + 1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.d
			err := srv.InjectFault(Fault{DelayDist: &d})
			srv.ClearFaults()
			if tc.ok && err != nil {
				t.Errorf("InjectFault = %v, want it accepted", err)
			}
			if !tc.ok && !errors.Is(err, ErrInvalidFault) {
				t.Errorf("InjectFault = %v, want ErrInvalidFault", err)
			}
		})
	}
}
