package match

import "math"

// readyEntry is one ready worker in one tag's heap; slot is the index of that tag in the
// worker's idxTags, where the worker keeps its position.
type readyEntry struct {
	w    *worker
	slot int32
}

// readyHeap holds the ready workers carrying one tag, ordered by readyBefore: the upper
// bound of their score per task tag, then the best-match tie-breaks. Best-match walks it
// best-first and stops as soon as no later worker can win (see bestWorkerOrdered); the
// other modes just scan its items.
type readyHeap struct {
	items []readyEntry
}

// readyBefore orders ready workers: higher score bound first, then fewer pending offers,
// then longest idle, then id, which is better's order among equal scores.
func readyBefore(a, b *worker) bool {
	if a.ub != b.ub {
		return a.ub > b.ub
	}
	if la, lb := len(a.pending), len(b.pending); la != lb {
		return la < lb
	}
	if a.lastMatch != b.lastMatch {
		return a.lastMatch < b.lastMatch
	}
	return a.id < b.id
}

func (h *readyHeap) less(i, j int) bool { return readyBefore(h.items[i].w, h.items[j].w) }

func (h *readyHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].w.readyPos[h.items[i].slot] = int32(i)
	h.items[j].w.readyPos[h.items[j].slot] = int32(j)
}

func (h *readyHeap) add(w *worker, slot int32) {
	h.items = append(h.items, readyEntry{w: w, slot: slot})
	i := len(h.items) - 1
	w.readyPos[slot] = int32(i)
	h.up(i)
}

func (h *readyHeap) remove(i int) {
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	h.items[last] = readyEntry{}
	h.items = h.items[:last]
	if i != last {
		h.fix(i)
	}
}

func (h *readyHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *readyHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *readyHeap) down(i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(h.items) {
			break
		}
		m := l
		if r := l + 1; r < len(h.items) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

// updateBound recomputes w's score bound per task tag: its largest weight (1 for a plain
// tag) times its largest possible learning factor. Call it when weights or stats change.
func (e *Engine) updateBound(w *worker) {
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
// changed.
func (e *Engine) rekey(w *worker) {
	if !w.ready {
		return
	}
	for i, tag := range w.idxTags {
		e.ready[tag].fix(int(w.readyPos[i]))
	}
}

// bestWorkerOrdered is bestWorker for best-match in all-tags mode: it walks the ready
// carriers of the rarest tag best-first and stops once the next worker's bound
// (tags × ub) cannot beat the best found, so with many equal workers it looks at a handful
// instead of all. It still examines up to MaxCandidates workers for the explanation.
func (e *Engine) bestWorkerOrdered(t *task, s *spec, rarest int32, sc *scanResult) {
	examine := func(w *worker) {
		ok, score := e.check(w, s, false, nil)
		if ok {
			e.consider(sc, cand{w: w, score: score})
		} else if len(sc.inelig) < sc.limit {
			sc.inelig = append(sc.inelig, w)
		}
	}
	for _, w := range e.readyPat.items {
		if !hasID(w.carried, rarest) {
			examine(w)
		}
	}
	h := e.ready[rarest].items
	if len(h) == 0 {
		return
	}
	n := float64(len(s.tags))
	examined := 0
	// canStop: no worker at or after w in the heap order can beat the best found.
	canStop := func(w *worker) bool {
		if len(sc.top) == 0 {
			return false
		}
		best := sc.top[0]
		bound := n * w.ub
		if bound < best.score*(1-1e-9) {
			return true
		}
		// A worker with bound 1 per tag scores at most n exactly (sums of weights <= 1
		// round down), so on an exact tie the tie-breaks decide, and readyBefore already
		// orders those.
		return w.ub == 1 && bound == best.score && readyBefore(best.w, w)
	}
	fr := e.frontier[:0]
	less := func(a, b int32) bool { return readyBefore(h[a].w, h[b].w) }
	push := func(i int32) {
		if int(i) >= len(h) {
			return
		}
		fr = append(fr, i)
		for c := len(fr) - 1; c > 0; {
			p := (c - 1) / 2
			if !less(fr[c], fr[p]) {
				break
			}
			fr[c], fr[p] = fr[p], fr[c]
			c = p
		}
	}
	pop := func() int32 {
		top := fr[0]
		last := len(fr) - 1
		fr[0] = fr[last]
		fr = fr[:last]
		for c := 0; ; {
			l := 2*c + 1
			if l >= len(fr) {
				break
			}
			m := l
			if r := l + 1; r < len(fr) && less(fr[r], fr[l]) {
				m = r
			}
			if !less(fr[m], fr[c]) {
				break
			}
			fr[c], fr[m] = fr[m], fr[c]
			c = m
		}
		return top
	}
	push(0)
	stopped := false
	for len(fr) > 0 {
		i := pop()
		w := h[i].w
		if !stopped && canStop(w) {
			stopped = true
		}
		if stopped && examined >= sc.limit {
			break
		}
		examine(w)
		examined++
		push(2*i + 1)
		push(2*i + 2)
	}
	e.frontier = fr
}
