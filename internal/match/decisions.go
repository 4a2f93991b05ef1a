package match

import "strconv"

// decide builds the decision for offering t to the first worker of e.scan, which must hold
// the scan for t: the chosen worker first, the other best eligible ones, then ineligible
// ones that were examined, with their reasons.
func (e *Engine) decide(t *task) Decision {
	s := e.taskSpec(t)
	sc := &e.scan
	d := Decision{TaskID: t.id, WorkerID: sc.top[0].w.id, MatchedAt: e.nowTime, Mode: e.cfg.Mode}
	d.Candidates = make([]Candidate, 0, min(sc.limit, len(sc.top)+len(sc.inelig)))
	// All reasons of a decision share one backing array: one allocation, not 25.
	var rs []Reason
	for i, c := range sc.top {
		d.Candidates = append(d.Candidates, e.candidateInto(&rs, c.w, &s, false, i == 0))
	}
	for _, w := range sc.inelig {
		if len(d.Candidates) >= sc.limit {
			break
		}
		d.Candidates = append(d.Candidates, e.candidateInto(&rs, w, &s, false, false))
	}
	return d
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
func (e *Engine) record(d *Decision) {
	e.decSeq++
	d.Seq = e.decSeq
	d.ID = e.cfg.DecisionIDPrefix + strconv.FormatUint(e.decSeq, 10)
	e.decisions = append(e.decisions, cloneDecision(*d))
	if over := len(e.decisions) - e.cfg.DecisionRetention; over > 0 {
		clear(e.decisions[:over])
		e.decisions = e.decisions[over:]
	}
	floor := e.decisions[0].Seq
	if t := e.tasks[d.TaskID]; t != nil {
		t.decs = trimSeqs(append(t.decs, d.Seq), floor)
	}
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

func (e *Engine) decisionBySeq(seq uint64) (Decision, bool) {
	if len(e.decisions) == 0 || seq < e.decisions[0].Seq {
		return Decision{}, false
	}
	i := int(seq - e.decisions[0].Seq)
	if i >= len(e.decisions) {
		return Decision{}, false
	}
	return e.decisions[i], true
}

// Decisions lists retained decisions, newest first (GET /decisions). Only the newest
// Config.DecisionRetention decisions are kept.
func (e *Engine) Decisions(q DecisionQuery) []Decision {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	out := []Decision{}
	add := func(d Decision) bool {
		if q.WorkerID != "" && d.WorkerID != q.WorkerID {
			return true
		}
		if q.TaskID != "" && d.TaskID != q.TaskID {
			return true
		}
		out = append(out, cloneDecision(d))
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
			if !add(e.decisions[i]) {
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
