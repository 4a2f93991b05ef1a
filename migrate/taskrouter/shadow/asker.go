package shadow

import (
	"context"
	"fmt"
	"slices"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

type standing int

const (
	standingNot standing = iota
	standingEligible
	standingFirst
	standingUnknown
)

// asker puts the comparison's questions to one mock server, keeping its workers'
// availability in step and reusing answers that are still valid.
//
// Reuse rests on one property every rule set of the mock server has: a worker is offered a
// task only through a tag they share (the plan's workers carry tags only, no weights). So a
// worker's availability matters only to tag sets sharing one of its tags: a change forgets
// the rankings of those tag sets only, and is sent to the mock server only before a tag set
// it shares is asked about.
type asker struct {
	m        *mirror
	sent     map[string]bool // availability the mock server holds
	pending  map[string]bool // changes not sent yet
	tagsOf   map[string][]string
	rankings map[string]*ranking
	requests int
}

func newAsker(ctx context.Context, at time.Time, p *plan.Plan, avail map[string]bool) (*asker, error) {
	m, err := newMirror(at)
	if err != nil {
		return nil, err
	}
	a := &asker{m: m, sent: map[string]bool{}, pending: map[string]bool{}, tagsOf: map[string][]string{}, rankings: map[string]*ranking{}}
	workers := slices.Clone(p.Workers)
	for i := range workers {
		w := &workers[i]
		w.Available = taskrouting.Ptr(avail[w.ID])
		a.sent[w.ID] = avail[w.ID]
		a.tagsOf[w.ID] = w.Tags
	}
	if err := m.upsert(ctx, workers); err != nil {
		m.close()
		return nil, err
	}
	return a, nil
}

func (a *asker) close() { a.m.close() }

// change records a worker's new availability.
func (a *asker) change(worker string, avail bool) {
	if avail == a.sent[worker] {
		delete(a.pending, worker)
	} else {
		a.pending[worker] = avail
	}
	for key, rk := range a.rankings {
		if sharesTag(rk.tags, a.tagsOf[worker]) {
			delete(a.rankings, key)
		}
	}
}

func sharesTag(x, y []string) bool {
	for _, s := range x {
		if slices.Contains(y, s) {
			return true
		}
	}
	return false
}

// flush sends the pending availability changes of the workers sharing a tag with tags.
func (a *asker) flush(ctx context.Context, tags []string) error {
	for w, avail := range a.pending {
		if !sharesTag(tags, a.tagsOf[w]) {
			continue
		}
		a.requests++
		if _, err := a.m.c.Workers.SetAvailability(ctx, w, taskrouting.SetAvailabilityParams{Available: avail}); err != nil {
			return fmt.Errorf("set availability of %s: %w", w, err)
		}
		a.sent[w] = avail
		delete(a.pending, w)
	}
	return nil
}

// ranking is the mock server's answer for one tag set and priority: the eligible workers
// in its order, as far as asked for. complete: every eligible worker is listed.
type ranking struct {
	tags     []string
	eligible []string
	complete bool
	vetoed   []string
	rounds   int
}

// ask extends rk by one more question: the first 10 candidates, then 100, then past 100 by
// vetoing the first 64 (suggest-workers lists at most 100 and takes at most 64 vetoes).
func (a *asker) ask(ctx context.Context, rk *ranking, prio float64) error {
	limit := 10
	if rk.rounds > 0 {
		limit = 100
	}
	if rk.rounds == 2 {
		rk.vetoed = slices.Clone(rk.eligible[:64])
	}
	a.requests++
	cands, err := a.m.suggest(ctx, taskrouting.SuggestWorkersParams{
		Tags: rk.tags, Priority: taskrouting.Ptr(prio), Limit: limit, VetoedWorkers: rk.vetoed})
	if err != nil {
		return fmt.Errorf("suggest workers: %w", err)
	}
	rk.rounds++
	eligible := slices.Clone(rk.vetoed)
	for _, c := range cands {
		if c.Eligible {
			eligible = append(eligible, c.WorkerID)
		}
	}
	rk.eligible, rk.complete = eligible, len(eligible)-len(rk.vetoed) < limit
	return nil
}

// rank says where worker stands for a task with these tags and priority now: first choice,
// eligible, not eligible, or unknown (past what three questions reach); anyone reports
// whether any worker is eligible.
func (a *asker) rank(ctx context.Context, tags []string, prio float64, worker string) (standing, bool, error) {
	key := fmt.Sprint(prio, tags)
	rk := a.rankings[key]
	if rk == nil {
		if err := a.flush(ctx, tags); err != nil {
			return standingNot, false, err
		}
		rk = &ranking{tags: tags}
		a.rankings[key] = rk
	}
	for {
		if rk.rounds == 0 {
			if err := a.ask(ctx, rk, prio); err != nil {
				return standingNot, false, err
			}
		}
		if i := slices.Index(rk.eligible, worker); i >= 0 {
			if i == 0 {
				return standingFirst, true, nil
			}
			return standingEligible, true, nil
		}
		if rk.complete {
			return standingNot, len(rk.eligible) > 0, nil
		}
		if rk.rounds == 3 {
			return standingUnknown, true, nil
		}
		if err := a.ask(ctx, rk, prio); err != nil {
			return standingNot, false, err
		}
	}
}
