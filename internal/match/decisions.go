package match

import (
	"slices"
	"strconv"
	"strings"
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

// decide explains offering e.scan's task to the first worker of its scan, which must be
// current: the chosen worker first, the other best eligible ones, the ineligible ready ones that
// were examined, then up to waitingQuota carriers of the task's tags that are not ready
// (unavailable, on a break, at their cap), all with their reasons and at most
// MaxCandidates in all. The explanation stays in e.marks and e.reasons, reused buffers
// that record compacts into the decision log: no exported Decision is built per match.
func (e *Engine) decide() {
	sc := &e.scan
	s := &sc.spec
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
	e.reasons, e.marks = rs, marks
}

// explained returns the explanation in e.marks and e.reasons in the exported form, with
// one allocation for candidates and one for reasons. The engine builds it only when a
// decision does not fit the compact log, and for a test observer.
func (e *Engine) explained(priority float64) []Candidate {
	cs := make([]Candidate, len(e.marks))
	all := slices.Clone(e.reasons)
	for i, m := range e.marks {
		c := Candidate{WorkerID: m.w.id, Eligible: m.ok, Chosen: m.chosen, Score: m.score, EffectivePriority: priority}
		if m.end > m.start {
			c.Reasons = all[m.start:m.end:m.end]
		}
		cs[i] = c
	}
	return cs
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

// explainAssign explains an Assign in e.marks and e.reasons: one candidate, the assigned
// worker, with its real eligibility so an operator can see what the override bypassed.
func (e *Engine) explainAssign(t *task, w *worker) {
	s := e.taskSpec(t)
	rs := append(e.reasons[:0], Reason{Kind: ReasonManualAssign})
	ok, score := e.check(w, &s, true, &rs)
	e.reasons = rs
	e.marks = append(e.marks[:0], candMark{w: w, ok: ok, chosen: true, score: score, start: 0, end: len(rs)})
}

// record numbers the decision explained in e.marks and e.reasons (the chosen worker w
// first), compacts it into the log and returns its id. The log is a ring of
// Config.DecisionRetention slots: a new decision takes the oldest one's slot and reuses its
// buffers, so once the ring is full keeping a decision allocates only its id.
func (e *Engine) record(t *task, w *worker, mode Mode) string {
	e.decSeq++
	seq := e.decSeq
	id := seqID(e.cfg.DecisionIDPrefix, seq)
	if e.onDecide != nil {
		e.onDecide(Decision{ID: id, Seq: seq, TaskID: t.id, WorkerID: w.id, MatchedAt: e.nowTime, Mode: mode,
			Candidates: e.explained(t.priority), Ties: tieSet(e.plat.tie)})
	}
	sd := e.logSlot(seq)
	sd.head = Decision{ID: id, Seq: seq, TaskID: t.id, WorkerID: w.id, MatchedAt: e.nowTime, Mode: mode}
	e.compact(sd, t)
	sd.ties = sd.ties[:0]
	if len(e.plat.tie) > 1 {
		sd.ties = append(sd.ties, e.plat.tie...)
	}
	e.plat.tie = e.plat.tie[:0]
	clear(e.marks) // drop the worker pointers; the buffers stay for the next decision
	e.marks, e.reasons = e.marks[:0], e.reasons[:0]
	floor := e.logFloor()
	t.decs = trimSeqs(append(t.decs, seq), floor)
	e.decByWork[w.id] = trimSeqs(append(e.decByWork[w.id], seq), floor)
	return id
}

// seqID formats prefix and n with one allocation, for event and decision ids.
func seqID(prefix string, n uint64) string {
	var buf [32]byte
	return string(strconv.AppendUint(append(buf[:0], prefix...), n, 10))
}

// logSlot returns the ring slot of decision seq, growing the ring until it holds
// Config.DecisionRetention slots. Numbers run 1, 2, ... without gaps, so while the ring
// grows seq is always the next index.
func (e *Engine) logSlot(seq uint64) *storedDecision {
	if len(e.decisions) < e.cfg.DecisionRetention {
		e.decisions = append(e.decisions, storedDecision{})
		return &e.decisions[len(e.decisions)-1]
	}
	return &e.decisions[(seq-1)%uint64(len(e.decisions))]
}

// logFloor is the number of the oldest retained decision (decSeq+1 when none is).
func (e *Engine) logFloor() uint64 { return e.decSeq + 1 - uint64(len(e.decisions)) }

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
	if seq < e.logFloor() || seq > e.decSeq {
		return nil, false
	}
	return &e.decisions[(seq-1)%uint64(len(e.decisions))], true
}

// Decision returns one retained decision by its id (the decisionId of task.matched, an
// entry of GET /decisions), rebuilt from the log; false when the id is unknown or the
// decision is older than the newest Config.DecisionRetention.
func (e *Engine) Decision(id string) (Decision, bool) {
	sd, ok := e.decisionByID(id)
	if !ok {
		return Decision{}, false
	}
	return e.expand(sd), true
}

// DecisionTies returns Decision(id).Ties without rebuilding the decision: the workers that
// tied with the chosen one, the chosen one included, or nil when the choice was strict or
// the decision is not retained.
func (e *Engine) DecisionTies(id string) []string {
	sd, ok := e.decisionByID(id)
	if !ok {
		return nil
	}
	return tieSet(sd.ties)
}

func (e *Engine) decisionByID(id string) (*storedDecision, bool) {
	num, ok := strings.CutPrefix(id, e.cfg.DecisionIDPrefix)
	if !ok {
		return nil, false
	}
	seq, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return nil, false
	}
	sd, ok := e.decisionBySeq(seq)
	// The id check turns away other spellings of the number ("dec_007").
	if !ok || sd.head.ID != id {
		return nil, false
	}
	return sd, true
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
		for seq := e.decSeq; seq >= e.logFloor() && seq > 0; seq-- {
			d, _ := e.decisionBySeq(seq)
			if !add(d) {
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
