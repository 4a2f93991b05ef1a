package match

import (
	"math"
	"time"
)

// Assign offers a queued or pending task to a chosen worker (POST /tasks/{id}/assign). It is
// a directed offer, not a way around the routing rules: the worker must be eligible in every
// way but capacity (a StateError with StateWorkerNotEligible names the rule otherwise).
// Without force a worker at its cap is ErrBacklogFull; with force the worker may go over it. Result.PreviousWorkerID names
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
	if rule := e.assignBlocker(t, w); rule != "" {
		return e.fail(res, &StateError{Op: "assign", TaskID: taskID, WorkerID: workerID, Status: t.status, Reason: StateWorkerNotEligible, Rule: rule})
	}
	if !force && len(w.pending) >= e.capOf(w) {
		return e.fail(res, &backlogFullError{id: workerID})
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

// assignBlocker names the first rule other than capacity that keeps w from t, or "". The
// service promises that vetoed, rejecting, unavailable and unqualified workers never get a
// task (docs/contract.md, section 7); an assignment is an offer like any other, so it keeps that promise
// and only force may stretch the cap.
func (e *Engine) assignBlocker(t *task, w *worker) ReasonKind {
	s := e.taskSpec(t)
	var reasons []Reason
	if ok, _ := e.check(w, &s, true, &reasons); ok {
		return ""
	}
	for _, r := range reasons {
		switch r.Kind {
		case ReasonTagWeight, ReasonLearningBoost, ReasonLoadPenalty, ReasonBacklogFull, ReasonSkillWeight, ReasonPreferredTeam:
			continue // not a refusal, or the one force may override
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
		t.g.fix(int(t.heapIdx))
		e.markTask(t) // under RulesPlatform its rank in every window changed
	}
	return e.finish(res), nil
}
