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
// in its order, as far as asked for, and the ineligible ones it listed. complete: every
// eligible worker is listed.
type ranking struct {
	tags     []string
	eligible []candidate
	others   map[string]candidate
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
		rk.vetoed = ids(rk.eligible[:64])
	}
	a.requests++
	cands, err := a.m.suggest(ctx, taskrouting.SuggestWorkersParams{
		Tags: rk.tags, Priority: taskrouting.Ptr(prio), Limit: limit, VetoedWorkers: rk.vetoed})
	if err != nil {
		return fmt.Errorf("suggest workers: %w", err)
	}
	rk.rounds++
	eligible := slices.Clone(rk.eligible[:len(rk.vetoed)])
	if rk.others == nil {
		rk.others = map[string]candidate{}
	}
	for _, c := range cands {
		switch {
		case c.Eligible:
			eligible = append(eligible, c)
		case !slices.Contains(rk.vetoed, c.WorkerID): // vetoed here only to page past 100
			rk.others[c.WorkerID] = c
		}
	}
	rk.eligible, rk.complete = eligible, len(eligible)-len(rk.vetoed) < limit
	return nil
}

func ids(cs []candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.WorkerID
	}
	return out
}

// answer is where a reservation's worker stands here.
type answer struct {
	standing standing
	anyone   bool // some worker is eligible
	// ranked is the eligible workers, best first, as far as the worker or the end of the
	// tie for first (whichever is later), without those the task vetoes; then the worker's
	// own candidate when it is not eligible (listed, or vetoed).
	ranked []candidate
	// tieOpen: every eligible worker listed ties for first and the listing stops there, so
	// the tie may be larger.
	tieOpen bool
}

// rank says where worker stands for a task with these tags and priority now, when the
// workers in vetoed rejected it before (the platform offers a task to no worker who
// rejected it): first choice (alone or tied), eligible, not eligible, or unknown (past what
// three questions reach).
func (a *asker) rank(ctx context.Context, tags []string, prio float64, worker string, vetoed []string) (answer, error) {
	key := fmt.Sprint(prio, tags)
	rk := a.rankings[key]
	if rk == nil {
		if err := a.flush(ctx, tags); err != nil {
			return answer{}, err
		}
		rk = &ranking{tags: tags}
		a.rankings[key] = rk
	}
	for {
		if rk.rounds == 0 {
			if err := a.ask(ctx, rk, prio); err != nil {
				return answer{}, err
			}
		}
		ans, more := rk.answer(worker, vetoed)
		if !more || rk.rounds == 3 {
			return ans, nil
		}
		if err := a.ask(ctx, rk, prio); err != nil {
			return answer{}, err
		}
	}
}

// answer reads the ranking as far as it goes; more: another question could change it.
func (rk *ranking) answer(worker string, vetoed []string) (ans answer, more bool) {
	var top *candidate
	at, closed := -1, false // the worker's place among the eligible (-1: not placed; mutation:ignore: read only as at >= 0); a lower score ends the tie
	for i := range rk.eligible {
		c := &rk.eligible[i]
		if slices.Contains(vetoed, c.WorkerID) {
			continue
		}
		if top == nil {
			top = c
		}
		if c.Score != top.Score {
			if at >= 0 { // placed, and the tie is over
				closed = true
				break
			}
			closed = true
		}
		if c.WorkerID == worker {
			at = len(ans.ranked)
		}
		ans.ranked = append(ans.ranked, *c)
		if closed && at >= 0 {
			break
		}
	}
	ans.anyone = top != nil
	ans.tieOpen = top != nil && !closed && !rk.complete
	switch {
	case at >= 0 && ans.ranked[at].Score == top.Score:
		ans.standing = standingFirst
	case at >= 0:
		ans.standing = standingEligible
	case slices.Contains(vetoed, worker):
		ans.standing = standingNot
		ans.ranked = append(ans.ranked, candidate{WorkerID: worker, Reasons: rejectedReason})
	case rk.others[worker].WorkerID != "":
		ans.standing = standingNot
		ans.ranked = append(ans.ranked, rk.others[worker])
	case rk.complete:
		ans.standing = standingNot
	default:
		ans.standing = standingUnknown
		return ans, true
	}
	return ans, ans.tieOpen
}

// maxTieListed bounds the tied workers a reservation's detail names (TieSize counts all).
const maxTieListed = 10

// detail keeps what a reservation's report needs, small enough to keep for every
// reservation: the first maxTieListed workers of the tie for first, then the worker's own
// candidate when it is not among them; how many tie; and the worker's 1-based rank among
// the eligible (0 when not eligible).
func (ans answer) detail(worker string) (top []candidate, self *candidate, tie, rank int) {
	for i, c := range ans.ranked {
		if c.Eligible && c.Score == ans.ranked[0].Score && i == tie {
			tie++
			if i < maxTieListed {
				top = append(top, c)
			}
		}
		if c.WorkerID == worker {
			self = &ans.ranked[i]
			if c.Eligible {
				rank = i + 1
			}
		}
	}
	if self != nil {
		c := *self
		self = &c // not a pointer into ranked, which is dropped
	}
	return top, self, tie, rank
}

// rejectedReason is the platform's reason for a worker who rejected the task before.
var rejectedReason = []byte(`[{"kind":"` + taskrouting.ReasonRejectedPreviously + `"}]`)
