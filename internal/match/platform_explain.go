package match

import "slices"

// ReasonZeroPriority: under RulesPlatform the task's priority plus the worker's score is
// exactly 0, which the platform's engine never offers (docs/contract.md, "How the platform
// matches"). The engine itself names no reason for it; this matcher does.
const ReasonZeroPriority ReasonKind = "zeroEffectivePriority"

// checkPlatform is check under RulesPlatform: the same state, veto, reject, booking and
// routing checks, then the platform's score (platScore) with the rule that made it 0.
func (e *Engine) checkPlatform(w *worker, s *spec, state bool, rs *[]Reason) (bool, float64) {
	names, thr := e.specNames(s)
	return e.checkPlatformNamed(w, s, names, thr, state, rs)
}

// specNames are a spec's tag names and thresholds by name, as platScoreOf takes them; nil
// thresholds when it has none.
func (e *Engine) specNames(s *spec) ([]string, map[string]float64) {
	names := make([]string, len(s.tags))
	for i := range s.tags {
		names[i] = s.name(e, i)
	}
	var thr map[string]float64
	if len(s.thr) > 0 {
		thr = make(map[string]float64, len(s.thr))
		for i, th := range s.thr {
			thr[s.thrName(e, i)] = th.min
		}
	}
	return names, thr
}

// checkPlatformNamed is checkPlatform given specNames(s), so a decision explaining many
// workers names the task's tags once.
func (e *Engine) checkPlatformNamed(w *worker, s *spec, names []string, thr map[string]float64, state bool, rs *[]Reason) (bool, float64) {
	explain := rs != nil
	ok := e.gate(w, s, state, rs)
	if !ok && !explain {
		return false, 0
	}
	fail := func(r Reason) {
		ok = false
		if explain {
			*rs = append(*rs, r)
		}
	}
	bonus := 0.0
	if s.rt != nil {
		rok, b := e.checkRouting(w, s.rt, rs)
		if !rok {
			ok = false
			if !explain {
				return false, 0
			}
		}
		bonus = b
	}
	score, why, plain := e.platPlainScore(w, s, rs)
	if !plain {
		score, why = e.platScoreOf(w, names, thr, rs)
	}
	if why != "" {
		ok = false
		if why == ReasonMissingTag && explain {
			// Name each task tag none of the worker's counting entries reaches.
			for _, n := range names {
				*rs = append(*rs, Reason{Kind: ReasonMissingTag, Tag: n})
			}
		}
	} else if s.priority+score == 0 {
		fail(Reason{Kind: ReasonZeroPriority})
	}
	if !ok {
		return false, score + bonus
	}
	return true, score + bonus
}

// platPlainScore is platScore without names, for the common pair it covers: a worker with
// literal tags and no weights, a task without thresholds. Each of the worker's tags the
// task carries counts its share, named in the worker's order as platScore names them.
// plain is false for any other pair.
func (e *Engine) platPlainScore(w *worker, s *spec, rs *[]Reason) (score float64, why ReasonKind, plain bool) {
	if len(w.weights) > 0 || w.starTags || len(s.thr) > 0 || len(w.tags) == 0 {
		return 0, "", false
	}
	share := 1 / float64(len(w.tags))
	matched := 0
	for _, id := range w.tagSeq {
		// A task has a few tags: a scan beats a binary search.
		if slices.Contains(s.tags, id) {
			matched++
			if rs != nil {
				// The interned name: the same string as the worker's, in memory a
				// decision reads anyway.
				*rs = append(*rs, Reason{Kind: ReasonTagWeight, Tag: e.tagNames[id], Weight: share})
			}
		}
	}
	if matched == 0 {
		return 0, ReasonMissingTag, true
	}
	return float64(matched) / float64(len(w.tags)), "", true
}

// decidePlatform explains offering t to w in e.marks and e.reasons: w first, then other
// workers reaching one of the task's tags (eligible ones first), at most MaxCandidates in
// all, each with the platform's reasons; with the engine's learning on, each eligible one
// also with a learningBoost naming the reward the model predicts for it.
//
// The workers are gathered first and explained after: the carriers of a rare tag are
// seldom touched and mostly out of the cache, and warming them in one loop lets their
// cache misses overlap instead of coming one worker at a time (it halves the slowest
// tenth of decisions at 10,000 workers in BenchmarkScale).
func (e *Engine) decidePlatform(t *task, w *worker) {
	met := e.explainees(t, w)
	e.plat.warmth = warmWorkers(met)
	s := e.taskSpec(t)
	names, thr := e.specNames(&s)
	rs, marks := e.reasons[:0], e.marks[:0]
	for i, x := range met {
		start := len(rs)
		ok, score := e.checkPlatformNamed(x, &s, names, thr, i > 0, &rs)
		if l := e.plat.learn; ok && l != nil {
			// The pass ranked each eligible worker's candidates with the model's prediction
			// (learnRank), from the same model: a pass trains nothing.
			rs = append(rs, Reason{Kind: ReasonLearningBoost, Boost: l.predict(e.features(x, t)), Shadow: l.shadow, Predicted: true})
		}
		marks = append(marks, candMark{w: x, ok: ok, chosen: i == 0, score: score, start: start, end: len(rs)})
	}
	clear(met)
	e.plat.workers = met[:0]
	e.reasons, e.marks = rs, e.eligibleFirst(marks)
}

// explainees returns w, then the workers a decision on t explains in the order met: the
// literal carriers of t's tags, then the workers with patterns, at most MaxCandidates in
// all, each once.
func (e *Engine) explainees(t *task, w *worker) []*worker {
	limit := e.cfg.MaxCandidates
	e.visitSeq++
	stamp := e.visitSeq
	w.visit = stamp
	met := append(e.plat.workers[:0], w)
	visit := func(x *worker) bool {
		if len(met) >= limit {
			return false
		}
		if x.visit != stamp {
			x.visit = stamp
			met = append(met, x)
		}
		return true
	}
	for _, id := range t.tags {
		for _, x := range e.all[id].items {
			if !visit(x) {
				break
			}
		}
	}
	for _, x := range e.allPat.items {
		if !visit(x) {
			break
		}
	}
	return met
}

// warmWorkers loads what explaining each worker reads beyond its first two cache lines
// (its tag ids, its backlog cap), for every worker in one loop. Its result is kept only
// so the loads are not dropped.
func warmWorkers(ws []*worker) int32 {
	var n int32
	for _, x := range ws {
		if len(x.tagSeq) > 0 {
			n += x.tagSeq[0]
		}
		if x.maxBack != nil {
			n += int32(*x.maxBack)
		}
	}
	return n
}

// eligibleFirst reorders the candidates after the chosen one: eligible before ineligible,
// each group in the order met (a stable partition).
func (e *Engine) eligibleFirst(marks []candMark) []candMark {
	rest := append(e.markTmp[:0], marks[1:]...)
	n := 1
	for _, m := range rest {
		if m.ok {
			marks[n] = m
			n++
		}
	}
	for _, m := range rest {
		if !m.ok {
			marks[n] = m
			n++
		}
	}
	clear(rest)
	e.markTmp = rest[:0]
	return marks
}

// platScoreOf is platScore for a task given by its tag names and thresholds (a dry run
// has no task).
func (e *Engine) platScoreOf(w *worker, tags []string, thr map[string]float64, rs *[]Reason) (float64, ReasonKind) {
	t := task{tagsIn: tags, thrIn: thr}
	return e.platScore(w, &t, rs)
}
