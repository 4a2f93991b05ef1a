package match

import "math"

// readyEntry is one ready worker in one tag's heap; slot is the index of that tag in the
// worker's idxTags, where the worker keeps its position. The entry carries copies of the
// worker's ordering fields and tag mask so that sifting and walking a heap compare entries
// in place instead of chasing a pointer per comparison (the pointer walk was most of a
// match's cost at 10,000 workers). rekey refreshes the copies whenever the worker's
// fields change; verifyInternal checks that they agree. An unordered heap's entries
// (RulesPlatform) carry only w and slot.
type readyEntry struct {
	w         *worker
	ub        float64
	lastMatch int64
	mask      uint64
	pending   int32
	slot      int32
}

// readyHeap holds the ready workers carrying one tag, ordered by entryBefore: the upper
// bound of their score per task tag, then the best-match tie-breaks. Best-match walks it
// best-first and stops as soon as no later worker can win (see bestWorkerOrdered); the
// other modes just scan its items.
//
// Under RulesPlatform only its membership is read: platMarkReach marks the ready carriers
// of a task's tags, and the pass sorts the marked workers by registration. There the heap
// is unordered: add appends, remove moves the last entry into the hole, and an entry holds
// only w and slot (no copies to keep fresh, so rekey and updateBound do nothing). That
// spares a freed slot the sifting, whose writes to other workers' readyPos miss the cache.
type readyHeap struct {
	items     []readyEntry
	unordered bool // RulesPlatform: a set, not a heap (Engine.intern sets it)
}

func entryOf(w *worker, slot int32) readyEntry {
	return readyEntry{w: w, ub: w.ub, lastMatch: w.lastMatch, mask: w.mask, pending: int32(len(w.pending)), slot: slot}
}

// entryBefore orders ready workers: higher score bound first, then fewer pending offers,
// then longest idle, then id, which is better's order among equal scores.
func entryBefore(a, b *readyEntry) bool {
	if a.ub != b.ub {
		return a.ub > b.ub
	}
	if a.pending != b.pending {
		return a.pending < b.pending
	}
	if a.lastMatch != b.lastMatch {
		return a.lastMatch < b.lastMatch
	}
	return a.w.id < b.w.id
}

// tagBit is a tag's bit in a 64-bit mask. A worker's mask has the bits of every tag it
// carries literally, so a task bit missing from it proves a missing tag without touching
// the worker; a shared bit proves nothing (ids collide modulo 64).
func tagBit(id int32) uint64 { return 1 << (uint32(id) & 63) }

// tagMask is the mask of the tags a worker carries; a worker that carries tags through a
// positive pattern may carry any tag, so its mask has every bit.
func tagMask(w *worker) uint64 {
	if w.posPat {
		return math.MaxUint64
	}
	var m uint64
	for _, id := range w.carried {
		m |= tagBit(id)
	}
	return m
}

func (h *readyHeap) less(i, j int) bool { return entryBefore(&h.items[i], &h.items[j]) }

func (h *readyHeap) add(w *worker, slot int32) {
	if h.unordered {
		h.items = append(h.items, readyEntry{w: w, slot: slot})
		w.readyPos[slot] = int32(len(h.items) - 1)
		return
	}
	h.items = append(h.items, entryOf(w, slot))
	i := len(h.items) - 1
	w.readyPos[slot] = int32(i)
	h.up(i)
}

// remove takes out the entry at i: the last entry fills the hole and, in a heap, is
// sifted to its place.
func (h *readyHeap) remove(i int) {
	last := len(h.items) - 1
	if i != last {
		h.place(i, h.items[last])
	}
	h.items[last] = readyEntry{}
	h.items = h.items[:last]
	if i != last && !h.unordered {
		h.fix(i)
	}
}

func (h *readyHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

// up and down move the entry at i with a hole instead of swaps: each entry that moves
// is written once, and so is its worker's position, which is the costly write (a pointer
// chase per entry moved).
func (h *readyHeap) up(i int) {
	it := h.items[i]
	start := i
	for i > 0 {
		p := (i - 1) / 2
		if !entryBefore(&it, &h.items[p]) {
			break
		}
		h.place(i, h.items[p])
		i = p
	}
	if i != start {
		h.place(i, it)
	}
}

func (h *readyHeap) down(i int) bool {
	it := h.items[i]
	start := i
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && entryBefore(&h.items[r], &h.items[l]) {
			m = r
		}
		if !entryBefore(&h.items[m], &it) {
			break
		}
		h.place(i, h.items[m])
		i = m
	}
	if i != start {
		h.place(i, it)
	}
	return i > start
}

func (h *readyHeap) place(i int, it readyEntry) {
	h.items[i] = it
	it.w.readyPos[it.slot] = int32(i)
}

// updateBound recomputes w's score bound per task tag: its largest weight (1 for a plain
// tag) times its largest possible learning factor. Call it when weights or stats change.
// Only the ordered walks of the every-tag rules read the bound, so under RulesPlatform it
// is not kept (w.ub stays 0).
func (e *Engine) updateBound(w *worker) {
	if e.platform() {
		return
	}
	wmax := 1.0
	for _, v := range w.weights {
		wmax = max(wmax, v)
	}
	f := 1.0
	if e.learningApplies() {
		best := 0.0
		for _, st := range w.stats {
			best = max(best, math.Tanh(st.mean()/2))
		}
		f = 1 + 0.5*best
	}
	w.ub = wmax * f
}

// rekey restores w's place in its ready heaps after its bound, pending count or idle time
// changed. Under RulesPlatform the ready heaps are unordered sets whose entries copy
// nothing (readyHeap), so there is nothing to restore.
func (e *Engine) rekey(w *worker) {
	if !w.ready || e.platform() {
		return
	}
	for i, tag := range w.idxTags {
		h := &e.ready[tag]
		pos := int(w.readyPos[i])
		h.items[pos] = entryOf(w, int32(i))
		h.fix(pos)
	}
	e.rekeyRoutes(w)
}

// bestWorkerOrdered is bestWorker for best-match in all-tags mode: it walks the ready
// carriers of the rarest tag best-first and stops once the next worker's bound
// (tags × ub) cannot beat the best found, so with many equal workers it looks at a handful
// instead of all. It still examines up to MaxCandidates workers for the explanation. A
// worker whose tag mask lacks a task tag is ineligible for certain and costs no more than
// its heap entry.
func (e *Engine) bestWorkerOrdered(s *spec, rarest int32, sc *scanResult) {
	e.examinePatternWorkers(s, rarest, sc)
	examined := 0
	e.walkReady(s, e.ready[rarest].items, 0, sc, &examined)
}

// walkReady is the ordered walk of one ready heap (a tag's, or a team's or skill bucket's
// for that tag, routeindex.go). bonus bounds what the task's routing rules add to the score
// of any worker in h (0 for none), so n × ub + bonus bounds every score from an entry on.
// examined counts the workers looked at across the heaps of one choice: the walk stops
// early only once MaxCandidates have been.
func (e *Engine) walkReady(s *spec, h []readyEntry, bonus float64, sc *scanResult, examined *int) {
	if len(h) == 0 {
		return
	}
	var need uint64
	for _, id := range s.tags {
		need |= tagBit(id)
	}
	n := float64(len(s.tags))
	var bestKey readyEntry
	// canStop: no worker at or after it in the heap order can beat the best found.
	canStop := func(it *readyEntry) bool {
		if len(sc.top) == 0 {
			return false
		}
		best := sc.top[0]
		bound := n*it.ub + bonus
		if bound < best.score*(1-1e-9) {
			return true
		}
		if it.ub != 1 || bound != best.score || best.w.ub != 1 {
			return false
		}
		// A worker with bound 1 per tag scores at most n exactly (sums of weights <= 1
		// round down), and its routing part at most bonus, so on an exact tie the
		// tie-breaks decide, and entryBefore orders those like better as long as both
		// sides have the same bound: a best with a larger bound (weights above 1 that
		// happen to sum to n) must not stop the walk, for entryBefore would put it first
		// by bound where better compares pending offers (TestRouteIndexAgreesWithFullScan).
		if bestKey.w != best.w {
			bestKey = entryOf(best.w, 0)
		}
		return entryBefore(&bestKey, it)
	}
	fr := frontier{idx: e.frontier[:0], size: int32(len(h)), less: func(a, b int32) bool { return entryBefore(&h[a], &h[b]) }}
	fr.push(0)
	stopped := false
	for len(fr.idx) > 0 {
		i := fr.pop()
		it := &h[i]
		if !stopped && canStop(it) {
			stopped = true
		}
		if stopped && *examined >= sc.limit {
			break
		}
		if need&^it.mask != 0 {
			if len(sc.inelig) < sc.limit {
				sc.inelig = append(sc.inelig, it.w)
			}
		} else {
			e.examine(s, it.w, sc)
		}
		*examined++
		fr.pushChildren(i)
	}
	e.frontier = fr.idx
}

// examine checks one candidate and keeps it among the best or the first ineligible ones.
func (e *Engine) examine(s *spec, w *worker, sc *scanResult) {
	ok, score := e.check(w, s, false, nil)
	if ok {
		e.consider(sc, cand{w: w, score: score})
	} else if len(sc.inelig) < sc.limit {
		sc.inelig = append(sc.inelig, w)
	}
}
