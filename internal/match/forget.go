package match

import "slices"

// Forget removes finished tasks (Status.Terminal) from the engine, with everything it keeps
// for them: the task and its place in the creation order, its retained decision numbers, its
// learning features and the vetoes kept for it. Ids of tasks that are unknown or not
// finished are skipped; it returns how many tasks it removed. Matching never reads a
// finished task, so no later decision changes; a forgotten task is unknown to every read
// (Task answers a *NotFoundError) and its id may be used again. The decisions that name it
// stay in the decision log until newer ones push them out (Config.DecisionRetention).
//
// The cost is one pass over the tasks the engine holds, so a caller forgets in batches.
func (e *Engine) Forget(ids []string) int {
	n := 0
	for _, id := range ids {
		t, ok := e.tasks[id]
		if !ok || !t.status.Terminal() {
			continue
		}
		delete(e.tasks, id)
		delete(e.vetoesAsSent, t)
		if e.plat.learn != nil {
			delete(e.plat.learn.open, t)
		}
		// A finished task is in no heap; these only guard that invariant.
		if t.dlIdx >= 0 {
			e.deadlines.remove(t)
		}
		if t.cl != nil && t.cl.idx >= 0 {
			e.clocks.remove(t)
		}
		t.forgotten = true
		n++
	}
	if n > 0 {
		e.taskList = slices.DeleteFunc(e.taskList, func(t *task) bool { return t.forgotten })
	}
	return n
}

// TaskExtra returns what the caller stored with a task (TaskInput.Extra) without copying
// the task, and false when the task is unknown.
func (e *Engine) TaskExtra(id string) (any, bool) {
	t, ok := e.tasks[id]
	if !ok {
		return nil, false
	}
	return t.extra, true
}
