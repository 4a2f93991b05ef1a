package match

import (
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
	key  int // index in plat.keys
	o    *prioOrder
	pos  orderPos
	t    *task   // the task at pos
	lb   float64 // its bound
	done bool
	left bool // done with tasks still unread
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
	curs := ps.cursors[:0]
	for i, key := range ps.keys {
		c := platCursor{key: i, o: &ps.byTag[key.id]}
		if e.platSeek(&c) {
			curs = append(curs, c)
		}
	}
	for {
		best := -1
		for i := range curs {
			c := &curs[i]
			if c.done {
				continue
			}
			if len(h) == k && e.platPast(c, h[0]) {
				c.done, c.left = true, true
				continue
			}
			if best < 0 || c.lb < curs[best].lb || c.lb == curs[best].lb && c.t.id < curs[best].t.id {
				best = i
			}
		}
		if best < 0 {
			break
		}
		c := &curs[best]
		t := c.t
		c.pos = c.o.next(c.pos)
		if !e.platSeek(c) {
			c.done = true
		}
		if t.platStamp == stamp {
			continue
		}
		t.platStamp = stamp
		if platExcluded(w, t, ps.zero) {
			continue
		}
		ps.union++
		h = pushLowest(h, platCand{t: t, rank: platRank(ps.keys, t)}, k)
	}
	for _, c := range curs {
		if c.left {
			ps.union = max(ps.union, k+1)
			break
		}
	}
	clear(curs)
	ps.cursors = curs[:0]
	sortWindow(h)
	ps.window = h
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

// pushLowest adds c to h, a max-heap by platRankCmp keeping the k lowest.
func pushLowest(h []platCand, c platCand, k int) []platCand {
	if len(h) < k {
		h = append(h, c)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if platRankCmp(h[i], h[p]) <= 0 {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		return h
	}
	if platRankCmp(c, h[0]) >= 0 {
		return h
	}
	h[0] = c
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && platRankCmp(h[r], h[l]) > 0 {
			m = r
		}
		if platRankCmp(h[m], h[i]) <= 0 {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return h
}
