package match

import (
	"cmp"
	"slices"
)

// Unmatched says why no worker takes a set of tags: the tags nobody carries, and the workers
// nearest to taking it (those carrying the most of its tags) with what each lacks. It is an
// addition of this matcher, not part of the platform's answers.
type Unmatched struct {
	// UncarriedTags are the tags no worker carries, literally or by pattern, in the task's
	// order: no worker can ever be offered the task until one does.
	UncarriedTags []string
	// Nearest are up to n workers that carry at least one of the tags, most tags carried
	// first (then by worker id), each with its full explanation: an ineligible one's
	// reasons say what it lacks (missingTag, unavailable, backlogFull, ...).
	Nearest []NearWorker
}

// NearWorker is one worker near to taking a task.
type NearWorker struct {
	Candidate
	Carried int // how many of the tags it carries
}

// WhyUnmatched explains why the queued task id is not offered (see Unmatched); for a task in
// any other state it returns a zero Unmatched. It changes nothing. Cost: one check per worker
// carrying any of the task's tags, plus the pattern workers.
func (e *Engine) WhyUnmatched(id string, n int) (Unmatched, error) {
	t, err := e.lookupTask(id)
	if err != nil || t.status != StatusQueued {
		return Unmatched{}, err
	}
	s := e.taskSpec(t)
	return e.nearest(&s, n), nil
}

// NearestWorkers is WhyUnmatched for a task that is not created, from the input of
// SuggestWorkers (POST /tasks/suggest-workers).
func (e *Engine) NearestWorkers(in SuggestInput, n int) (Unmatched, error) {
	s, err := e.suggestSpec(in)
	if err != nil {
		return Unmatched{}, err
	}
	return e.nearest(&s, n), nil
}

func (e *Engine) nearest(s *spec, n int) Unmatched {
	carriedBy := make([]int, len(s.tags))
	var near []NearWorker
	e.visitSeq++
	stamp := e.visitSeq
	visit := func(w *worker) {
		if w.visit == stamp {
			return
		}
		w.visit = stamp
		carried := 0
		for i, id := range s.tags {
			// A tag weighted 0 is carried in name only: the worker refuses it.
			if weight, explicit, ok := e.weightOf(w, id, s.name(e, i)); ok && !(explicit && weight == 0) {
				carried++
				carriedBy[i]++
			}
		}
		if carried > 0 {
			near = append(near, NearWorker{Candidate: e.candidate(w, s, true, false), Carried: carried})
		}
	}
	for _, id := range s.tags {
		if id >= 0 {
			for _, w := range e.all[id].items {
				visit(w)
			}
		}
	}
	for _, w := range e.allPat.items {
		visit(w)
	}
	out := Unmatched{}
	for i, c := range carriedBy {
		if c == 0 {
			out.UncarriedTags = append(out.UncarriedTags, s.name(e, i))
		}
	}
	slices.SortFunc(near, func(a, b NearWorker) int {
		return cmp.Or(cmp.Compare(b.Carried, a.Carried), cmp.Compare(a.WorkerID, b.WorkerID))
	})
	if len(near) > n {
		near = near[:n]
	}
	out.Nearest = near
	return out
}
