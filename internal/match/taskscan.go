package match

import "encoding/binary"

// bestTaskFor returns the first queued task in task order that w is eligible for, visiting
// only the groups w can serve.
//
// In all-tags mode a servable group's tag set is a subset of the tags w carries, so w
// either looks up every small subset of its tags directly (at most Σ C(n,k) map lookups for
// n carried tags and k up to the largest queued tag set) or walks the groups keyed under
// its tags, whichever is fewer. Pattern workers and any-tag mode walk the tag indexes.
func (e *Engine) bestTaskFor(w *worker) *task {
	var best *task
	e.visitSeq++
	stamp := e.visitSeq
	anyTag := e.anyTag()
	okTask := func(t *task) bool {
		if containsID(t.vetoed, w.id) || containsID(t.rejected, w.id) || (t.booked != "" && t.booked != w.id) {
			return false
		}
		if t.rt != nil {
			ok, _ := e.checkRouting(w, t.rt, nil)
			return ok
		}
		return true
	}
	visit := func(gs []*group) {
		for _, g := range gs {
			if g.visit == stamp {
				continue
			}
			g.visit = stamp
			// A cheap test on the group's own tags first: most groups under a common tag
			// need a tag this worker lacks, and this avoids touching their tasks.
			if !anyTag && !w.posPat && !subset(g.tags, w.carried) {
				continue
			}
			if best != nil && !g.headBefore(best) {
				continue
			}
			s := spec{tags: g.tags, thr: g.thr}
			if ok, _ := e.check(w, &s, false, nil); !ok {
				continue
			}
			if t := g.firstFor(okTask, best, &e.frontier); t != nil {
				best = t
			}
		}
	}
	switch {
	case anyTag:
		for _, tag := range w.carried {
			visit(e.byTag[tag].items)
		}
		if w.posPat {
			// Pattern workers carry tags nobody listed for them, so they look at every
			// tag that has groups: O(distinct tags).
			for id := range e.byTag {
				tag := int32(id)
				if len(e.byTag[tag].items) > 0 && !hasID(w.carried, tag) && e.patternCarries(w, tag) {
					visit(e.byTag[tag].items)
				}
			}
		}
	case !w.posPat && e.subsetsCheaper(w):
		e.visitSubsets(w.carried, e.maxGroupTags(), visit)
	default:
		for _, tag := range w.carried {
			visit(e.byKeyTag[tag].items)
		}
		if w.posPat {
			for _, tag := range e.keyTags {
				if !hasID(w.carried, tag) && e.patternCarries(w, tag) {
					visit(e.byKeyTag[tag].items)
				}
			}
		}
	}
	return best
}

// maxGroupTags is the size of the largest tag set among queued groups.
func (e *Engine) maxGroupTags() int {
	for k := len(e.groupsBySize) - 1; k > 0; k-- {
		if e.groupsBySize[k] > 0 {
			return k
		}
	}
	return 0
}

// subsetsCheaper compares the number of subset lookups with the number of groups keyed
// under w's tags.
func (e *Engine) subsetsCheaper(w *worker) bool {
	walk := 0
	for _, tag := range w.carried {
		walk += len(e.byKeyTag[tag].items)
	}
	n, m := len(w.carried), e.maxGroupTags()
	lookups, c := 0, 1
	for k := 1; k <= m && k <= n; k++ {
		c = c * (n - k + 1) / k // C(n, k)
		lookups += c
		if lookups > walk {
			return false
		}
	}
	return true
}

// visitSubsets looks up the groups of every subset of carried with at most maxK tags. The
// keys are built incrementally: the packed integer while packSet can hold the subset, the
// byte string (as newGroup builds it) beyond.
func (e *Engine) visitSubsets(carried []int32, maxK int, visit func([]*group)) {
	buf := e.keyBuf[:0]
	var rec func(start, depth int, packed uint64, packable bool)
	rec = func(start, depth int, packed uint64, packable bool) {
		for i := start; i < len(carried); i++ {
			id := carried[i]
			buf = binary.LittleEndian.AppendUint32(buf[:depth*4], uint32(id))
			k, ok := packed<<21|uint64(id+1), packable && depth < 3 && id < 1<<21
			if ok {
				if gs, found := e.bySmallSet[k]; found {
					visit(gs)
				}
			} else if gs, found := e.byTagSet[string(buf)]; found {
				visit(gs)
			}
			if depth+1 < maxK {
				rec(i+1, depth+1, k, ok)
			}
		}
	}
	rec(0, 0, 0, true)
	e.keyBuf = buf
}
