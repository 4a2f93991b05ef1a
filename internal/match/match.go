package match

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// spec is what eligibility needs to know about a task (or a suggest-workers dry run).
type spec struct {
	tags     []int32  // sorted ids; -1 for a tag the engine has never seen (dry runs only)
	names    []string // parallel to tags when set; else names come from the intern table
	thr      []threshold
	thrNames []string // parallel to thr when set
	vetoed   []string
	rejected []string
	booked   string // the booked worker (booking.go); "" when none
	priority float64
	rt       *TaskRouting // nil: tags only
}

func (e *Engine) taskSpec(t *task) spec {
	return spec{tags: t.tags, thr: t.thr, vetoed: t.vetoed, rejected: t.rejected, booked: t.booked, priority: t.priority, rt: t.rt}
}

func (s *spec) name(e *Engine, i int) string {
	if s.names != nil {
		return s.names[i]
	}
	return e.tagNames[s.tags[i]]
}

func (s *spec) thrName(e *Engine, i int) string {
	if s.thrNames != nil {
		return s.thrNames[i]
	}
	return e.tagNames[s.thr[i].tag]
}

// subset reports whether every id of a is in b; both are sorted.
func subset(a, b []int32) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
		j++
	}
	return true
}

func hasID(sorted []int32, id int32) bool {
	_, ok := slices.BinarySearch(sorted, id)
	return ok
}

// weightOf returns w's weight for a tag, whether it came from routingWeights, and whether
// w carries the tag. An exact entry wins over patterns, the longest pattern over shorter
// ones; a tag in w.tags without any entry weighs 1.
func (e *Engine) weightOf(w *worker, id int32, name string) (weight float64, explicit, carried bool) {
	inTags := id >= 0 && hasID(w.tagIDs, id)
	if id >= 0 {
		if v, ok := w.lit[id]; ok {
			return v, true, inTags || v > 0
		}
	}
	for _, p := range w.patterns {
		if strings.HasPrefix(name, p.prefix) {
			return p.weight, true, inTags || p.weight > 0
		}
	}
	if inTags {
		return 1, false, true
	}
	return 0, false, false
}

// patternCarries reports whether a positive pattern (and no exact zero) makes w carry tag.
func (e *Engine) patternCarries(w *worker, id int32) bool {
	_, _, carried := e.weightOf(w, id, e.tagNames[id])
	return carried
}

func (e *Engine) learningApplies() bool {
	return !e.cfg.Learning.Disabled && !e.cfg.Learning.ShadowMode
}

func (e *Engine) learnedVetoed(w *worker, id int32) bool {
	if !e.cfg.Learning.LearnedVeto || !e.learningApplies() || id < 0 {
		return false
	}
	st := w.stats[id]
	return st != nil && st.count >= e.cfg.Learning.LearnedVetoMinSamples && st.mean() <= e.cfg.Learning.LearnedVetoThreshold
}

// gate makes the checks both rule sets make before any score: with state, availability,
// breaks and the cap; then a veto, an earlier rejection and a booking for someone else.
// With rs nil it stops at the first failure; otherwise it records each one that fails.
func (e *Engine) gate(w *worker, s *spec, state bool, rs *[]Reason) bool {
	ok := true
	fail := func(k ReasonKind) bool {
		ok = false
		if rs == nil {
			return true
		}
		*rs = append(*rs, Reason{Kind: k})
		return false
	}
	if state {
		if !w.available && fail(ReasonUnavailable) {
			return false
		}
		if w.onBreak && fail(ReasonOnBreak) {
			return false
		}
		if len(w.pending) >= e.capOf(w) && fail(ReasonBacklogFull) {
			return false
		}
	}
	if containsID(s.vetoed, w.id) && fail(ReasonVetoed) {
		return false
	}
	if containsID(s.rejected, w.id) && fail(ReasonRejectedPreviously) {
		return false
	}
	if s.booked != "" && s.booked != w.id && fail(ReasonBookedForOther) {
		return false
	}
	return ok
}

// check decides whether w is eligible for s and scores it for the engine's mode. With
// state false the caller has already checked availability, breaks and the cap. With rs
// nil it stops at the first failure and allocates nothing; otherwise it records every
// reason, eligible or not.
func (e *Engine) check(w *worker, s *spec, state bool, rs *[]Reason) (bool, float64) {
	if e.platform() {
		return e.checkPlatform(w, s, state, rs)
	}
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
	// Routing rules (routing.go) come after the cheaper tag checks when nothing is explained,
	// so a worker lacking a tag costs no routing lookup; an explanation lists them first.
	var bonus float64
	if s.rt != nil && explain {
		var rok bool
		if rok, bonus = e.checkRouting(w, s.rt, rs); !rok {
			ok = false
		}
	}
	if !explain && !e.anyTag() && len(w.patterns) == 0 && len(w.lit) == 0 {
		ok, score := e.checkPlain(w, s)
		if !ok {
			return false, 0
		}
		if s.rt != nil {
			rok, bonus := e.checkRouting(w, s.rt, nil)
			if !rok {
				return false, 0
			}
			score += bonus
		}
		return true, score
	}
	score := 0.0
	carriedAny := false
	for i, id := range s.tags {
		// Names are only needed for patterns and explanations; skipping them keeps the
		// hot path on integer ids.
		var name string
		if explain || len(w.patterns) > 0 || id < 0 {
			name = s.name(e, i)
		}
		weight, explicit, carried := e.weightOf(w, id, name)
		switch {
		case explicit && weight == 0:
			fail(Reason{Kind: ReasonZeroWeight, Tag: name})
		case !carried:
			if !e.anyTag() {
				fail(Reason{Kind: ReasonMissingTag, Tag: name})
			}
		case e.learnedVetoed(w, id):
			fail(Reason{Kind: ReasonLearnedVeto, Tag: name})
		default:
			carriedAny = true
			score += weight
			if explain {
				*rs = append(*rs, Reason{Kind: ReasonTagWeight, Tag: name, Weight: weight})
			}
		}
		if !ok && !explain {
			return false, 0
		}
	}
	if e.anyTag() && !carriedAny {
		fail(Reason{Kind: ReasonMissingTag})
	}
	for i, th := range s.thr {
		var name string
		if explain || len(w.patterns) > 0 || th.tag < 0 {
			name = s.thrName(e, i)
		}
		weight, _, carried := e.weightOf(w, th.tag, name)
		if !carried {
			weight = 0
		}
		if weight < th.min {
			fail(Reason{Kind: ReasonThreshold, Tag: name, Weight: weight, Threshold: th.min})
			if !explain {
				return false, 0
			}
		}
	}
	if !e.cfg.Learning.Disabled && len(w.stats) > 0 {
		f := e.factor(w, s)
		if e.learningApplies() {
			score *= f
		}
		if explain {
			*rs = append(*rs, Reason{Kind: ReasonLearningBoost, Boost: f, Shadow: !e.learningApplies()})
		}
	}
	if s.rt != nil && !explain {
		rok, b := e.checkRouting(w, s.rt, nil)
		if !rok {
			return false, 0
		}
		bonus = b
	}
	score += bonus
	if e.balanced() {
		pen := e.cfg.BalancedLoadPenalty * float64(len(w.pending))
		score -= pen
		if explain && pen != 0 {
			*rs = append(*rs, Reason{Kind: ReasonLoadPenalty, Boost: pen})
		}
	}
	return ok, score
}

// checkPlain is check's fast path for the common worker without routing weights in
// all-tags mode: it carries exactly its tags, each weighing 1, so eligibility is a merge
// of two sorted id lists. It must agree with check's general path (the property test runs
// both).
func (e *Engine) checkPlain(w *worker, s *spec) (bool, float64) {
	if !subset(s.tags, w.tagIDs) {
		return false, 0
	}
	for _, th := range s.thr {
		weight := 0.0
		if th.tag >= 0 && hasID(w.tagIDs, th.tag) {
			weight = 1
		}
		if weight < th.min {
			return false, 0
		}
	}
	score := float64(len(s.tags))
	if len(w.stats) > 0 {
		if e.cfg.Learning.LearnedVeto {
			for _, id := range s.tags {
				if e.learnedVetoed(w, id) {
					return false, 0
				}
			}
		}
		if e.learningApplies() {
			score *= e.factor(w, s)
		}
	}
	if e.balanced() {
		score -= e.cfg.BalancedLoadPenalty * float64(len(w.pending))
	}
	return true, score
}

// factor is the learning factor 1 + 0.5 × mean over the task's tags of tanh(mean/2).
func (e *Engine) factor(w *worker, s *spec) float64 {
	if len(s.tags) == 0 {
		return 1
	}
	sum := 0.0
	for _, id := range s.tags {
		if st := w.stats[id]; id >= 0 && st != nil {
			sum += math.Tanh(st.mean() / 2)
		}
	}
	return 1 + 0.5*sum/float64(len(s.tags))
}

type cand struct {
	w     *worker
	score float64
}

// better is the worker order of the engine's mode; it is a strict total order (ids are
// unique), so the choice never depends on scan order.
func (e *Engine) better(a, b cand) bool {
	if e.cfg.Mode == ModeFirstCome {
		if a.w.lastMatch != b.w.lastMatch {
			return a.w.lastMatch < b.w.lastMatch
		}
		if a.score != b.score {
			return a.score > b.score
		}
	} else if a.score != b.score {
		return a.score > b.score
	}
	if la, lb := len(a.w.pending), len(b.w.pending); la != lb {
		return la < lb
	}
	if a.w.lastMatch != b.w.lastMatch {
		return a.w.lastMatch < b.w.lastMatch
	}
	return a.w.id < b.w.id
}

// scanResult keeps the best candidates of the last worker scan, for the decision.
type scanResult struct {
	task    *task
	spec    spec
	limit   int
	top     []cand    // best first, at most limit
	inelig  []*worker // first ineligible workers seen, at most limit
	waiting []*worker // not-ready carriers picked for the decision
}

func (s *scanResult) reset(t *task, limit int) {
	s.task, s.limit = t, limit
	s.top = s.top[:0]
	clear(s.inelig)
	s.inelig = s.inelig[:0]
	clear(s.waiting)
	s.waiting = s.waiting[:0]
}

func (e *Engine) consider(s *scanResult, c cand) {
	n := len(s.top)
	if n == s.limit && !e.better(c, s.top[n-1]) {
		return
	}
	i := sort.Search(n, func(i int) bool { return e.better(c, s.top[i]) })
	if n < s.limit {
		s.top = append(s.top, cand{})
	}
	copy(s.top[i+1:], s.top[i:len(s.top)-1])
	s.top[i] = c
}

// eachCandidate calls fn once for every worker that can be eligible for s: the carriers of
// its rarest tag (every tag in any-tag mode) and the pattern workers. readyOnly picks the
// ready indexes (matching) or all workers (dry runs).
func (e *Engine) eachCandidate(s *spec, readyOnly bool, fn func(*worker)) {
	size := func(id int32) int { return len(e.all[id].items) }
	each := func(id int32, f func(*worker)) {
		for _, w := range e.all[id].items {
			f(w)
		}
	}
	pat := &e.allPat
	if readyOnly {
		size = func(id int32) int { return len(e.ready[id].items) }
		each = func(id int32, f func(*worker)) {
			for _, it := range e.ready[id].items {
				f(it.w)
			}
		}
		pat = &e.readyPat
	}
	if e.anyTag() || e.platform() {
		e.visitSeq++
		stamp := e.visitSeq
		once := func(w *worker) {
			if w.visit != stamp {
				w.visit = stamp
				fn(w)
			}
		}
		for _, id := range s.tags {
			if id >= 0 {
				each(id, once)
			}
		}
		for _, w := range pat.items {
			once(w)
		}
		return
	}
	rarest, known := e.rarestTag(s, size)
	if known {
		// One set needs no dedupe stamps; pattern workers already seen through it are
		// skipped below by their literal tags instead.
		each(rarest, fn)
	}
	for _, w := range pat.items {
		if !known || !hasID(w.carried, rarest) {
			fn(w)
		}
	}
}

// rarestTag returns the task tag with the fewest workers by size; known is false when a
// tag is unknown to the engine (only pattern workers can carry it).
func (e *Engine) rarestTag(s *spec, size func(int32) int) (rarest int32, known bool) {
	rarest = -1
	for _, id := range s.tags {
		if id < 0 {
			return -1, false
		}
		if rarest < 0 || size(id) < size(rarest) {
			rarest = id
		}
	}
	return rarest, rarest >= 0
}

// bestWorker scans the ready candidates for t, leaves the best ones in e.scan and returns
// the chosen worker (nil when none is eligible).
func (e *Engine) bestWorker(t *task) *worker {
	sc := &e.scan
	sc.reset(t, e.cfg.MaxCandidates)
	// The spec lives in the engine's scratch so that handing it to the scans does not
	// allocate.
	sc.spec = e.taskSpec(t)
	s := &sc.spec
	if t.booked != "" {
		return e.bookedWorker(t.booked, s, sc)
	}
	if e.cfg.Mode == ModeBestMatch && !e.anyTag() && !e.fullScan {
		if rarest, known := e.rarestTag(s, func(id int32) int { return len(e.ready[id].items) }); known {
			switch {
			case s.rt != nil && e.bestWorkerRouted(s, rarest, sc): // routeindex.go
			case s.rt.scores():
				e.bestWorkerMasked(s, rarest, sc) // routing.go
			default:
				e.bestWorkerOrdered(s, rarest, sc)
			}
			if len(sc.top) == 0 {
				return nil
			}
			return sc.top[0].w
		}
	}
	e.eachCandidate(s, true, func(w *worker) { e.examine(s, w, sc) })
	if len(sc.top) == 0 {
		return nil
	}
	return sc.top[0].w
}
