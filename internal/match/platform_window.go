package match

import (
	"cmp"
	"math"
	"slices"
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
	key    int // index in plat.keys
	weight float64
	o      *prioOrder
	pos    orderPos
	chunk  []orderEntry // o's chunk at pos.c
	en     *orderEntry  // the entry at pos
	lb     float64      // its bound
	id     idKey        // its task's id key
	// The bound of the first task above the priority abovePrio, cached for platPast;
	// aboveNone when there is none.
	abovePrio, aboveLB  float64
	aboveSet, aboveNone bool
}

// platWindow returns w's window in the order it walks it (sortWalk), in plat.met (valid
// until the orders change; the caller clears it), and sets plat.union to the candidates met: above the window size when the union may be wider.
//
// A task carrying several of w's tags is met by several cursors; only the first of w's
// entries reaching it (platReach) takes it, so the read needs no set of tasks seen. Any
// one would do: each entry's bound is below the task's rank, so a cursor is dropped before
// reaching the task only when the task is past the window too.
func (e *Engine) platWindow(w *worker) []winItem {
	ps := &e.plat
	ps.union = 0
	h := ps.met[:0]
	ps.keys = e.platKeys(w, true, ps.keys[:0])
	if len(ps.keys) == 0 {
		return h
	}
	ps.zero = e.platKeys(w, false, ps.zero[:0])
	e.platIndexKeys()
	defer e.platUnindexKeys()
	k := e.cfg.CandidateWindow
	// heads is a min-heap of the entries still read, by (bound, task id): the lowest is
	// read next, or found past the window (so is every entry with a greater bound). It
	// holds small keys that point into curs, so sifting moves 32 bytes, not a cursor.
	curs, heads := ps.cursors[:0], ps.heads[:0]
	for i, key := range ps.keys {
		c := platCursor{key: i, weight: key.weight, o: &ps.byTag[key.id]}
		if e.platStart(&c) {
			heads = append(heads, cursorHead{lb: c.lb, id: c.id, c: int32(len(curs))})
			curs = append(curs, c)
		}
	}
	for i := len(heads)/2 - 1; i >= 0; i-- {
		headDown(heads, i, heads[i], curs)
	}
	// Only a task with a 0 entry or a veto, rejection or booking can be excluded.
	mayExclude := len(ps.zero) > 0
	left := false
	for len(heads) > 0 {
		top := &heads[0]
		c := &curs[top.c]
		if len(h) == k && e.platPast(c, h[k-1]) {
			left = true
			heads = dropHead(heads, curs)
			continue
		}
		en, key := c.en, c.key
		if e.platNext(c) {
			headDown(heads, 0, cursorHead{lb: c.lb, id: c.id, c: top.c}, curs)
		} else {
			heads = dropHead(heads, curs)
		}
		first, rank := e.platReach(en)
		if first != key || ((mayExclude || !en.plain) && platExcluded(w, en, ps.zero)) {
			continue
		}
		ps.union++
		h = insertLowest(h, winItem{rank: rank, en: en}, k)
	}
	if left {
		ps.union = max(ps.union, k+1)
	}
	clear(curs)
	ps.cursors, ps.heads = curs[:0], heads[:0]
	h = e.sortWalk(h)
	ps.met = h
	return h
}

// winItem is a task met while reading a window: its rank and its order entry (which stays
// where it is while the window is read).
type winItem struct {
	rank float64
	en   *orderEntry
}

// winLess orders the items of a window being read: rank ascending, then task id as a
// string.
func winLess(a, b *winItem) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return idLess(a.en.key, a.en.t, b.en.key, b.en.t)
}

// sortWalk puts a window read in winLess order in the order the worker walks it: by
// priority, highest first, ties in window order (a stable sort by priority). A window
// holds few distinct priorities, so each is gathered in one pass, highest first; more
// than a few fall back to a stable sort.
func (e *Engine) sortWalk(h []winItem) []winItem {
	var prios [4]float64
	n := 0
	for _, it := range h {
		if !slices.Contains(prios[:n], it.en.prio) {
			if n == len(prios) {
				slices.SortStableFunc(h, func(a, b winItem) int { return cmp.Compare(b.en.prio, a.en.prio) })
				return h
			}
			prios[n] = it.en.prio
			n++
		}
	}
	if n <= 1 {
		return h
	}
	slices.Sort(prios[:n])
	out := e.plat.walk[:0]
	for i := n - 1; i >= 0; i-- {
		for _, it := range h {
			if it.en.prio == prios[i] {
				out = append(out, it)
			}
		}
	}
	e.plat.walk = h[:0]
	return out
}

// platIndexKeys fills plat.keyAt for the worker's entries in plat.keys: keyAt[tag id] is
// the index of the entry reaching it, plus one. A tag reached by two entries (a pattern
// and an exact key) turns the table off for this window (plat.keysDup).
func (e *Engine) platIndexKeys() {
	ps := &e.plat
	if len(ps.keyAt) < len(e.tagNames) {
		ps.keyAt = append(ps.keyAt, make([]int32, len(e.tagNames)-len(ps.keyAt))...)
	}
	ps.keysDup = false
	for i, k := range ps.keys {
		if ps.keyAt[k.id] != 0 {
			ps.keysDup = true
		}
		ps.keyAt[k.id] = int32(i + 1)
	}
}

// platUnindexKeys resets what platIndexKeys set.
func (e *Engine) platUnindexKeys() {
	for _, k := range e.plat.keys {
		e.plat.keyAt[k.id] = 0
	}
}

// platReach is the first of the worker's entries that reaches en's task (the cursor that
// takes it) and the task's window rank: priority times the weight of each entry reaching
// it, summed in entry order as the engine's weighted union does. A plain task's few tags
// are looked up in plat.keyAt instead of testing every entry.
func (e *Engine) platReach(en *orderEntry) (first int, rank float64) {
	ps := &e.plat
	if !en.plain || ps.keysDup {
		first = -1
		for i, k := range ps.keys {
			if en.carries(k.id) {
				if first < 0 {
					first = i
				}
				rank += k.weight * en.prio
			}
		}
		return first, rank
	}
	var idx [plainTags]int32
	n := 0
	for _, id := range en.tags[:en.ntags] {
		if ki := ps.keyAt[id]; ki > 0 {
			// Insert in entry order (at most plainTags of them).
			j := n
			for j > 0 && idx[j-1] > ki-1 {
				idx[j] = idx[j-1]
				j--
			}
			idx[j] = ki - 1
			n++
		}
	}
	if n == 0 {
		return -1, 0
	}
	for _, i := range idx[:n] {
		rank += ps.keys[i].weight * en.prio
	}
	return int(idx[0]), rank
}

// carries reports whether the entry's task carries the tag id.
func (en *orderEntry) carries(id int32) bool {
	if en.plain {
		return slices.Contains(en.tags[:en.ntags], id)
	}
	return slices.Contains(en.t.tags, id)
}

// cursorHead is a cursor's key in the heap of a window read: its bound and its task's id
// key, and the cursor's index in plat.cursors.
type cursorHead struct {
	lb float64
	id idKey
	c  int32
}

// headLess orders the entries being read: lower bound, then lower task id.
func headLess(a, b *cursorHead, curs []platCursor) bool {
	if a.lb != b.lb {
		return a.lb < b.lb
	}
	return idLess(a.id, curs[a.c].en.t, b.id, curs[b.c].en.t)
}

// headDown puts x at i, then sifts it down to its place. x comes as an argument rather
// than read back from h[i]: a head just written and read whole would wait on the store.
func headDown(h []cursorHead, i int, x cursorHead, curs []platCursor) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && headLess(&h[r], &h[l], curs) {
			m = r
		}
		if !headLess(&h[m], &x, curs) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}

// dropHead removes the lowest head of h.
func dropHead(h []cursorHead, curs []platCursor) []cursorHead {
	last := len(h) - 1
	x := h[last]
	h = h[:last]
	if last > 0 {
		headDown(h, 0, x, curs)
	}
	return h
}

// platStart puts c on its tag's first entry; false when the tag has none.
func (e *Engine) platStart(c *platCursor) bool {
	if len(c.o.chunks) == 0 {
		return false
	}
	c.pos, c.chunk = orderPos{}, c.o.chunks[0]
	e.platLoad(c)
	return true
}

// platNext moves c to its tag's next entry; false when the tag is read out.
func (e *Engine) platNext(c *platCursor) bool {
	c.pos.i++
	if c.pos.i == len(c.chunk) {
		c.pos.c++
		if c.pos.c == len(c.o.chunks) {
			return false
		}
		c.pos.i, c.chunk = 0, c.o.chunks[c.pos.c]
	}
	e.platLoad(c)
	return true
}

// platLoad reads the entry at c's position and its bound.
func (e *Engine) platLoad(c *platCursor) {
	en := &c.chunk[c.pos.i]
	c.en, c.id = en, en.key
	if en.prio > 0 {
		c.lb = c.weight * en.prio // platBound's first case, without the call
	} else {
		c.lb = e.platBound(c.key, en.prio)
	}
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
func (e *Engine) platPast(c *platCursor, worst winItem) bool {
	if c.lb != worst.rank {
		return c.lb > worst.rank
	}
	if !idLess(worst.en.key, worst.en.t, c.en.key, c.en.t) {
		return false
	}
	// Every later priority is at least the next float above this one, and the bound grows
	// with the priority: when that next float is bounded above the worst, so is the rest.
	if e.platBound(c.key, math.Nextafter(c.en.prio, math.Inf(1))) > worst.rank {
		return true
	}
	// Rounding made the bounds equal (tiny weights or priorities): find the real next one.
	if !c.aboveSet || c.abovePrio != c.en.prio {
		up, ok := c.o.firstAbove(c.en.prio)
		c.aboveSet, c.abovePrio, c.aboveNone = true, c.en.prio, !ok
		if ok {
			c.aboveLB = e.platBound(c.key, up.prio)
		}
	}
	return c.aboveNone || c.aboveLB > worst.rank
}

// platExcluded reports whether the entry's task is out of w's union: a 0 entry reaches it,
// it vetoes w, w rejected it, or it is booked for someone else.
func platExcluded(w *worker, en *orderEntry, zero []platKey) bool {
	for _, k := range zero {
		if en.carries(k.id) {
			return true
		}
	}
	if en.plain {
		return false
	}
	t := en.t
	return containsID(t.vetoed, w.id) || containsID(t.rejected, w.id) || (t.booked != "" && t.booked != w.id)
}

// insertLowest adds c to h, the k lowest items met so far in winLess order. Tasks arrive
// near their place (each tag is read by bound, then id, and a task's rank is its bound
// unless it carries several of the worker's tags), so the place is sought from the end.
func insertLowest(h []winItem, c winItem, k int) []winItem {
	n := len(h)
	if n == k && !winLess(&c, &h[n-1]) {
		return h
	}
	i := n
	for i > 0 && winLess(&c, &h[i-1]) {
		i--
	}
	if n < k {
		h = append(h, winItem{})
	}
	copy(h[i+1:], h[i:len(h)-1])
	h[i] = c
	return h
}
