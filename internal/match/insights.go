package match

import (
	"cmp"
	"slices"
	"time"
)

// Census counts tasks by status and finds the longest-waiting queued task
// (GET /stats). It changes nothing; its cost is one pass over every task.
type Census struct {
	ByStatus     map[Status]int
	OldestQueued time.Time // CreatedAt of the oldest queued task; zero when none is queued
}

// Census walks every task once.
func (e *Engine) Census() Census {
	c := Census{ByStatus: map[Status]int{}}
	for _, t := range e.taskList {
		c.ByStatus[t.status]++
		if t.status == StatusQueued && (c.OldestQueued.IsZero() || t.createdAt.Before(c.OldestQueued)) {
			c.OldestQueued = t.createdAt
		}
	}
	return c
}

// DefaultMaxBacklog is the cap of a worker without its own maxBacklogSize.
func (e *Engine) DefaultMaxBacklog() int { return e.cfg.DefaultMaxBacklog }

// QueueEntry is one queued task as AuditQueue sees it.
type QueueEntry struct {
	TaskID    string
	Tags      []string
	CreatedAt time.Time
	// Eligible counts the workers that could be offered the task now.
	Eligible int
	// Uncovered are the task's tags no worker carries (literally or by a positive pattern).
	Uncovered []string
	// Blockers counts, per failing rule, the workers carrying at least one of the task's
	// tags that the rule keeps from it; a worker failing two rules counts under both.
	Blockers map[ReasonKind]int
}

// blocking reports whether a reason kind is a failure (the others explain a score).
func blocking(k ReasonKind) bool {
	switch k {
	case ReasonTagWeight, ReasonLearningBoost, ReasonLoadPenalty, ReasonManualAssign:
		return false
	}
	return true
}

// AuditQueue examines every queued task against the workers carrying any of its tags
// (GET /stats/queue-audit), oldest first, then in creation order. It changes nothing; its
// cost is one eligibility check per (queued task, carrying worker).
func (e *Engine) AuditQueue() []QueueEntry {
	var out []QueueEntry
	var rs []Reason
	for _, t := range e.taskList {
		if t.status != StatusQueued {
			continue
		}
		s := e.taskSpec(t)
		en := QueueEntry{TaskID: t.id, Tags: slices.Clone(t.tagsIn), CreatedAt: t.createdAt, Blockers: map[ReasonKind]int{}}
		carriedBy := make([]int, len(s.tags))
		e.visitSeq++
		stamp := e.visitSeq
		visit := func(w *worker) {
			if w.visit == stamp {
				return
			}
			w.visit = stamp
			carries := false
			for i, id := range s.tags {
				if weight, explicit, ok := e.weightOf(w, id, s.name(e, i)); ok && !(explicit && weight == 0) {
					carriedBy[i]++
					carries = true
				}
			}
			if !carries {
				return
			}
			rs = rs[:0]
			if ok, _ := e.check(w, &s, true, &rs); ok {
				en.Eligible++
				return
			}
			var seen []ReasonKind
			for _, r := range rs {
				if blocking(r.Kind) && !slices.Contains(seen, r.Kind) {
					seen = append(seen, r.Kind)
					en.Blockers[r.Kind]++
				}
			}
		}
		for _, id := range s.tags {
			for _, w := range e.all[id].items {
				visit(w)
			}
		}
		for _, w := range e.allPat.items {
			visit(w)
		}
		for i, n := range carriedBy {
			if n == 0 {
				en.Uncovered = append(en.Uncovered, s.name(e, i))
			}
		}
		out = append(out, en)
	}
	slices.SortStableFunc(out, func(a, b QueueEntry) int { return cmp.Compare(a.CreatedAt.UnixNano(), b.CreatedAt.UnixNano()) })
	return out
}

// DueDeadlines counts the offer expiries due at or before now that have not fired yet:
// those the next Advance will fire.
func (e *Engine) DueDeadlines(now time.Time) int {
	n := 0
	for _, d := range e.deadlines.h {
		if d.deadline <= now.UnixNano() {
			n++
		}
	}
	return n
}
