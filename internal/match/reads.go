package match

import (
	"maps"
	"slices"
	"sort"
	"time"
)

// Task returns a copy of a task (GET /tasks/{id}).
func (e *Engine) Task(id string) (Task, error) {
	t, err := e.lookupTask(id)
	if err != nil {
		return Task{}, err
	}
	return e.taskView(t), nil
}

func (e *Engine) taskView(t *task) Task {
	v := Task{
		ID:              t.id,
		Tags:            slices.Clone(t.tagsIn),
		Priority:        t.priority,
		Status:          t.status,
		WorkerID:        t.workerID,
		CreatedAt:       t.createdAt,
		QueuedAt:        t.createdAt,
		VetoedWorkers:   slices.Clone(e.vetoedShown(t)),
		RejectedBy:      slices.Clone(t.rejected),
		SkillThresholds: maps.Clone(t.thrIn),
		Result:          t.result,
		EscalationLevel: t.escalationLevel(),
		Extra:           t.extra,
		Seq:             t.seq,
	}
	if t.status == StatusPending {
		v.OfferExpiresAt = time.Unix(0, t.deadline).In(e.nowTime.Location())
	}
	if t.esc != nil {
		es := *t.esc
		v.Escalation = &es
	}
	if t.rt != nil {
		v.Routing = cloneTaskRouting(t.rt)
	}
	return v
}

// Tasks lists tasks in creation order (GET /tasks), one page after q.After. The cost is
// the tasks scanned from the cursor, including those the status filter skips.
func (e *Engine) Tasks(q TaskQuery) (TaskPage, error) {
	var want Status
	switch q.Status {
	case "", FilterAll:
	case FilterQueued, FilterPending, FilterAccepted:
		want = Status(q.Status)
	default:
		return TaskPage{}, inputErr("status", "must be queued, pending, accepted or all")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	start := sort.Search(len(e.taskList), func(i int) bool { return e.taskList[i].seq > q.After })
	page := TaskPage{Tasks: []Task{}}
	for _, t := range e.taskList[start:] {
		if want != "" && t.status != want {
			continue
		}
		if len(page.Tasks) == limit {
			page.HasMore = true
			break
		}
		page.Tasks = append(page.Tasks, e.taskView(t))
	}
	return page, nil
}

// Worker returns a copy of a worker (GET /workers/{id}).
func (e *Engine) Worker(id string) (WorkerDetail, error) {
	w, err := e.lookupWorker(id)
	if err != nil {
		return WorkerDetail{}, err
	}
	d := WorkerDetail{
		ID:             w.id,
		Tags:           slices.Clone(w.tags),
		RoutingWeights: maps.Clone(w.weights),
		Available:      w.available,
		OnBreak:        w.onBreak,
		BreakSince:     w.breakAt,
		BreakReason:    w.breakWhy,
		QueueDepth:     len(w.pending),
		CreatedAt:      w.createdAt,
		Extra:          w.extra,
	}
	if d.Tags == nil {
		d.Tags = []string{}
	}
	if d.RoutingWeights == nil {
		d.RoutingWeights = map[string]float64{}
	}
	if w.maxBack != nil {
		v := *w.maxBack
		d.MaxBacklogSize = &v
	}
	if w.matched {
		d.LastMatchedAt = time.Unix(0, w.lastMatch).In(e.nowTime.Location())
	}
	if w.rt != nil {
		d.Routing = cloneWorkerRouting(w.rt)
	}
	return d, nil
}

// WorkerIDs returns every worker id, sorted (GET /workers).
func (e *Engine) WorkerIDs() []string {
	if e.sortedIDs == nil {
		e.sortedIDs = slices.Sorted(maps.Keys(e.workers))
		if e.sortedIDs == nil {
			e.sortedIDs = []string{}
		}
	}
	return slices.Clone(e.sortedIDs)
}

// WorkerQueue returns the ids of the tasks offered to a worker and not yet accepted, in
// offer order (GET /workers/{id}/queue).
func (e *Engine) WorkerQueue(id string) ([]string, error) {
	w, err := e.lookupWorker(id)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(w.pending))
	for i, t := range w.pending {
		ids[i] = t.id
	}
	return ids, nil
}

// SuggestWorkers scores workers for a task that is not created
// (POST /tasks/suggest-workers): eligible ones first in the mode's order, then ineligible
// ones with their reasons. It changes nothing. It examines every worker carrying the
// task's rarest tag (every tag in any-tag mode) plus pattern workers, ready or not.
func (e *Engine) SuggestWorkers(in SuggestInput) ([]Candidate, error) {
	s, err := e.suggestSpec(in)
	if err != nil {
		return nil, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 100)
	sc := scanResult{}
	sc.reset(nil, limit)
	e.eachCandidate(&s, false, func(w *worker) {
		ok, score := e.check(w, &s, true, nil)
		if ok {
			e.consider(&sc, cand{w: w, score: score})
		} else if len(sc.inelig) < limit {
			sc.inelig = append(sc.inelig, w)
		}
	})
	out := []Candidate{}
	for _, c := range sc.top {
		out = append(out, e.candidate(c.w, &s, true, false))
	}
	for _, w := range sc.inelig {
		if len(out) >= limit {
			break
		}
		out = append(out, e.candidate(w, &s, true, false))
	}
	return out, nil
}

// suggestSpec builds the dry-run spec of a task that is not created.
func (e *Engine) suggestSpec(in SuggestInput) (spec, error) {
	if len(in.Tags) == 0 {
		return spec{}, inputErr("tags", "at least one tag is required")
	}
	if err := checkTaskRouting(in.Routing); err != nil {
		return spec{}, err
	}
	s := spec{priority: in.Priority, vetoed: in.VetoedWorkers, rt: cloneTaskRouting(in.Routing)}
	type named struct {
		id   int32
		name string
	}
	var tags []named
	for _, name := range dedupe(in.Tags) {
		tags = append(tags, named{e.lookupTag(name), name})
	}
	// Sorted like a task's tags so the score sums in the same order as a real match.
	slices.SortStableFunc(tags, func(a, b named) int { return int(a.id) - int(b.id) })
	for _, t := range tags {
		s.tags = append(s.tags, t.id)
		s.names = append(s.names, t.name)
	}
	for _, name := range slices.Sorted(maps.Keys(in.SkillThresholds)) {
		s.thr = append(s.thr, threshold{tag: e.lookupTag(name), min: in.SkillThresholds[name]})
		s.thrNames = append(s.thrNames, name)
	}
	return s, nil
}
