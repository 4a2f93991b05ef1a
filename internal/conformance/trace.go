package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// StepTrace is what one step decided, in the same words on both sides. Offers, expiries and
// releases are "task>worker" pairs sorted as strings: inside one match pass the engine claims
// concurrently, so the order in which a pass's offers are reported carries no meaning.
type StepTrace struct {
	// Did is the pair a pick resolved to ("accept t1>w2", "complete none"); "" for steps
	// that pick nothing.
	Did string `json:"did"`
	// Offers made by the step and the match pass after it.
	Offers []string `json:"offers"`
	// Expired offers (the engine's maintenance sweep; the reference matcher's deadlines).
	Expired []string `json:"expired"`
	// Released offers withdrawn without an answer (a worker removed); the engine keeps them
	// until they expire.
	Released []string `json:"released"`
	// Err is true when the step's command was refused.
	Err bool `json:"err"`
}

// Canonical sorts the pair lists and replaces nil lists with empty ones, so two traces that
// say the same compare equal.
func (s StepTrace) Canonical() StepTrace {
	norm := func(l []string) []string {
		l = slices.Clone(l)
		if l == nil {
			l = []string{}
		}
		slices.Sort(l)
		return l
	}
	s.Offers, s.Expired, s.Released = norm(s.Offers), norm(s.Expired), norm(s.Released)
	return s
}

// Equal reports whether two steps decided the same.
func (s StepTrace) Equal(o StepTrace) bool {
	a, b := s.Canonical(), o.Canonical()
	return a.Did == b.Did && a.Err == b.Err && slices.Equal(a.Offers, b.Offers) &&
		slices.Equal(a.Expired, b.Expired) && slices.Equal(a.Released, b.Released)
}

func (s StepTrace) String() string {
	c := s.Canonical()
	var parts []string
	if c.Did != "" {
		parts = append(parts, c.Did)
	}
	if c.Err {
		parts = append(parts, "refused")
	}
	if len(c.Expired) > 0 {
		parts = append(parts, "expired "+strings.Join(c.Expired, " "))
	}
	if len(c.Released) > 0 {
		parts = append(parts, "released "+strings.Join(c.Released, " "))
	}
	if len(c.Offers) > 0 {
		parts = append(parts, "offers "+strings.Join(c.Offers, " "))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

// Divergence is the first step on which the engine and the reference matcher decided
// differently.
type Divergence struct {
	// Step is the 0-based index of the step.
	Step int
	// Engine and Go are what each side decided at Step (zero when its trace ended earlier).
	Engine, Go StepTrace
}

func (d Divergence) String() string {
	return fmt.Sprintf("diverges at step %d:\n    engine: %s\n    go:     %s", d.Step+1, d.Engine, d.Go)
}

// Compare returns the first step on which the traces differ, or nil when they agree on every
// step. A trace that is shorter than the other differs at its first missing step.
func Compare(engine, goTrace []StepTrace) *Divergence {
	n := max(len(engine), len(goTrace))
	for i := range n {
		var e, g StepTrace
		if i < len(engine) {
			e = engine[i]
		}
		if i < len(goTrace) {
			g = goTrace[i]
		}
		if i >= len(engine) || i >= len(goTrace) || !e.Equal(g) {
			return &Divergence{Step: i, Engine: e, Go: g}
		}
	}
	return nil
}

// WithinTies reports whether the engine's step can be the Go side's with ties broken
// otherwise: the same command outcome, expiries and releases, the same tasks offered, and
// each offer the sides gave to different workers went, on the engine, to a worker the Go
// side's decision ranked equal to its own choice.
func WithinTies(engine, goStep StepTrace, ties Ties) bool {
	e, g := engine.Canonical(), goStep.Canonical()
	if e.Did != g.Did || e.Err != g.Err || !slices.Equal(e.Expired, g.Expired) || !slices.Equal(e.Released, g.Released) {
		return false
	}
	split := func(offers []string) map[string]string {
		m := make(map[string]string, len(offers))
		for _, o := range offers {
			task, worker, _ := strings.Cut(o, ">")
			m[task] = worker
		}
		return m
	}
	eo, gofs := split(e.Offers), split(g.Offers)
	if len(eo) != len(gofs) {
		return false
	}
	for task, w := range eo {
		gw, ok := gofs[task]
		if !ok {
			return false
		}
		if w != gw && !slices.Contains(ties[task], w) {
			return false
		}
	}
	return true
}

// errUnknownOp refuses a step whose Op is none of the Op* constants.
var errUnknownOp = errors.New("conformance: unknown step op")
