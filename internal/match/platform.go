package match

import (
	"maps"
	"math"
	"slices"
	"strings"
)

// The platform's rules (RulesPlatform), as its published engine applies them. Each rule
// below is pinned by a test in platform_test.go and described, with its smallest scenario,
// in docs/contract.md, "How the platform matches".
//
//   - Candidates. A worker with routing weights reaches a task through its positive
//     entries only (exact tags and `prefix*` patterns); a worker without weights through
//     its tags, each at weight 1. Tasks carrying a tag that one of its 0 entries matches,
//     tasks that veto it, that it rejected or that are booked for someone else are not
//     candidates.
//   - Window. Each candidate's rank is its priority times the summed weights of the
//     worker's entries that match its tags; the worker reads only the Config.CandidateWindow
//     (50) LOWEST ranks, ties by task id as a string, and walks them by priority, highest
//     first (ties keep the window order).
//   - Score. With weights: 0 when a task threshold is not met (exact entry, else a
//     matching pattern) or a 0 entry matches a task tag, else the sum of every positive
//     entry matching each task tag (exact and patterns together). Without weights: 0 when
//     the task has thresholds, else the share of the worker's tags that match a task tag.
//     A candidate with score 0, or with priority + score exactly 0, is never offered.
//   - One pass after every command, over the available workers below their cap in
//     registration order, all reading the queue as it was before the pass.
//     ModeBestMatch (the engine's fairness "best-match") and ModeBalanced gather every
//     worker's candidates and award them in one list by priority + score (best first,
//     ties to the earlier worker, then the worker's own order); ModeBalanced lowers each
//     by a load penalty and caps grants per window. ModeFirstCome lets each worker take
//     its first candidates up to its free slots, workers claiming in registration order:
//     a task claimed before loses the claim and the worker gets nothing in its place.

// platTier is the claim round of a worker in ModeFirstCome: the engine spends one extra
// round trip to expand `prefix*` entries, once for positive and once for 0 entries, so
// such workers claim after the others.
func platTier(w *worker) int {
	tier := 0
	if len(w.weights) == 0 {
		for _, t := range w.tags {
			if strings.HasSuffix(t, "*") {
				return 1
			}
		}
		return 0
	}
	pos, zero := false, false
	for k, v := range w.weights {
		if strings.HasSuffix(k, "*") {
			if v > 0 {
				pos = true
			} else if v == 0 {
				zero = true
			}
		}
	}
	if pos {
		tier++
	}
	if zero {
		tier++
	}
	return tier
}

// platEntry is one routing entry of a worker: an exact tag or a `prefix*` pattern.
type platEntry struct {
	key    string
	prefix string // without the star; "" for an exact key
	star   bool
	weight float64
}

func (p platEntry) matches(tag string) bool {
	if p.key == tag {
		return true
	}
	return p.star && strings.HasPrefix(tag, p.prefix)
}

// platEntries lists w's routing entries in key order (the engine keeps the order they were
// written in, which a JSON object decoded into a map loses; docs/contract.md says so).
func platEntries(w *worker) []platEntry {
	out := make([]platEntry, 0, len(w.weights))
	for _, k := range slices.Sorted(maps.Keys(w.weights)) {
		p, star := strings.CutSuffix(k, "*")
		out = append(out, platEntry{key: k, prefix: p, star: star, weight: w.weights[k]})
	}
	return out
}

// platThresholdWeight is the engine's effective weight for a threshold: the exact entry,
// else the first pattern that matches, else 0. The exact entry is the key equal to the tag,
// a `prefix*` key included when the tag itself ends in `*` (the engine's `tag in
// routingWeights`).
func platThresholdWeight(es []platEntry, tag string) float64 {
	for _, e := range es {
		if e.key == tag {
			return e.weight
		}
	}
	for _, e := range es {
		if e.matches(tag) {
			return e.weight
		}
	}
	return 0
}

// platScore is the engine's match score of w for t, and why it is 0 when it is. The
// worker's routing rules beyond tags (routing.go) are checked by the caller.
func (e *Engine) platScore(w *worker, t *task, rs *[]Reason) (float64, ReasonKind) {
	if len(w.weights) > 0 {
		es := platEntries(w)
		for _, k := range slices.Sorted(maps.Keys(t.thrIn)) {
			min := t.thrIn[k]
			if got := platThresholdWeight(es, k); got < min {
				if rs == nil {
					return 0, ReasonThreshold
				}
				*rs = append(*rs, Reason{Kind: ReasonThreshold, Tag: k, Weight: got, Threshold: min})
				return 0, ReasonThreshold
			}
		}
		for _, en := range es {
			if en.weight != 0 {
				continue
			}
			for _, tag := range t.tagsIn {
				if en.matches(tag) {
					if rs != nil {
						*rs = append(*rs, Reason{Kind: ReasonZeroWeight, Tag: tag})
					}
					return 0, ReasonZeroWeight
				}
			}
		}
		sum := 0.0
		for _, tag := range t.tagsIn {
			for _, en := range es {
				if en.weight > 0 && en.matches(tag) {
					sum += en.weight
					if rs != nil {
						*rs = append(*rs, Reason{Kind: ReasonTagWeight, Tag: tag, Weight: en.weight})
					}
				}
			}
		}
		if sum == 0 {
			return 0, ReasonMissingTag
		}
		return sum, ""
	}
	if len(t.thrIn) > 0 {
		// A worker without weights never meets a threshold.
		if rs != nil {
			for _, k := range slices.Sorted(maps.Keys(t.thrIn)) {
				*rs = append(*rs, Reason{Kind: ReasonThreshold, Tag: k, Threshold: t.thrIn[k]})
			}
		}
		return 0, ReasonThreshold
	}
	if len(w.tags) == 0 {
		return 0, ReasonMissingTag
	}
	if rs == nil && len(t.tags) == len(t.tagsIn) && !w.platPatternTags() {
		// Literal tags only: a worker tag matches when the task carries it, so count the
		// common interned ids (both sets sorted) instead of comparing names.
		if matched := countCommon(w.tagIDs, t.tags); matched > 0 {
			return float64(matched) / float64(len(w.tags)), ""
		}
		return 0, ReasonMissingTag
	}
	matched := 0
	share := 1 / float64(len(w.tags))
	for _, u := range w.tags {
		en := platEntry{key: u}
		en.prefix, en.star = strings.CutSuffix(u, "*")
		for _, tag := range t.tagsIn {
			if en.matches(tag) {
				matched++
				if rs != nil {
					// Each of the worker's tags that matches counts its share.
					*rs = append(*rs, Reason{Kind: ReasonTagWeight, Tag: u, Weight: share})
				}
				break
			}
		}
	}
	if matched == 0 {
		return 0, ReasonMissingTag
	}
	return float64(matched) / float64(len(w.tags)), ""
}

// platCand is one candidate task of a worker in a pass.
type platCand struct {
	t     *task
	rank  float64 // the window's rank: priority × the matching entries' weights
	prio  float64 // priority + score: what the pass ranks by
	score float64
}

// platKeys expands a worker's entries (positive or 0) to the tag ids they reach: exact
// keys the engine has seen and every tag ever used by a task that a pattern matches. A tag
// reached twice is listed twice, as the engine sums its set twice.
func (e *Engine) platKeys(w *worker, positive bool, out []platKey) []platKey {
	add := func(key string, weight float64) {
		if p, star := strings.CutSuffix(key, "*"); star {
			for id, name := range e.tagNames {
				if e.tagUses[id] > 0 && strings.HasPrefix(name, p) {
					out = append(out, platKey{id: int32(id), weight: weight})
				}
			}
			return
		}
		if id := e.lookupTag(key); id >= 0 {
			out = append(out, platKey{id: id, weight: weight})
		}
	}
	if len(w.weights) == 0 {
		switch {
		case !positive:
		case !w.starTags:
			// Literal tags: their ids, interned when the worker was.
			for _, id := range w.tagSeq {
				out = append(out, platKey{id: id, weight: 1})
			}
		default:
			for _, t := range w.tags {
				add(t, 1)
			}
		}
		return out
	}
	for _, k := range slices.Sorted(maps.Keys(w.weights)) {
		v := w.weights[k]
		if (positive && v > 0) || (!positive && v == 0) {
			add(k, v)
		}
	}
	return out
}

type platKey struct {
	id     int32
	weight float64
}

// platCandidates returns w's candidates in the order it walks them, at most budget of them
// (all when budget < 0; the pass never asks for 0), and how many tasks of its window it
// walked to find them.
func (e *Engine) platCandidates(w *worker, budget int, out []platCand) ([]platCand, int) {
	ps := &e.plat
	win := e.platWindow(w) // sets ps.union
	walked := 0
	for i := range win {
		if budget == 0 {
			break
		}
		walked++
		en := win[i].en
		score, prio, ok := e.platEligibleEntry(w, en)
		if !ok {
			continue
		}
		out = append(out, platCand{t: en.t, rank: win[i].rank, prio: prio, score: score})
		budget--
	}
	clear(win)
	ps.met = win[:0]
	return out, walked
}

// platEligibleEntry is platEligible for a window candidate: a plain task (no routing rule,
// no threshold) and a worker with literal tags only are scored from the copied tag ids,
// without reading the task.
func (e *Engine) platEligibleEntry(w *worker, en *orderEntry) (score, prio float64, ok bool) {
	if !en.plain || len(w.weights) > 0 || w.starTags || len(w.tags) == 0 {
		return e.platEligible(w, en.t)
	}
	matched := countCommon(w.tagIDs, en.tags[:en.ntags])
	if matched == 0 {
		return 0, 0, false
	}
	score = float64(matched) / float64(len(w.tags))
	prio = en.prio + score
	if prio == 0 || math.IsNaN(prio) {
		return 0, 0, false
	}
	return score, prio, true
}

// platEligible applies the checks the engine makes inside the window: the routing rules
// beyond tags (their score parts add to the score), then the match score.
func (e *Engine) platEligible(w *worker, t *task) (score, prio float64, ok bool) {
	bonus := 0.0
	if t.rt != nil {
		rok, b := e.checkRouting(w, t.rt, nil)
		if !rok {
			return 0, 0, false
		}
		bonus = b
	}
	score, _ = e.platScore(w, t, nil)
	prio = t.priority + score
	if score == 0 || prio == 0 || math.IsNaN(prio) {
		return 0, 0, false
	}
	return score + bonus, prio + bonus, true
}

// countCommon counts the ids two sorted sets share.
func countCommon(a, b []int32) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}
