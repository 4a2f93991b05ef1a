package conformance

import (
	"fmt"
	"time"
)

// Player plays a scenario through one side the suite compares with the engine.
type Player struct {
	// Name is how reports name the side: "go" (internal/match) or "server" (the mock
	// server's HTTP API).
	Name string
	Play func(Scenario) ([]StepTrace, error)
}

// Players are the sides every scenario is compared on: the reference matcher the mock server
// is built around, and the mock server as a user's test reaches it.
var Players = []Player{
	{Name: "go", Play: func(sc Scenario) ([]StepTrace, error) { return PlayGo(sc), nil }},
	{Name: "server", Play: PlayServer},
}

// PlayerNamed returns the player of that name.
func PlayerNamed(name string) (Player, error) {
	for _, p := range Players {
		if p.Name == name {
			return p, nil
		}
	}
	return Player{}, fmt.Errorf("conformance: no player %q (go, server)", name)
}

// Check plays sc through the engine (via r) and the reference matcher and returns the first
// divergence, nil when they agree on every step.
func Check(r *Runner, sc Scenario) (*Divergence, error) {
	return CheckWith(r, sc, Players[0])
}

// CheckWith plays sc through the engine (via r) and through p and returns the first
// divergence, nil when they agree on every step.
func CheckWith(r *Runner, sc Scenario, p Player) (*Divergence, error) {
	engine, err := r.PlayEngine(sc)
	if err != nil {
		return nil, err
	}
	return compareWith(engine, sc, p)
}

// CheckAll plays sc through the engine once and returns, for each of Players in order, the
// first divergence from it (nil: identical).
func CheckAll(r *Runner, sc Scenario) ([]*Divergence, error) {
	engine, err := r.PlayEngine(sc)
	if err != nil {
		return nil, err
	}
	out := make([]*Divergence, len(Players))
	for i, p := range Players {
		if out[i], err = compareWith(engine, sc, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func compareWith(engine []StepTrace, sc Scenario, p Player) (*Divergence, error) {
	trace, err := p.Play(sc)
	if err != nil {
		return nil, fmt.Errorf("%s player: %w", p.Name, err)
	}
	return Compare(engine, trace), nil
}

// CheckTies plays sc through the engine and the reference matcher and reports how they
// compare when Redis may break ties between workers in hash order (cmd/conform
// -redis-defaults): the first divergence, and whether it is a tie the Go side's decisions
// disclose (WithinTies). After a tie broken differently the two states differ, so the steps
// after it are not compared.
func CheckTies(r *Runner, sc Scenario) (d *Divergence, tie bool, err error) {
	engine, err := r.PlayEngine(sc)
	if err != nil {
		return nil, false, err
	}
	trace, ties := PlayGoTies(sc)
	d = Compare(engine, trace)
	if d == nil || d.Step >= len(engine) || d.Step >= len(trace) {
		return d, false, nil
	}
	return d, WithinTies(d.Engine, d.Go, ties[d.Step]), nil
}

// ShrinkDivergence shrinks a scenario on which the engine and the player differ, with the
// engine as the oracle: a candidate counts as failing when they still differ on it. A
// candidate either side cannot play counts as not failing, and so does every candidate once
// the time limit has passed (0: none), which ends the shrinking with what it has.
func ShrinkDivergence(r *Runner, sc Scenario, p Player, budget int, limit time.Duration) (Scenario, *Divergence) {
	deadline := time.Now().Add(limit)
	small := Shrink(sc, func(c Scenario) bool {
		if limit > 0 && time.Now().After(deadline) {
			return false
		}
		d, err := CheckWith(r, c, p)
		return err == nil && d != nil
	}, budget)
	d, err := CheckWith(r, small, p)
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
