package mockserver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// DelayType names how a fault's delay is drawn (DelayDistribution.Type).
type DelayType string

// DelayDistribution.Type values.
const (
	DelayFixed     DelayType = "fixed"     // always Fixed
	DelayUniform   DelayType = "uniform"   // uniform on [Min, Max]
	DelayLogNormal DelayType = "lognormal" // Median × e^(Sigma × N(0,1)), at most Max when Max > 0
)

// DelayDistribution draws each faulted request's delay, for timeout tests that need the long
// tail of a real network (as WireMock's delay distributions do). The draws come from a source
// seeded with the fault's Seed, one draw per faulted request in the order the requests are
// faulted, so a fault with the same Seed waits the same sequence of delays on every run.
type DelayDistribution struct {
	Type DelayType
	// Fixed is the delay of DelayFixed.
	Fixed time.Duration
	// Min and Max bound DelayUniform; Max also caps DelayLogNormal when > 0.
	Min, Max time.Duration
	// Median and Sigma shape DelayLogNormal: half the draws are below Median, and the
	// logarithm of a draw has standard deviation Sigma (0.25: mild spread; 1: a long tail).
	Median time.Duration
	Sigma  float64
}

func (d *DelayDistribution) validate() error {
	switch d.Type {
	case DelayFixed:
		if d.Fixed <= 0 {
			return fmt.Errorf("%w: a fixed delay must be > 0", ErrInvalidFault)
		}
	case DelayUniform:
		if d.Min < 0 || d.Max <= 0 || d.Min > d.Max {
			return fmt.Errorf("%w: a uniform delay needs 0 <= min <= max and max > 0", ErrInvalidFault)
		}
	case DelayLogNormal:
		if d.Median <= 0 || d.Sigma < 0 || math.IsNaN(d.Sigma) || math.IsInf(d.Sigma, 0) || d.Max < 0 {
			return fmt.Errorf("%w: a log-normal delay needs median > 0, a finite sigma >= 0 and max >= 0", ErrInvalidFault)
		}
	default:
		return fmt.Errorf("%w: delay type %q is not fixed, uniform or lognormal", ErrInvalidFault, d.Type)
	}
	if max(d.Fixed, d.Min, d.Max, d.Median) > maxDrawnDelay {
		return fmt.Errorf("%w: a delay is at most %v", ErrInvalidFault, maxDrawnDelay)
	}
	return nil
}

// maxDrawnDelay bounds a log-normal draw without Max, so a wild Sigma cannot overflow.
const maxDrawnDelay = time.Hour

// draw returns the next delay from rng.
func (d *DelayDistribution) draw(rng *rand.Rand) time.Duration {
	switch d.Type {
	case DelayUniform:
		return d.Min + time.Duration(rng.Int64N(int64(d.Max-d.Min)+1))
	case DelayLogNormal:
		limit := maxDrawnDelay
		if d.Max > 0 {
			limit = d.Max
		}
		x := float64(d.Median) * math.Exp(d.Sigma*rng.NormFloat64())
		if x >= float64(limit) {
			return limit
		}
		return time.Duration(x)
	}
	return d.Fixed
}

// newDelaySource is the fault's own stream of delay draws, apart from its Fraction dice, so
// adding a Fraction does not change the delays a Seed gives.
func newDelaySource(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x64656c6179))
}

// wait holds a faulted request for d, or until its client goes away. Tests replace it
// (faultSet.sleep) to see the delays drawn without waiting them.
func (fs *faultSet) wait(ctx context.Context, d time.Duration) {
	if fs.sleep != nil {
		fs.sleep(ctx, d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// adminDelayDistribution is a DelayDistribution as POST /_mock/faults takes it, in
// milliseconds: {"type":"fixed","ms"}, {"type":"uniform","minMs","maxMs"} or
// {"type":"lognormal","medianMs","sigma","maxMs"}.
type adminDelayDistribution struct {
	Type     DelayType `json:"type"`
	Ms       float64   `json:"ms"`
	MinMs    float64   `json:"minMs"`
	MaxMs    float64   `json:"maxMs"`
	MedianMs float64   `json:"medianMs"`
	Sigma    float64   `json:"sigma"`
}

func (in *adminDelayDistribution) dist() *DelayDistribution {
	if in == nil {
		return nil
	}
	ms := func(v float64) time.Duration {
		if v > float64(maxDrawnDelay/time.Millisecond) {
			return maxDrawnDelay + 1 // refused by validate, where a float conversion could wrap
		}
		return time.Duration(v * float64(time.Millisecond))
	}
	return &DelayDistribution{Type: in.Type, Fixed: ms(in.Ms), Min: ms(in.MinMs), Max: ms(in.MaxMs), Median: ms(in.MedianMs), Sigma: in.Sigma}
}
