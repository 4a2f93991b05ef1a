package match

import (
	"math"
	"slices"
	"strconv"
)

// The routing index: ready heaps per team and per held skill, so that a task bound to a team
// or requiring a skill walks only the ready workers that can qualify instead of every ready
// carrier of its rarest tag.
//
// A routeSet is one team, or one (skill, level, score weight) bucket of one skill. It keeps,
// per carried tag, a readyHeap of its ready members in the order the tag heaps use, so the
// ordered best-match walk (walkReady) runs on it unchanged. A worker's entries in these
// heaps take the slots of readyPos after those of its tag heaps; routeHeaps names their
// heaps. Workers without routing inputs are in none of them, so tag-only matching pays
// nothing for the index. The index serves the every-tag rules only: under RulesPlatform it
// stays empty (readyRoutes).
//
// A skill is bucketed by level and weight because both decide a worker's part of a
// skill-bound task: a bucket below the task's minLevel is skipped whole, and within one
// bucket every member's skill adds the same score, so the heap's tag bound plus the bucket's
// weight bounds every member's score and the walk can stop early again.

// routeSet is the ready members of one team or one skill bucket, heaps by tag id.
type routeSet struct {
	level   int     // skill buckets: the level held
	weight  float64 // skill buckets: WorkerSkill.weight()
	byTag   map[int32]*readyHeap
	members int
}

// routeIndex maps team and skill-bucket keys to their sets; skills lists each skill's
// buckets, heaviest first.
type routeIndex struct {
	sets   map[string]*routeSet
	skills map[string][]*routeSet
}

func teamRouteKey(team string) string { return "t\x00" + team }

func skillRouteKey(s WorkerSkill) string {
	return "s\x00" + s.ID + "\x00" + strconv.Itoa(s.Level) + "\x00" + strconv.FormatUint(math.Float64bits(s.weight()), 16)
}

// routeSetFor returns the set for key, creating it (and listing a skill bucket under its
// skill) when new.
func (e *Engine) routeSetFor(key string, skill *WorkerSkill) *routeSet {
	ri := &e.routes
	if rs, ok := ri.sets[key]; ok {
		return rs
	}
	if ri.sets == nil {
		ri.sets = make(map[string]*routeSet)
		ri.skills = make(map[string][]*routeSet)
	}
	rs := &routeSet{byTag: make(map[int32]*readyHeap)}
	ri.sets[key] = rs
	if skill != nil {
		rs.level, rs.weight = skill.Level, skill.weight()
		bs := append(ri.skills[skill.ID], rs)
		// Heaviest first; equal weights by level, higher first, so the order never depends
		// on the order buckets were made in.
		slices.SortStableFunc(bs, func(a, b *routeSet) int {
			if a.weight != b.weight {
				if a.weight > b.weight {
					return -1
				}
				return 1
			}
			return b.level - a.level
		})
		ri.skills[skill.ID] = bs
	}
	return rs
}

// readyRoutes adds a ready worker to the route heaps of its teams and skills. Its tag
// heaps' slots come first in readyPos; call it after they are set. Only the every-tag
// rules' bestWorker walks the route heaps, so under RulesPlatform nobody is put in them.
func (e *Engine) readyRoutes(w *worker) {
	w.readyPos = w.readyPos[:len(w.idxTags)]
	w.routeHeaps = w.routeHeaps[:0]
	w.routeSets = w.routeSets[:0]
	if e.platform() || w.rt == nil || len(w.idxTags) == 0 {
		return
	}
	for _, team := range w.rt.Teams {
		e.addRoute(w, e.routeSetFor(teamRouteKey(team), nil))
	}
	for i, s := range w.rt.Skills {
		// Only the entry skill() finds counts when an id is listed twice, and a worker
		// must sit in one bucket per skill or a walk would see it twice.
		if i > 0 && w.rt.Skills[i-1].ID == s.ID {
			continue
		}
		held, _ := w.rt.skill(s.ID)
		e.addRoute(w, e.routeSetFor(skillRouteKey(held), &held))
	}
}

func (e *Engine) addRoute(w *worker, rs *routeSet) {
	rs.members++
	w.routeSets = append(w.routeSets, rs)
	for _, tag := range w.idxTags {
		h := rs.byTag[tag]
		if h == nil {
			h = &readyHeap{}
			rs.byTag[tag] = h
		}
		w.readyPos = append(w.readyPos, 0)
		w.routeHeaps = append(w.routeHeaps, h)
		h.add(w, int32(len(w.readyPos)-1))
	}
}

// unreadyRoutes takes a worker out of every route heap it is in.
func (e *Engine) unreadyRoutes(w *worker) {
	base := len(w.idxTags)
	for j, h := range w.routeHeaps {
		h.remove(int(w.readyPos[base+j]))
	}
	for _, rs := range w.routeSets {
		rs.members--
	}
	clear(w.routeHeaps)
	clear(w.routeSets)
	w.routeHeaps = w.routeHeaps[:0]
	w.routeSets = w.routeSets[:0]
	w.readyPos = w.readyPos[:base]
}

// rekeyRoutes is rekey for the route heaps.
func (e *Engine) rekeyRoutes(w *worker) {
	base := len(w.idxTags)
	for j, h := range w.routeHeaps {
		slot := int32(base + j)
		pos := int(w.readyPos[slot])
		h.items[pos] = entryOf(w, slot)
		h.fix(pos)
	}
}

// heap returns the set's heap for a tag; nil when no ready member carries it literally.
func (rs *routeSet) heap(tag int32) []readyEntry {
	if h := rs.byTag[tag]; h != nil {
		return h.items
	}
	return nil
}

// bestWorkerRouted is bestWorker's ordered walk for a task bound to a team or requiring
// one skill, over the route heaps. It reports false when neither applies (the caller then
// takes the tag heaps). The choice is the one a scan of every ready carrier makes
// (TestOrderedWalkAgreesWithFullScan); the explanation lists the workers the walk
// examined, which are fewer than a full scan's.
func (e *Engine) bestWorkerRouted(s *spec, rarest int32, sc *scanResult) bool {
	r := s.rt
	var prefer float64
	if r.PreferTeamID != "" {
		// The bonus a member of the preferred team gets; a bound for any other worker.
		prefer = PreferredTeamBonus
	}
	examined := 0
	switch {
	case len(r.RequiredSkills) == 1:
		req := r.RequiredSkills[0]
		e.examinePatternWorkers(s, rarest, sc)
		for _, rs := range e.routes.skills[req.ID] {
			if rs.level < req.MinLevel || rs.members == 0 {
				continue
			}
			// The same sum checkRouting makes for an eligible member, so that an exact tie
			// with the bound stays exact.
			bonus := 0.0
			bonus += rs.weight
			bonus += prefer
			e.walkReady(s, rs.heap(rarest), bonus, sc, &examined)
		}
		e.explainOutsiders(rarest, sc, func(w *worker) bool {
			held, ok := w.rt.skill(req.ID)
			return ok && held.Level >= req.MinLevel
		})
		return true
	case len(r.RequiredSkills) == 0 && r.TeamID != "":
		rs := e.routes.sets[teamRouteKey(r.TeamID)]
		teamRarest := rarest
		if rs != nil {
			// The team's own rarest tag: it has the fewest ready members to walk.
			for _, id := range s.tags {
				if len(rs.heap(id)) < len(rs.heap(teamRarest)) {
					teamRarest = id
				}
			}
			e.examinePatternWorkers(s, teamRarest, sc)
			e.walkReady(s, rs.heap(teamRarest), prefer, sc, &examined)
		} else {
			e.examinePatternWorkers(s, teamRarest, sc)
		}
		e.explainOutsiders(teamRarest, sc, func(w *worker) bool { return w.rt.inTeam(r.TeamID) })
		return true
	}
	return false
}

// examinePatternWorkers examines the ready pattern workers that are not in the heaps of
// rarest, where a walk would meet them.
func (e *Engine) examinePatternWorkers(s *spec, rarest int32, sc *scanResult) {
	for _, w := range e.readyPat.items {
		if !hasID(w.carried, rarest) {
			e.examine(s, w, sc)
		}
	}
}

// explainOutsiders adds to the explanation the first ready carriers of rarest (at most
// MaxCandidates, in the heap's array order) that the route walk could not meet because
// they fail the rule it indexes (member false), so that a decision still names a few
// workers outside the team or without the skill, with their reasons. Members are left
// out whether the walk reached them or not, so nobody is listed twice.
func (e *Engine) explainOutsiders(rarest int32, sc *scanResult, member func(*worker) bool) {
	h := e.ready[rarest].items
	for i := 0; i < len(h) && i < sc.limit && len(sc.inelig) < sc.limit; i++ {
		if w := h[i].w; !member(w) {
			sc.inelig = append(sc.inelig, w)
		}
	}
}
