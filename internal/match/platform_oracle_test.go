package match

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// oraclePlatformWhy returns why the platform's rules keep t from w ("" when w may get it),
// written from the public views alone (docs/contract.md, "How the platform matches").
func (p *propRun) oraclePlatformWhy(w WorkerDetail, t Task, afterOffer bool) string {
	limit := p.cfg.DefaultMaxBacklog
	if w.MaxBacklogSize != nil {
		limit = *w.MaxBacklogSize
	}
	switch {
	case !w.Available:
		return "unavailable"
	case w.OnBreak:
		return "on break"
	case afterOffer && w.QueueDepth > limit, !afterOffer && w.QueueDepth >= limit:
		return fmt.Sprintf("cap %d depth %d", limit, w.QueueDepth)
	case slices.Contains(t.VetoedWorkers, w.ID) && !p.vetoLifted[t.ID][w.ID]:
		return "vetoed"
	case slices.Contains(t.RejectedBy, w.ID):
		return "rejected"
	}
	if why := oracleRouting(w, t, p.e.Now()); why != "" {
		return why
	}
	match := func(key, tag string) bool {
		prefix, star := strings.CutSuffix(key, "*")
		return key == tag || (star && strings.HasPrefix(tag, prefix))
	}
	score := 0.0
	if len(w.RoutingWeights) > 0 {
		keys := slices.Sorted(maps.Keys(w.RoutingWeights))
		for tag, minimum := range t.SkillThresholds {
			got, found := w.RoutingWeights[tag]
			for _, k := range keys {
				if !found && match(k, tag) {
					got, found = w.RoutingWeights[k], true
				}
			}
			if got < minimum {
				return "threshold " + tag
			}
		}
		for _, k := range keys {
			for _, tag := range t.Tags {
				v := w.RoutingWeights[k]
				if match(k, tag) && v == 0 {
					return "zero weight " + tag
				}
				if match(k, tag) && v > 0 {
					score += v
				}
			}
		}
	} else {
		if len(t.SkillThresholds) > 0 {
			return "threshold without weights"
		}
		n := 0
		for _, u := range w.Tags {
			if slices.ContainsFunc(t.Tags, func(tag string) bool { return match(u, tag) }) {
				n++
			}
		}
		if len(w.Tags) > 0 {
			score = float64(n) / float64(len(w.Tags))
		}
	}
	if score == 0 {
		return "no shared tag"
	}
	if t.Priority+score == 0 {
		return "priority plus score is 0"
	}
	return ""
}

// platformReach counts the queued tasks w reaches through its positive entries (its
// candidate union before the window).
func (p *propRun) platformReach(w WorkerDetail, queued []Task) int {
	keys := w.Tags
	if len(w.RoutingWeights) > 0 {
		keys = nil
		for k, v := range w.RoutingWeights {
			if v > 0 {
				keys = append(keys, k)
			}
		}
	}
	n := 0
	for _, t := range queued {
		if slices.ContainsFunc(keys, func(k string) bool {
			prefix, star := strings.CutSuffix(k, "*")
			return slices.ContainsFunc(t.Tags, func(tag string) bool { return k == tag || (star && strings.HasPrefix(tag, prefix)) })
		}) {
			n++
		}
	}
	return n
}
