package match

import (
	"slices"
	"strconv"
)

// candMark is one candidate of a decision being built; its reasons are
// Engine.reasons[start:end].
type candMark struct {
	w          *worker
	ok, chosen bool
	score      float64
	start, end int
}

// waitingQuota is how many carriers that are not ready a decision lists at most: a fifth
// of its limit, at most 3, never the chosen worker's slot. They take their slots from the
// ready workers, so an explanation with many examined workers still names a few that
// could not be asked. The cap keeps their cost small: each is a cold worker to explain
// (about 1 µs at 10,000 workers), paid by every match.
func waitingQuota(limit int) int { return min((limit+4)/5, 3, limit-1) }

// decide builds the decision for offering t to the first worker of e.scan, which must hold
// the scan for t: the chosen worker first, the other best eligible ones, the ineligible
// ready ones that were examined, then up to waitingQuota carriers of the task's tags that
// are not ready (unavailable, on a break, at their cap), all with their reasons and at
// most MaxCandidates in all. The reasons are built in reused buffers and copied out with one
// allocation for candidates and one for reasons.
func (e *Engine) decide(t *task) Decision {
	sc := &e.scan
	s := &sc.spec
	d := Decision{TaskID: t.id, WorkerID: sc.top[0].w.id, MatchedAt: e.nowTime, Mode: e.cfg.Mode}
	waiting := e.waitingCarriers(s, waitingQuota(sc.limit))
	readyRoom := sc.limit - len(waiting)
	rs, marks := e.reasons[:0], e.marks[:0]
	add := func(w *worker, state, chosen bool) {
		start := len(rs)
		ok, score := e.check(w, s, state, &rs)
		marks = append(marks, candMark{w: w, ok: ok, chosen: chosen, score: score, start: start, end: len(rs)})
	}
	for i, c := range sc.top {
		if len(marks) == readyRoom {
			break
		}
		add(c.w, false, i == 0)
	}
	for _, w := range sc.inelig {
		if len(marks) == readyRoom {
			break
		}
		add(w, false, false)
	}
	for _, w := range waiting {
		if len(marks) == sc.limit {
			break
		}
		add(w, true, false)
	}
	d.Candidates = make([]Candidate, len(marks))
	all := slices.Clone(rs)
	for i, m := range marks {
		c := Candidate{WorkerID: m.w.id, Eligible: m.ok, Chosen: m.chosen, Score: m.score, EffectivePriority: s.priority}
		if m.end > m.start {
			c.Reasons = all[m.start:m.end:m.end]
		}
		d.Candidates[i] = c
	}
	clear(marks) // drop the worker pointers; the buffers stay for the next decision
	e.reasons, e.marks = rs[:0], marks[:0]
	return d
}

// waitingCarriers returns up to n workers that carry a tag of s literally but are not ready,
// from the rarest tag's list (by carriers) first, then the other tags' lists. It reads at
// most n entries of each list beyond those already taken: O(n × tags), never a scan of
// the workers.
func (e *Engine) waitingCarriers(s *spec, n int) []*worker {
	out := e.scan.waiting[:0]
	if n <= 0 {
		return out
	}
	e.visitSeq++
	stamp := e.visitSeq
	take := func(id int32) {
		if id < 0 {
			return
		}
		for _, w := range e.waiting[id].items {
			if len(out) == n {
				return
			}
			if w.visit != stamp {
				w.visit = stamp
				out = append(out, w)
			}
		}
	}
	first, known := e.rarestTag(s, func(id int32) int { return len(e.all[id].items) })
	if known {
		take(first)
	}
	for _, id := range s.tags {
		if id != first {
			take(id)
		}
	}
	e.scan.waiting = out
	return out
}

func (e *Engine) candidate(w *worker, s *spec, state, chosen bool) Candidate {
	var rs []Reason
	return e.candidateInto(&rs, w, s, state, chosen)
}

// candidateInto appends w's reasons to *rs and returns a candidate whose Reasons is that
// capped sub-slice, so later appends never write into it.
func (e *Engine) candidateInto(rs *[]Reason, w *worker, s *spec, state, chosen bool) Candidate {
	start := len(*rs)
	ok, score := e.check(w, s, state, rs)
	mine := (*rs)[start:len(*rs):len(*rs)]
	if len(mine) == 0 {
		mine = nil
	}
	return Candidate{WorkerID: w.id, Eligible: ok, Chosen: chosen, Score: score, EffectivePriority: s.priority, Reasons: mine}
}

// assignDecision records an Assign: one candidate, the assigned worker, with its real
// eligibility so an operator can see what the override bypassed.
func (e *Engine) assignDecision(t *task, w *worker) Decision {
	s := e.taskSpec(t)
	c := e.candidate(w, &s, true, true)
	c.Reasons = append([]Reason{{Kind: ReasonManualAssign}}, c.Reasons...)
	return Decision{TaskID: t.id, WorkerID: w.id, MatchedAt: e.nowTime, Mode: ModeAssign, Candidates: []Candidate{c}}
}

// record numbers a decision and keeps it, dropping the oldest beyond the retention.
func (e *Engine) record(d *Decision, t *task) {
	e.decSeq++
	d.Seq = e.decSeq
	d.ID = e.cfg.DecisionIDPrefix + strconv.FormatUint(e.decSeq, 10)
	e.decisions = append(e.decisions, e.compact(d, t))
	if over := len(e.decisions) - e.cfg.DecisionRetention; over > 0 {
		clear(e.decisions[:over])
		e.decisions = e.decisions[over:]
	}
	floor := e.decisions[0].head.Seq
	t.decs = trimSeqs(append(t.decs, d.Seq), floor)
	e.decByWork[d.WorkerID] = trimSeqs(append(e.decByWork[d.WorkerID], d.Seq), floor)
}

// trimSeqs drops decision numbers that are no longer retained.
func trimSeqs(seqs []uint64, floor uint64) []uint64 {
	i := 0
	for i < len(seqs) && seqs[i] < floor {
		i++
	}
	if i == 0 {
		return seqs
	}
	return append(seqs[:0], seqs[i:]...)
}

func (e *Engine) decisionBySeq(seq uint64) (*storedDecision, bool) {
	if len(e.decisions) == 0 || seq < e.decisions[0].head.Seq {
		return nil, false
	}
	i := int(seq - e.decisions[0].head.Seq)
	if i >= len(e.decisions) {
		return nil, false
	}
	return &e.decisions[i], true
}

// Decisions lists retained decisions, newest first (GET /decisions). Only the newest
// Config.DecisionRetention decisions are kept.
func (e *Engine) Decisions(q DecisionQuery) []Decision {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	out := []Decision{}
	add := func(sd *storedDecision) bool {
		if q.WorkerID != "" && sd.head.WorkerID != q.WorkerID {
			return true
		}
		if q.TaskID != "" && sd.head.TaskID != q.TaskID {
			return true
		}
		out = append(out, e.expand(sd))
		return len(out) < limit
	}
	var seqs []uint64
	switch {
	case q.TaskID != "":
		if t := e.tasks[q.TaskID]; t != nil {
			seqs = t.decs
		}
	case q.WorkerID != "":
		seqs = e.decByWork[q.WorkerID]
	default:
		for i := len(e.decisions) - 1; i >= 0; i-- {
			if !add(&e.decisions[i]) {
				break
			}
		}
		return out
	}
	for i := len(seqs) - 1; i >= 0; i-- {
		d, ok := e.decisionBySeq(seqs[i])
		if !ok {
			break
		}
		if !add(d) {
			break
		}
	}
	return out
}

// cloneDecision deep-copies a decision with two allocations: candidates and reasons.
func cloneDecision(d Decision) Decision {
	n := 0
	for _, c := range d.Candidates {
		n += len(c.Reasons)
	}
	rs := make([]Reason, 0, n)
	cs := make([]Candidate, len(d.Candidates))
	for i, c := range d.Candidates {
		if c.Reasons != nil {
			start := len(rs)
			rs = append(rs, c.Reasons...)
			c.Reasons = rs[start:len(rs):len(rs)]
		}
		cs[i] = c
	}
	d.Candidates = cs
	return d
}
