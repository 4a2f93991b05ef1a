package conformance

import (
	"slices"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// scenarioEpoch is when every scenario starts, on both sides.
var scenarioEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// GoConfig is the reference matcher's configuration for a scenario's engine options.
func GoConfig(o Options) match.Config {
	o = o.Normalized()
	cfg := match.Config{
		Rules:             match.RulesPlatform,
		Mode:              match.ModeBestMatch,
		CandidateWindow:   o.Batch,
		DefaultMaxBacklog: o.Backlog,
		OfferTimeout:      time.Duration(o.OfferMs) * time.Millisecond,
		// The engine sweeps on a timer; both sides sweep on the same grid of ticks.
		MaintenanceInterval: time.Duration(o.SweepMs) * time.Millisecond,
		Learning:            match.LearningConfig{Disabled: true},
	}
	if o.Learning {
		rate := o.Exploration
		cfg.Learning = match.LearningConfig{Rank: true, ExplorationRate: &rate}
		cfg.Seed = o.LearningSeed
	}
	switch o.Fairness {
	case FairnessFirstCome:
		cfg.Mode = match.ModeFirstCome
	case FairnessBalanced:
		cfg.Mode = match.ModeBalanced
	case FairnessSpreadWork:
		cfg.Mode = match.ModeSpreadWork
	}
	return cfg
}

// PlayGo plays a scenario through the reference matcher and returns its trace, one StepTrace
// per step.
func PlayGo(sc Scenario) []StepTrace {
	trace, _ := PlayGoTies(sc)
	return trace
}

// Ties are, for one step, the ties the player's decisions disclosed: task -> the workers that
// ranked equal for it in the pass that offered it, the chosen one included
// (match.Decision.Ties, mockserver.Server.Ties). A task offered on a strict choice has no
// entry.
type Ties map[string][]string

// PlayGoTies is PlayGo that also returns each step's Ties, as the reference matcher's
// decisions disclose them (match.Engine.DecisionTies).
func PlayGoTies(sc Scenario) ([]StepTrace, []Ties) {
	e := match.New(GoConfig(sc.Options))
	p := goPlayer{e: e, now: scenarioEpoch, holdings: newHoldings(),
		workers: map[string]bool{}}
	trace := make([]StepTrace, 0, len(sc.Steps))
	ties := make([]Ties, 0, len(sc.Steps))
	for _, st := range sc.Steps {
		trace = append(trace, p.step(st).Canonical())
		ties = append(ties, p.ties)
	}
	return trace, ties
}

type goPlayer struct {
	e   *match.Engine
	now time.Time
	// What each worker holds, kept from the events the same way the engine player keeps it
	// from the engine's lifecycle hook: task -> worker.
	holdings
	workers map[string]bool
	ties    Ties // the current step's
}

func (p *goPlayer) step(st Step) StepTrace {
	var out StepTrace
	var res match.Result
	var err error
	switch st.Op {
	case OpWorker:
		in := match.WorkerInput{ID: st.ID, Tags: slices.Clone(st.Tags), RoutingWeights: st.Weights, MaxBacklogSize: st.Backlog}
		if in.Tags == nil {
			in.Tags = []string{}
		}
		if in.RoutingWeights == nil {
			// The step writes the whole record, as the engine's addUser does: an update
			// without weights drops them.
			in.RoutingWeights = map[string]float64{}
		}
		if !p.workers[st.ID] {
			// A new worker is matched at once on the platform; an update keeps a pause.
			on := true
			in.Available = &on
		}
		res, err = p.e.UpsertWorker(p.now, in)
		if err == nil {
			p.workers[st.ID] = true
		}
	case OpTask:
		res, err = p.e.CreateTask(p.now, match.TaskInput{ID: st.ID, Tags: slices.Clone(st.Tags), Priority: st.Priority,
			VetoedWorkers: slices.Clone(st.Vetoed), SkillThresholds: st.Thresholds})
	case OpAccept, OpReject:
		task, worker, ok := pickPair(p.pending, p.workers, st.Pick)
		if !ok {
			out.Did = st.Op + " none"
			break
		}
		out.Did = st.Op + " " + task + ">" + worker
		if st.Op == OpAccept {
			res, err = p.e.Accept(p.now, task, worker)
		} else {
			res, err = p.e.Reject(p.now, task, worker)
		}
	case OpComplete:
		task, worker, ok := pickPair(p.accepted, p.workers, st.Pick)
		if !ok {
			out.Did = "complete none"
			break
		}
		out.Did = "complete " + task + ">" + worker
		res, err = p.e.Complete(p.now, task, worker, map[string]any{})
	case OpPause, OpResume, OpRemove:
		if !p.workers[st.ID] {
			// Only a shrunk scenario names an absent worker; both players skip the step, as
			// the suite compares decisions, not command validation.
			out.Did = st.Op + " none"
			break
		}
		if st.Op == OpRemove {
			res, err = p.e.RemoveWorker(p.now, st.ID)
			delete(p.workers, st.ID)
		} else {
			res, err = p.e.SetAvailability(p.now, st.ID, st.Op == OpResume, false)
		}
	case OpAdvance:
		p.now = p.now.Add(time.Duration(st.Ms) * time.Millisecond)
		res = p.e.Advance(p.now)
	default:
		err = errUnknownOp
	}
	out.Err = err != nil
	p.apply(res, &out)
	return out
}

// apply records a command's events in the trace and in what the workers hold, and its
// decisions' ties.
func (p *goPlayer) apply(res match.Result, out *StepTrace) {
	p.ties = Ties{}
	for _, ev := range res.Events {
		p.record(string(ev.Kind), ev.TaskID, ev.WorkerID, out)
		if ev.Kind != match.EventTaskMatched {
			continue
		}
		if tie := p.e.DecisionTies(ev.DecisionID); tie != nil {
			p.ties[ev.TaskID] = tie
		} else {
			delete(p.ties, ev.TaskID) // offered again, strictly, later in the step
		}
	}
}

// pickPair resolves a pick: the n-th (modulo) "task>worker" pair, sorted as strings, among
// those held by workers still present.
func pickPair(held map[string]string, workers map[string]bool, n int) (task, worker string, ok bool) {
	type tw struct{ task, worker string }
	live := make([]tw, 0, len(held))
	for t, w := range held {
		if workers[w] {
			live = append(live, tw{t, w})
		}
	}
	if len(live) == 0 {
		return "", "", false
	}
	slices.SortFunc(live, func(a, b tw) int {
		switch x, y := a.task+">"+a.worker, b.task+">"+b.worker; {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	if n < 0 {
		n = -n
	}
	got := live[n%len(live)]
	return got.task, got.worker, true
}
