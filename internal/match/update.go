package match

import (
	"math"
	"slices"
	"time"
)

// TaskUpdate is what UpdateTask changes; a nil member keeps its value.
type TaskUpdate struct {
	Tags     []string
	Priority *float64
}

// UpdateTask edits a live task's tags and priority (PATCH /tasks/{id}, tasks.update). A
// queued task moves to its new place in the order; it keeps its first-queued time and
// creation sequence. A pending task whose worker no longer qualifies under the new tags is
// taken back (task.released with reason "updated") and queued again;
// Result.PreviousWorkerID then names that worker. An accepted task takes the edit and stays
// with its worker. Skill thresholds of tags the task no longer has are dropped.
func (e *Engine) UpdateTask(now time.Time, taskID string, up TaskUpdate) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.lookupTask(taskID)
	if err != nil {
		return e.fail(res, err)
	}
	if up.Priority != nil && (math.IsNaN(*up.Priority) || math.IsInf(*up.Priority, 0)) {
		return e.fail(res, inputErr("priority", "must be a finite number"))
	}
	if up.Tags != nil && len(up.Tags) == 0 {
		return e.fail(res, inputErr("tags", "must not be empty"))
	}
	if t.status.Terminal() {
		return e.fail(res, &StateError{Op: "update", TaskID: taskID, Status: t.status, Reason: StateWrongStatus})
	}
	queued := t.status == StatusQueued
	if queued {
		e.dequeue(t) // its group key may change
	}
	if up.Priority != nil {
		t.priority = *up.Priority
	}
	if up.Tags != nil {
		e.retagTask(t, dedupe(up.Tags))
	}
	switch {
	case queued:
		e.enqueue(t)
		e.markTask(t)
	case t.status == StatusPending && up.Tags != nil:
		if rule := e.assignBlocker(t, t.w); rule != "" {
			prev := t.w
			res.PreviousWorkerID = prev.id
			e.withdraw(t)
			ev := e.taskEvent(res, EventTaskReleased, t, prev.id)
			ev.Reason = "updated"
			e.requeue(t)
		}
	}
	return e.finish(res), nil
}

// retagTask gives t a new tag set. The threshold slice is cloned before filtering because
// a group shares the one of the task that made it.
func (e *Engine) retagTask(t *task, tagsIn []string) {
	tags := make([]int32, 0, len(tagsIn))
	for _, s := range tagsIn {
		id := e.intern(s)
		if !slices.Contains(t.tags, id) {
			e.tagUses[id]++
		}
		tags = append(tags, id)
	}
	slices.Sort(tags)
	t.tagsIn, t.tags = tagsIn, tags
	t.thr = slices.DeleteFunc(slices.Clone(t.thr), func(th threshold) bool { return !slices.Contains(tags, th.tag) })
	for k := range t.thrIn {
		if !slices.Contains(tagsIn, k) {
			delete(t.thrIn, k)
		}
	}
}
