package match

// storedDecision is a retained decision in a compact form. The engine keeps
// Config.DecisionRetention of them (10,000 by default) and copying them in full was much
// of its garbage per match: here a reason is 8 bytes (an interned tag id and a kind code
// instead of two strings, its non-zero numbers kept apart), so a decision takes about a
// third of the bytes of its exported form and its reasons hold no pointers for the
// garbage collector to scan. expand rebuilds the exported form, so readers never see the
// difference.
type storedDecision struct {
	head    Decision // everything but the candidates
	cands   []storedCand
	reasons []storedReason // every candidate's reasons, in candidate order
	values  []float64      // the reasons' non-zero numbers, in order
	full    []Candidate    // set instead of cands when a reason does not fit the compact form
	// Every candidate's effective priority: the task's priority when decided.
	priority float64
	ties     []string // Decision.Ties; empty for none
}

type storedCand struct {
	workerID         string
	score            float64
	nReasons         int32
	eligible, chosen bool
}

// storedReason is 8 bytes; its Weight, Threshold and Boost are in storedDecision.values
// when non-zero (has says which), since most reasons carry one number or none.
type storedReason struct {
	tag       int32 // -1: no tag
	kind      uint8
	has       uint8 // hasWeight | hasThreshold | hasBoost
	shadow    bool
	predicted bool
}

const (
	hasWeight = 1 << iota
	hasThreshold
	hasBoost
)

// kindCode numbers the reason kinds the engine produces; 0 means the kind has no code
// and the decision is stored in full.
func kindCode(k ReasonKind) uint8 {
	if k == ReasonTagWeight {
		return 10 // most reasons: tested before the switch's string comparisons, and only here
	}
	switch k {
	case ReasonMissingTag:
		return 1
	case ReasonVetoed:
		return 2
	case ReasonRejectedPreviously:
		return 3
	case ReasonBacklogFull:
		return 4
	case ReasonUnavailable:
		return 5
	case ReasonOnBreak:
		return 6
	case ReasonZeroWeight:
		return 7
	case ReasonThreshold:
		return 8
	case ReasonLearnedVeto:
		return 9
	case ReasonLearningBoost:
		return 11
	case ReasonLoadPenalty:
		return 12
	case ReasonManualAssign:
		return 13
	}
	return 0
}

func kindOf(code uint8) ReasonKind {
	switch code {
	case 1:
		return ReasonMissingTag
	case 2:
		return ReasonVetoed
	case 3:
		return ReasonRejectedPreviously
	case 4:
		return ReasonBacklogFull
	case 5:
		return ReasonUnavailable
	case 6:
		return ReasonOnBreak
	case 7:
		return ReasonZeroWeight
	case 8:
		return ReasonThreshold
	case 9:
		return ReasonLearnedVeto
	case 10:
		return ReasonTagWeight
	case 11:
		return ReasonLearningBoost
	case 12:
		return ReasonLoadPenalty
	case 13:
		return ReasonManualAssign
	}
	return ""
}

// tagCode returns the interned id of a reason's tag (-1 for none). Reasons name the
// decision's task tags, so a few comparisons with those usually find it; the strings
// share their bytes with the intern table, so each comparison is cheap.
func (e *Engine) tagCode(name string, t *task) (int32, bool) {
	if name == "" {
		return -1, true
	}
	for _, id := range t.tags {
		if e.tagNames[id] == name {
			return id, true
		}
	}
	id, ok := e.tagIDs[name]
	return id, ok
}

// compact stores the explanation in e.marks and e.reasons in sd, reusing sd's buffers
// (those of the decision whose slot it was). sd.head must be set.
func (e *Engine) compact(sd *storedDecision, t *task) {
	sd.cands, sd.reasons, sd.values, sd.full = sd.cands[:0], sd.reasons[:0], sd.values[:0], nil
	sd.priority = t.priority
	if cap(sd.cands) < len(e.marks) {
		sd.cands = make([]storedCand, 0, len(e.marks))
	}
	if cap(sd.reasons) < len(e.reasons) {
		sd.reasons = make([]storedReason, 0, len(e.reasons))
	}
	if cap(sd.values) < len(e.reasons) {
		sd.values = make([]float64, 0, len(e.reasons))
	}
	for i := range e.marks {
		m := &e.marks[i]
		sd.cands = append(sd.cands, storedCand{workerID: m.w.id, score: m.score,
			nReasons: int32(m.end - m.start), eligible: m.ok, chosen: m.chosen})
		// By pointer: a Reason is 128 bytes, and most of a decision's are read here.
		for j := m.start; j < m.end; j++ {
			r := &e.reasons[j]
			tag, okTag := e.tagCode(r.Tag, t)
			kind := kindCode(r.Kind)
			if !okTag || kind == 0 {
				sd.cands, sd.reasons, sd.values = sd.cands[:0], sd.reasons[:0], sd.values[:0]
				sd.full = e.explained(t.priority)
				return
			}
			sr := storedReason{tag: tag, kind: kind, shadow: r.Shadow, predicted: r.Predicted}
			// In flag order, the order expand reads them back.
			if r.Weight != 0 {
				sr.has |= hasWeight
				sd.values = append(sd.values, r.Weight)
			}
			if r.Threshold != 0 {
				sr.has |= hasThreshold
				sd.values = append(sd.values, r.Threshold)
			}
			if r.Boost != 0 {
				sr.has |= hasBoost
				sd.values = append(sd.values, r.Boost)
			}
			sd.reasons = append(sd.reasons, sr)
		}
	}
}

// expand returns a fresh Decision, safe for the caller to change.
func (e *Engine) expand(sd *storedDecision) Decision {
	d := sd.head
	d.Ties = tieSet(sd.ties)
	if sd.full != nil {
		return cloneDecision(Decision{Candidates: sd.full, ID: d.ID, Seq: d.Seq, TaskID: d.TaskID,
			WorkerID: d.WorkerID, MatchedAt: d.MatchedAt, Mode: d.Mode, Ties: d.Ties})
	}
	d.Candidates = make([]Candidate, len(sd.cands))
	rs := make([]Reason, len(sd.reasons))
	vals := sd.values
	next := func(has, bit uint8) float64 {
		if has&bit == 0 {
			return 0
		}
		v := vals[0]
		vals = vals[1:]
		return v
	}
	for i, r := range sd.reasons {
		rs[i] = Reason{Kind: kindOf(r.kind), Shadow: r.shadow, Predicted: r.predicted}
		rs[i].Weight = next(r.has, hasWeight)
		rs[i].Threshold = next(r.has, hasThreshold)
		rs[i].Boost = next(r.has, hasBoost)
		if r.tag >= 0 {
			rs[i].Tag = e.tagNames[r.tag]
		}
	}
	from := 0
	for i, c := range sd.cands {
		cand := Candidate{WorkerID: c.workerID, Eligible: c.eligible, Chosen: c.chosen, Score: c.score, EffectivePriority: sd.priority}
		if c.nReasons > 0 {
			end := from + int(c.nReasons)
			cand.Reasons = rs[from:end:end]
			from = end
		}
		d.Candidates[i] = cand
	}
	return d
}
