package conformance

import (
	"slices"
)

// Shrink returns the smallest scenario it finds for which fails still holds, starting from sc
// (for which it must hold). It tries, until nothing more helps or budget predicate calls are
// spent: dropping runs of steps (halving the run length down to single steps), then
// simplifying the steps that are left (fewer tags, weights, vetoes and thresholds; priority
// 0; pick 0; no backlog override). Every candidate is a fresh copy, so fails may keep it.
func Shrink(sc Scenario, fails func(Scenario) bool, budget int) Scenario {
	s := shrinker{fails: fails, budget: budget}
	best := sc.Clone()
	for changed := true; changed && s.budget > 0; {
		changed = false
		if next, ok := s.dropSteps(best); ok {
			best, changed = next, true
		}
		if next, ok := s.simplifySteps(best); ok {
			best, changed = next, true
		}
	}
	return best
}

type shrinker struct {
	fails  func(Scenario) bool
	budget int
}

// try spends one predicate call on cand.
func (s *shrinker) try(cand Scenario) bool {
	if s.budget <= 0 {
		return false
	}
	s.budget--
	return s.fails(cand)
}

// dropSteps removes runs of steps, longest first (delta debugging's complement step).
func (s *shrinker) dropSteps(sc Scenario) (Scenario, bool) {
	improved := false
	for size := len(sc.Steps) / 2; size >= 1; size /= 2 {
		for start := 0; start+size <= len(sc.Steps) && s.budget > 0; {
			cand := sc.Clone()
			cand.Steps = slices.Delete(cand.Steps, start, start+size)
			if s.try(cand) {
				sc, improved = cand, true
				continue // the same start now holds the next run
			}
			start += size
		}
	}
	return sc, improved
}

// simplifySteps tries each simplification of each step once.
func (s *shrinker) simplifySteps(sc Scenario) (Scenario, bool) {
	improved := false
	for i := 0; i < len(sc.Steps) && s.budget > 0; i++ {
		// Each accepted edit makes the step strictly simpler, so recomputing its
		// simplifications after one terminates.
		for again := true; again; {
			again = false
			for _, edit := range simplifications(sc.Steps[i]) {
				cand := sc.Clone()
				cand.Steps[i] = edit
				if s.try(cand) {
					sc, improved, again = cand, true, true
					break
				}
			}
		}
	}
	return sc, improved
}

// simplifications lists the one-change-smaller forms of a step, smallest change last so the
// list reads like the order a person would try.
func simplifications(st Step) []Step {
	var out []Step
	edit := func(f func(*Step)) {
		c := st.clone()
		f(&c)
		out = append(out, c)
	}
	minTags := 0
	if st.Op == OpTask {
		minTags = 1
	}
	for i := range st.Tags {
		if len(st.Tags) > minTags {
			edit(func(c *Step) { c.Tags = nilIfEmpty(slices.Delete(c.Tags, i, i+1)) })
		}
	}
	for _, k := range sortedKeys(st.Weights) {
		edit(func(c *Step) {
			delete(c.Weights, k)
			if len(c.Weights) == 0 {
				c.Weights = nil
			}
		})
		if w := st.Weights[k]; w != 0 && w != 1 {
			edit(func(c *Step) { c.Weights[k] = 1 })
		}
	}
	for _, k := range sortedKeys(st.Thresholds) {
		edit(func(c *Step) {
			delete(c.Thresholds, k)
			if len(c.Thresholds) == 0 {
				c.Thresholds = nil
			}
		})
	}
	for i := range st.Vetoed {
		edit(func(c *Step) { c.Vetoed = nilIfEmpty(slices.Delete(c.Vetoed, i, i+1)) })
	}
	if st.Backlog != nil {
		edit(func(c *Step) { c.Backlog = nil })
	}
	if st.Priority != 0 {
		edit(func(c *Step) { c.Priority = 0 })
		if st.Priority != 1 {
			edit(func(c *Step) { c.Priority = 1 })
		}
	}
	if st.Pick != 0 {
		edit(func(c *Step) { c.Pick = 0 })
	}
	return out
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// nilIfEmpty keeps a shrunk list that lost its last entry printing and encoding like one
// that never had any.
func nilIfEmpty(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return l
}
