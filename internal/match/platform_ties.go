package match

import "slices"

// Ties under RulesPlatform. The engine breaks a tie between equally ranked workers by the
// order it reads its users hash in Redis: registration order while Redis keeps the hash
// compact, hash order (different in each Redis process) once it does not. A pass here meets
// its workers in registration order, or with Config.ShuffleTies in a seeded hash order
// (platCompare), and every decision whose worker could have been another one on the
// platform names them (Decision.Ties).
//
// A tie is a task that two or more workers of one pass could take at the same rank:
//   - best-match (and balanced or spread-work when the load penalty is 0): pairs of the one
//     list with the same task and the same priority + score, which the stable sort leaves
//     in the order their workers were met;
//   - first-come: workers of the same claim round (platTier) that walked as many window
//     tasks and both listed the task among the candidates they claim, so the first met
//     claims it and the other loses it.
//
// Balanced and spread-work with a load penalty order equal pairs by load, priority, task id
// and worker id: no tie is left to the hash order there.

// markTies numbers, in pairs sorted by priority + score (best first), each group of pairs
// that offer one task at one priority + score, and marks its pairs (platPair.tie).
func (e *Engine) markTies(pairs []platPair) {
	ps := &e.plat
	ps.tieGroups, ps.tieIdx = ps.tieGroups[:0], ps.tieIdx[:0]
	for lo := 0; lo < len(pairs); {
		hi := lo + 1
		for hi < len(pairs) && pairs[hi].c.prio == pairs[lo].c.prio {
			hi++
		}
		if hi-lo > 1 {
			e.markTiesIn(pairs, lo, hi)
		}
		lo = hi
	}
}

// markTiesIn groups pairs[lo:hi], all of one priority + score, by task: each task offered
// by more than one of them is a tie group, its pairs listed in the order of pairs.
func (e *Engine) markTiesIn(pairs []platPair, lo, hi int) {
	ps := &e.plat
	idx := ps.tieSort[:0]
	for i := lo; i < hi; i++ {
		idx = append(idx, int32(i))
	}
	slices.SortStableFunc(idx, func(a, b int32) int {
		ta, tb := pairs[a].c.t, pairs[b].c.t
		if ta == tb {
			return 0
		}
		if idLess(ta.key, ta, tb.key, tb) {
			return -1
		}
		return 1
	})
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && pairs[idx[j]].c.t == pairs[idx[i]].c.t {
			j++
		}
		if j-i > 1 {
			from := int32(len(ps.tieIdx))
			ps.tieIdx = append(ps.tieIdx, idx[i:j]...)
			slices.Sort(ps.tieIdx[from:]) // the order the pass met the workers in
			ps.tieGroups = append(ps.tieGroups, [2]int32{from, int32(len(ps.tieIdx))})
			for _, k := range idx[i:j] {
				pairs[k].tie = int32(len(ps.tieGroups))
			}
		}
		i = j
	}
	ps.tieSort = idx[:0]
}

// tieOf sets plat.tie, the tie set record stores with the next decision, to the workers of
// tie group g (1-based; 0: none).
func (e *Engine) tieOf(pairs []platPair, g int32) {
	ps := &e.plat
	ps.tie = ps.tie[:0]
	if g == 0 {
		return
	}
	r := ps.tieGroups[g-1]
	for _, k := range ps.tieIdx[r[0]:r[1]] {
		ps.tie = append(ps.tie, ps.users[pairs[k].u].w.id)
	}
}

// firstComeTies maps each task that workers of one claim class (same platTier, same
// window tasks walked) both listed to claim to those workers (indexes in plat.users, in
// the order they claim); nil when there is none. Users must be sorted as claimFirstCome
// sorts them. A task listed in two classes keeps the first: that class claims it.
func (e *Engine) firstComeTies() map[*task][]int {
	ps := &e.plat
	var ties map[*task][]int
	var seen map[*task]int
	for lo := 0; lo < len(ps.users); {
		hi := lo + 1
		key := func(u platUser) [2]int { return [2]int{platTier(u.w), u.walked} }
		for hi < len(ps.users) && key(ps.users[hi]) == key(ps.users[lo]) {
			hi++
		}
		if hi-lo > 1 {
			if seen == nil {
				seen = map[*task]int{}
			}
			clear(seen)
			for i := lo; i < hi; i++ {
				u := ps.users[i]
				for _, c := range ps.cands[u.from:u.to] {
					first, ok := seen[c.t]
					if !ok {
						seen[c.t] = i
						continue
					}
					if ties == nil {
						ties = map[*task][]int{}
					}
					g, had := ties[c.t]
					if !had {
						g = []int{first}
					} else if g[0] != first {
						continue // tied in an earlier class, which claims it
					}
					ties[c.t] = append(g, i)
				}
			}
		}
		lo = hi
	}
	return ties
}

// tieSet is the tie set a decision stores: ids in the order met, or nil for none.
func tieSet(ids []string) []string {
	if len(ids) < 2 {
		return nil
	}
	return slices.Clone(ids)
}
