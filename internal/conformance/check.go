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
	// PlayTies is Play that also returns each step's Ties as the side discloses them.
	PlayTies func(Scenario) ([]StepTrace, []Ties, error)
}

// Players are the sides every scenario is compared on: the reference matcher the mock server
// is built around, and the mock server as a user's test reaches it.
var Players = []Player{
	{Name: "go", Play: func(sc Scenario) ([]StepTrace, error) { return PlayGo(sc), nil },
		PlayTies: func(sc Scenario) ([]StepTrace, []Ties, error) { tr, ties := PlayGoTies(sc); return tr, ties, nil }},
	{Name: "server", Play: PlayServer, PlayTies: PlayServerTies},
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

// TieCheck is how one player compares with the engine when Redis may break ties between
// workers in hash order (cmd/conform -redis-defaults): the first divergence (nil: identical),
// and whether it is a tie the player's decisions disclosed (WithinTies). After a tie broken
// otherwise the two states differ, so the steps after it are not compared.
type TieCheck struct {
	D   *Divergence
	Tie bool
}

// CheckTiesAll plays sc through the engine once and returns, for each of Players in order,
// how it compares within the ties that player disclosed.
func CheckTiesAll(r *Runner, sc Scenario) ([]TieCheck, error) {
	engine, err := r.PlayEngine(sc)
	if err != nil {
		return nil, err
	}
	out := make([]TieCheck, len(Players))
	for i, p := range Players {
		if out[i], err = compareTies(engine, sc, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func compareTies(engine []StepTrace, sc Scenario, p Player) (TieCheck, error) {
	trace, ties, err := p.PlayTies(sc)
	if err != nil {
		return TieCheck{}, fmt.Errorf("%s player: %w", p.Name, err)
	}
	d := Compare(engine, trace)
	if d == nil || d.Step >= len(engine) || d.Step >= len(trace) {
		return TieCheck{D: d}, nil
	}
	return TieCheck{D: d, Tie: WithinTies(d.Engine, d.Go, ties[d.Step])}, nil
}

// Reproducibility is how a scenario that explores (Options.Explores) is checked: the engine
// and the reference matcher draw exploration from different sources, so they are not
// compared with each other; each side is played twice with the same seed and must repeat
// itself, and the server must decide as the go player, draw for draw (same seed).
type Reproducibility struct {
	// Engine is where the engine's second play differs from its first (nil: none).
	Engine *Divergence
	// Players, in Players' order: where the player's second play differs from its first,
	// else (server) where its play differs from the go player's; nil: none.
	Players []*Divergence
	// Explored reports, for the engine and then each player, whether its play differs from
	// the same scenario without exploration: the draws changed a decision.
	Explored []bool
}

// CheckReproducible plays an exploring scenario as Reproducibility says.
func CheckReproducible(r *Runner, sc Scenario) (Reproducibility, error) {
	var out Reproducibility
	calm := sc.Clone()
	calm.Options.Exploration = 0
	first, err := r.PlayEngine(sc)
	if err != nil {
		return out, err
	}
	second, err := r.PlayEngine(sc)
	if err != nil {
		return out, err
	}
	base, err := r.PlayEngine(calm)
	if err != nil {
		return out, err
	}
	out.Engine = Compare(first, second)
	out.Explored = append(out.Explored, Compare(base, first) != nil)
	var goTrace []StepTrace
	for i, p := range Players {
		a, err := p.Play(sc)
		if err != nil {
			return out, fmt.Errorf("%s player: %w", p.Name, err)
		}
		b, err := p.Play(sc)
		if err != nil {
			return out, fmt.Errorf("%s player: %w", p.Name, err)
		}
		c, err := p.Play(calm)
		if err != nil {
			return out, fmt.Errorf("%s player: %w", p.Name, err)
		}
		d := Compare(a, b)
		if i == 0 {
			goTrace = a
		} else if d == nil {
			d = Compare(goTrace, a)
		}
		out.Players = append(out.Players, d)
		out.Explored = append(out.Explored, Compare(c, a) != nil)
	}
	return out, nil
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
