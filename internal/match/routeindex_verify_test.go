package match

import "fmt"

// verifyRoutes checks the route heaps (routeindex.go): under RulesEveryTag every ready
// worker with teams or skills is in the heap of each of its teams and of one bucket per
// held skill, for each tag it carries, with a fresh entry; no one else is; every heap is in
// order. Under RulesPlatform, which never reads them, they are empty.
func verifyRoutes(e *Engine) error {
	if e.platform() && len(e.routes.sets)+len(e.routes.skills) > 0 {
		return fmt.Errorf("route index has %d sets under the platform rules, which do not read it", len(e.routes.sets))
	}
	want := 0
	for id, w := range e.workers {
		if !w.ready {
			if len(w.routeHeaps) > 0 || len(w.routeSets) > 0 || len(w.readyPos) > len(w.idxTags) && w.ready {
				return fmt.Errorf("worker %s is not ready but in %d route heaps", id, len(w.routeHeaps))
			}
			continue
		}
		var sets []*routeSet
		if !e.platform() && w.rt != nil && len(w.idxTags) > 0 {
			for _, team := range w.rt.Teams {
				sets = append(sets, e.routes.sets[teamRouteKey(team)])
			}
			seen := map[string]bool{}
			for _, s := range w.rt.Skills {
				if seen[s.ID] {
					continue
				}
				seen[s.ID] = true
				held, _ := w.rt.skill(s.ID)
				rs := e.routes.sets[skillRouteKey(held)]
				if rs == nil || rs.level != held.Level || rs.weight != held.weight() {
					return fmt.Errorf("worker %s: no bucket for skill %s level %d", id, held.ID, held.Level)
				}
				sets = append(sets, rs)
			}
		}
		if len(w.routeSets) != len(sets) || len(w.routeHeaps) != len(sets)*len(w.idxTags) || len(w.readyPos) != len(w.idxTags)+len(w.routeHeaps) {
			return fmt.Errorf("worker %s is in %d route sets and %d route heaps, want %d sets", id, len(w.routeSets), len(w.routeHeaps), len(sets))
		}
		for k, rs := range sets {
			if w.routeSets[k] != rs {
				return fmt.Errorf("worker %s route set %d is not its team's or skill bucket's", id, k)
			}
			for i, tag := range w.idxTags {
				j := k*len(w.idxTags) + i
				slot := int32(len(w.idxTags) + j)
				h := w.routeHeaps[j]
				if rs.byTag[tag] != h {
					return fmt.Errorf("worker %s route heap %d is not its set's heap of %s", id, j, e.tagNames[tag])
				}
				if pos := w.readyPos[slot]; int(pos) >= len(h.items) || h.items[pos] != entryOf(w, slot) {
					return fmt.Errorf("worker %s has a missing or stale entry in route heap of %s", id, e.tagNames[tag])
				}
			}
		}
		want += len(w.routeHeaps)
	}
	n := 0
	for key, rs := range e.routes.sets {
		members := 0
		for tag, h := range rs.byTag {
			n += len(h.items)
			for i := 1; i < len(h.items); i++ {
				if h.less(i, (i-1)/2) {
					return fmt.Errorf("route heap %q of %s out of order", key, e.tagNames[tag])
				}
			}
		}
		for _, w := range e.workers {
			for _, x := range w.routeSets {
				if x == rs {
					members++
				}
			}
		}
		if members != rs.members {
			return fmt.Errorf("route set %q counts %d members, has %d", key, rs.members, members)
		}
	}
	if n != want {
		return fmt.Errorf("route heaps hold %d entries, want %d", n, want)
	}
	for skill, bs := range e.routes.skills {
		for i := 1; i < len(bs); i++ {
			if bs[i-1].weight < bs[i].weight {
				return fmt.Errorf("buckets of skill %s not heaviest first", skill)
			}
		}
	}
	return nil
}
