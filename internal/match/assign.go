package match

import (
	"math"
	"time"
)

// Assign offers a queued or pending task to a chosen worker (POST /tasks/{id}/assign), the
// operator's override of tag and weight selection. Without force it makes the platform's four
// checks, in the platform's order: a paused worker (StateError, Rule ReasonUnavailable), a
// full backlog (ErrBacklogFull), a veto (ReasonVetoed) and an earlier rejection
// (ReasonRejectedPreviously). Nothing else is checked: a worker lacking a tag or a skill may
// be handed the task. force skips all four; the worker must still exist. Result.PreviousWorkerID names
// the worker the offer was taken from (task.released); assigning to the worker that holds
// the offer changes nothing.
func (e *Engine) Assign(now time.Time, taskID, workerID string, force bool) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.lookupTask(taskID)
	if err != nil {
		return e.fail(res, err)
	}
	w, err := e.lookupWorker(workerID)
	if err != nil {
		return e.fail(res, err)
	}
	if t.status != StatusQueued && t.status != StatusPending {
		return e.fail(res, &StateError{Op: "assign", TaskID: taskID, WorkerID: workerID, Status: t.status, Reason: StateWrongStatus})
	}
	if t.status == StatusPending && t.workerID == workerID {
		res.PreviousWorkerID = workerID
		return e.finish(res), nil
	}
	if rule := e.platformAssignCheck(t, w); !force && rule == ReasonBacklogFull {
		return e.fail(res, &backlogFullError{id: workerID})
	} else if !force && rule != "" {
		return e.fail(res, &StateError{Op: "assign", TaskID: taskID, WorkerID: workerID, Status: t.status, Reason: StateWorkerNotEligible, Rule: rule})
	}
	if t.status == StatusPending {
		prev := t.w
		res.PreviousWorkerID = prev.id
		e.withdraw(t)
		ev := e.taskEvent(res, EventTaskReleased, t, prev.id)
		ev.Reason = "reassigned"
	}
	e.explainAssign(t, w)
	e.offer(t, w, ModeAssign, res)
	t.manual = true
	return e.finish(res), nil
}

// platformAssignCheck names the first of the platform's assign checks that keeps w from t,
// or "". The platform checks exactly these four, in this order; the routing rules (tags,
// skills, teams, thresholds, breaks) belong to matching, which an operator's assignment
// overrides.
func (e *Engine) platformAssignCheck(t *task, w *worker) ReasonKind {
	s := e.taskSpec(t)
	switch {
	case !w.available:
		return ReasonUnavailable
	case len(w.pending) >= e.capOf(w):
		return ReasonBacklogFull
	case containsID(s.vetoed, w.id):
		return ReasonVetoed
	case containsID(s.rejected, w.id):
		return ReasonRejectedPreviously
	}
	return ""
}

// assignBlocker names the first rule other than capacity that keeps w from holding t, or "".
// UpdateTask asks it after a tag or priority edit: a holder the edit leaves unqualified gives
// the offer back.
func (e *Engine) assignBlocker(t *task, w *worker) ReasonKind {
	s := e.taskSpec(t)
	var reasons []Reason
	if ok, _ := e.check(w, &s, true, &reasons); ok {
		return ""
	}
	for _, r := range reasons {
		switch r.Kind {
		case ReasonTagWeight, ReasonLearningBoost, ReasonLoadPenalty, ReasonBacklogFull, ReasonSkillWeight, ReasonPreferredTeam:
			continue // not a refusal, or capacity, which a holder already counts against
		}
		return r.Kind
	}
	return ""
}

// SetPriority changes a non-terminal task's priority (PATCH /tasks/{id}); a queued task
// moves to its new place in the order.
func (e *Engine) SetPriority(now time.Time, taskID string, priority float64) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.lookupTask(taskID)
	if err != nil {
		return e.fail(res, err)
	}
	if math.IsNaN(priority) || math.IsInf(priority, 0) {
		return e.fail(res, inputErr("priority", "must be a finite number"))
	}
	if t.status.Terminal() {
		return e.fail(res, &StateError{Op: "setPriority", TaskID: taskID, Status: t.status, Reason: StateWrongStatus})
	}
	e.setTaskPriority(t, priority)
	if t.status == StatusQueued {
		e.markTask(t) // under RulesPlatform its rank in every window changed
	}
	return e.finish(res), nil
}
