package match

import (
	"math"
	"slices"
	"strings"
)

// A worker's window is the Config.CandidateWindow candidates with the lowest rank (priority
// times the summed weights of its entries carrying the task's tags), ties by task id as a
// string, out of every queued task of its positive entries' tags. Ranking that whole union
// costs tens of thousands of tasks for a common tag, so platWindow reads each entry's tag
// in its prioOrder (priority, then id) instead, lowest bound first, and stops each tag as
// soon as nothing left in it can rank below the window's current worst. The bound of a task
// met through entry i at priority p:
//
//   - p > 0: p × weight(i). Its rank sums p × weight over its entries, every term >= 0 and
//     one of them p × weight(i), so rounding never takes it below.
//   - p = 0: 0, its exact rank.
//   - p < 0: p × every positive weight, summed, and widened by a relative 1e-9: a subset of
//     those negative terms never sums below the whole set; the widening covers a compiler
//     that fuses the multiply and add in one sum and not the other.
//
// Each bound grows with p, so a tag whose next task is bounded above the window's worst
// (rank, id) is done: its later tasks at the same priority have greater ids, and its first
// task at a higher priority must be bounded above the worst rank too.
// TestPlatformWindowAgreesWithScan compares it with ranking the whole union.

// platCursor is one of a worker's entries being read in its tag's order.
type platCursor struct {
	key int // index in plat.keys
	o   *prioOrder
	pos orderPos
	t   *task   // the task at pos
	lb  float64 // its bound
	// The bound of the first task above the priority abovePrio, cached for platPast;
	// aboveNone when there is none.
	abovePrio, aboveLB  float64
	aboveSet, aboveNone bool
}

// platWindow returns w's window in the order it walks it (sortWindow), in plat.window, and
// sets plat.union to the candidates met: above the window size when the union may be wider.
func (e *Engine) platWindow(w *worker) []platCand {
	ps := &e.plat
	ps.union = 0
	h := ps.window[:0]
	ps.keys = e.platKeys(w, true, ps.keys[:0])
	if len(ps.keys) == 0 {
		return h
	}
	ps.zero = e.platKeys(w, false, ps.zero[:0])
	e.visitSeq++
	stamp := e.visitSeq
	k := e.cfg.CandidateWindow
	// curs is a min-heap of the entries still read, by (bound, task id): the lowest is
	// read next, or found past the window (so is every entry with a greater bound).
	curs := ps.cursors[:0]
	for i, key := range ps.keys {
		c := platCursor{key: i, o: &ps.byTag[key.id]}
		if e.platSeek(&c) {
			curs = append(curs, c)
		}
	}
	for i := len(curs)/2 - 1; i >= 0; i-- {
		cursorDown(curs, i)
	}
	left := false
	for len(curs) > 0 {
		c := &curs[0]
		if len(h) == k && e.platPast(c, h[k-1]) {
			left = true
			curs = dropTop(curs)
			continue
		}
		t := c.t
		c.pos = c.o.next(c.pos)
		if e.platSeek(c) {
			cursorDown(curs, 0)
		} else {
			curs = dropTop(curs)
		}
		if t.platStamp == stamp {
			continue
		}
		t.platStamp = stamp
		if platExcluded(w, t, ps.zero) {
			continue
		}
		ps.union++
		h = insertLowest(h, platCand{t: t, rank: platRank(ps.keys, t)}, k)
	}
	if left {
		ps.union = max(ps.union, k+1)
	}
	clear(curs)
	ps.cursors = curs[:0]
	sortWindowRanked(h)
	ps.window = h
	return h
}

// cursorLess orders the entries being read: lower bound, then lower task id.
func cursorLess(a, b *platCursor) bool {
	if a.lb != b.lb {
		return a.lb < b.lb
	}
	return a.t.id < b.t.id
}

func cursorDown(h []platCursor, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && cursorLess(&h[r], &h[l]) {
			m = r
		}
		if !cursorLess(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// dropTop removes the lowest entry of the heap h.
func dropTop(h []platCursor) []platCursor {
	last := len(h) - 1
	h[0] = h[last]
	h[last] = platCursor{}
	h = h[:last]
	cursorDown(h, 0)
	return h
}

// platSeek loads the task at c's position and its bound; false when the tag is read out.
func (e *Engine) platSeek(c *platCursor) bool {
	t, ok := c.o.at(c.pos)
	if !ok {
		return false
	}
	c.t, c.lb = t, e.platBound(c.key, t.priority)
	return true
}

// platBound is the lowest rank a task at priority p met through entry i can have.
func (e *Engine) platBound(i int, p float64) float64 {
	keys := e.plat.keys
	switch {
	case p > 0:
		return keys[i].weight * p
	case p < 0:
		sum := 0.0
		for _, k := range keys {
			sum += k.weight * p
		}
		return sum * (1 + 1e-9)
	}
	return 0
}

// platPast reports whether nothing left in c's tag can enter a window whose worst is worst.
func (e *Engine) platPast(c *platCursor, worst platCand) bool {
	if c.lb != worst.rank {
		return c.lb > worst.rank
	}
	if strings.Compare(c.t.id, worst.t.id) <= 0 {
		return false
	}
	// Every later priority is at least the next float above this one, and the bound grows
	// with the priority: when that next float is bounded above the worst, so is the rest.
	if e.platBound(c.key, math.Nextafter(c.t.priority, math.Inf(1))) > worst.rank {
		return true
	}
	// Rounding made the bounds equal (tiny weights or priorities): find the real next one.
	if !c.aboveSet || c.abovePrio != c.t.priority {
		up, ok := c.o.firstAbove(c.t.priority)
		c.aboveSet, c.abovePrio, c.aboveNone = true, c.t.priority, !ok
		if ok {
			c.aboveLB = e.platBound(c.key, up.priority)
		}
	}
	return c.aboveNone || c.aboveLB > worst.rank
}

// platRank is t's window rank for the worker whose positive entries are keys: priority
// times each entry's weight carrying one of its tags, summed in entry order as the engine's
// weighted union does.
func platRank(keys []platKey, t *task) float64 {
	rank := 0.0
	for _, k := range keys {
		if slices.Contains(t.tags, k.id) {
			rank += k.weight * t.priority
		}
	}
	return rank
}

// platExcluded reports whether t is out of w's union: a 0 entry reaches it, it vetoes w, w
// rejected it, or it is booked for someone else.
func platExcluded(w *worker, t *task, zero []platKey) bool {
	for _, k := range zero {
		if slices.Contains(t.tags, k.id) {
			return true
		}
	}
	return containsID(t.vetoed, w.id) || containsID(t.rejected, w.id) || (t.booked != "" && t.booked != w.id)
}

// insertLowest adds c to h, the k lowest candidates met so far in platRankCmp order. Tasks
// mostly arrive in that order (each tag is read by bound, then id), so the common insert
// lands at the end after one comparison.
func insertLowest(h []platCand, c platCand, k int) []platCand {
	n := len(h)
	if n > 0 && platRankCmp(h[n-1], c) < 0 {
		if n < k {
			return append(h, c)
		}
		return h
	}
	i, _ := slices.BinarySearchFunc(h, c, platRankCmp)
	if n < k {
		h = append(h, platCand{})
	} else if i >= n {
		return h
	}
	copy(h[i+1:], h[i:len(h)-1])
	h[i] = c
	return h
}
