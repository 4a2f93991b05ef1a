package conformance

import "time"

// Check plays sc through the engine (via r) and the reference matcher and returns the first
// divergence, nil when they agree on every step.
func Check(r *Runner, sc Scenario) (*Divergence, error) {
	engine, err := r.PlayEngine(sc)
	if err != nil {
		return nil, err
	}
	return Compare(engine, PlayGo(sc)), nil
}

// ShrinkDivergence shrinks a diverging scenario with the engine as the oracle: a candidate
// counts as failing when the engine and the reference matcher still differ on it. A
// candidate the engine player cannot play counts as not failing, and so does every
// candidate once the time limit has passed (0: none), which ends the shrinking with what
// it has.
func ShrinkDivergence(r *Runner, sc Scenario, budget int, limit time.Duration) (Scenario, *Divergence) {
	deadline := time.Now().Add(limit)
	small := Shrink(sc, func(c Scenario) bool {
		if limit > 0 && time.Now().After(deadline) {
			return false
		}
		d, err := Check(r, c)
		return err == nil && d != nil
	}, budget)
	d, err := Check(r, small)
	if err != nil {
		return sc, nil
	}
	return small, d
}

// EngineRepeats plays sc through the engine twice and returns where the two plays differ,
// nil when they agree: the engine's default (first-come) pass claims concurrently, and this
// is how the suite shows that its outcome is still reproducible on one Redis connection.
func EngineRepeats(r *Runner, sc Scenario) (*Divergence, error) {
	first, err := r.PlayEngine(sc)
	if err != nil {
		return nil, err
	}
	second, err := r.PlayEngine(sc)
	if err != nil {
		return nil, err
	}
	return Compare(first, second), nil
}
