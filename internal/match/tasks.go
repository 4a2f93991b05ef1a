package match

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"time"
)

// sortedKeys returns m's keys in order. Most tasks have no thresholds, and for an empty
// map it returns nil without the iterator and sort allocations (three per create).
func sortedKeys(m map[string]float64) []string {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}

func checkTaskInput(in TaskInput) error {
	if err := checkID("id", in.ID); err != nil {
		return err
	}
	if len(in.Tags) == 0 {
		return inputErr("tags", "at least one tag is required")
	}
	for _, t := range in.Tags {
		if t == "" {
			return inputErr("tags", "a tag must not be empty")
		}
	}
	if math.IsNaN(in.Priority) || math.IsInf(in.Priority, 0) {
		return inputErr("priority", "must be a finite number")
	}
	// Sorted keys make the error reported for several bad entries deterministic.
	for _, k := range sortedKeys(in.SkillThresholds) {
		v := in.SkillThresholds[k]
		if k == "" {
			return inputErr("skillThresholds", "a tag must not be empty")
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return inputErr("skillThresholds", "must be finite numbers")
		}
	}
	if err := checkTaskRouting(in.Routing); err != nil {
		return err
	}
	if err := checkClocks(in.Clocks); err != nil {
		return err
	}
	if es := in.Escalation; es != nil {
		if es.RespondWithin < 0 {
			return inputErr("escalation.respondWithin", "must not be negative")
		}
		if es.OnNoResponse != "" && es.OnNoResponse != NoResponseAllow && es.OnNoResponse != NoResponseBlock {
			return inputErr("escalation.onNoResponse", "must be allow or block")
		}
	}
	return nil
}

// CreateTask queues a task (POST /tasks) and matches it at once when a worker is eligible,
// so a read right after already sees it pending. A used id is ErrTaskExists.
func (e *Engine) CreateTask(now time.Time, in TaskInput) (Result, error) {
	res := e.begin(&Result{}, now)
	if err := checkTaskInput(in); err != nil {
		return e.fail(res, err)
	}
	if _, ok := e.tasks[in.ID]; ok {
		return e.fail(res, &taskExistsError{id: in.ID})
	}
	e.taskSeq++
	t := &task{
		id:        in.ID,
		key:       keyOf(in.ID),
		seq:       e.taskSeq,
		tagsIn:    dedupe(in.Tags),
		priority:  in.Priority,
		queued:    e.now,
		createdAt: e.nowTime,
		status:    StatusQueued,
		extra:     in.Extra,
		heapIdx:   -1,
		dlIdx:     -1,
	}
	if len(in.VetoedWorkers) > 0 {
		t.vetoed = slices.Clone(in.VetoedWorkers)
	}
	if in.Escalation != nil {
		es := *in.Escalation
		t.esc = &es
	}
	t.rt = cloneTaskRouting(in.Routing)
	tags := make([]int32, 0, len(t.tagsIn))
	for _, s := range t.tagsIn {
		tags = append(tags, e.intern(s))
	}
	slices.Sort(tags)
	for _, id := range tags {
		e.tagUses[id]++
	}
	t.tags = tags
	if len(in.SkillThresholds) > 0 {
		t.thrIn = make(map[string]float64, len(in.SkillThresholds))
		// Sorted keys: tag ids are handed out in first-seen order, which must not depend
		// on map order.
		for _, k := range slices.Sorted(maps.Keys(in.SkillThresholds)) {
			v := in.SkillThresholds[k]
			t.thrIn[k] = v
			t.thr = append(t.thr, threshold{tag: e.intern(k), min: v})
		}
		slices.SortFunc(t.thr, func(a, b threshold) int { return int(a.tag) - int(b.tag) })
	}
	e.tasks[t.id] = t
	e.taskList = append(e.taskList, t)
	if e.startClocks(t, in.Clocks, res) {
		return e.finish(res), nil
	}
	if e.platform() || len(e.dirtyTasks) > 0 || len(e.dirtyWorkers) > 0 {
		e.enqueue(t)
		e.markTask(t)
		return e.finish(res), nil
	}
	// Everything else is at a fixed point, so the new task is the only possible match and
	// settle would do exactly this. Deciding before enqueueing spares a task matched at
	// once the churn of its group (often a new one) being made and dropped again.
	if w := e.bestWorker(t); w != nil {
		e.decide()
		e.offer(t, w, e.cfg.Mode, res)
	} else {
		e.enqueue(t)
	}
	return e.finish(res), nil
}

type taskExistsError struct{ id string }

func (e *taskExistsError) Error() string        { return "match: task " + strconv.Quote(e.id) + " exists" }
func (e *taskExistsError) Is(target error) bool { return target == ErrTaskExists }

type backlogFullError struct{ id string }

func (e *backlogFullError) Error() string {
	return "match: worker " + strconv.Quote(e.id) + " backlog full"
}
func (e *backlogFullError) Is(target error) bool { return target == ErrBacklogFull }

// CancelTask cancels a non-terminal task (DELETE /tasks/{id}); a pending offer is
// withdrawn.
func (e *Engine) CancelTask(now time.Time, id string) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.lookupTask(id)
	if err != nil {
		return e.fail(res, err)
	}
	if t.status.Terminal() {
		return e.fail(res, &StateError{Op: "cancel", TaskID: id, Status: t.status, Reason: StateWrongStatus})
	}
	workerID := t.workerID
	switch t.status {
	case StatusQueued:
		e.dequeue(t)
	case StatusPending:
		e.withdraw(t)
		t.workerID = "" // it was only offered; an accepted task keeps who worked on it
	}
	t.status = StatusCancelled
	e.learnForget(t)
	e.reclock(t)
	e.taskEvent(res, EventTaskCancelled, t, workerID)
	return e.finish(res), nil
}

// actor resolves the worker of accept, reject and complete: an unknown worker that is not
// the task's own is not found; a removed worker may still finish what it accepted.
func (e *Engine) actor(t *task, workerID string) (*worker, error) {
	w, ok := e.workers[workerID]
	if !ok && t.workerID != workerID {
		return nil, &NotFoundError{Kind: "worker", ID: workerID}
	}
	return w, nil
}

// Accept accepts a pending task for the worker it is offered to (POST /tasks/{id}/accept).
// The offer no longer counts against the worker's cap.
func (e *Engine) Accept(now time.Time, taskID, workerID string) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.offeredTask("accept", taskID, workerID)
	if err != nil {
		return e.fail(res, err)
	}
	w := t.w
	e.withdraw(t)
	t.status = StatusAccepted
	t.workerID = w.id
	e.reclock(t)
	e.reward(w, t, RewardAccept)
	e.learnOutcome(t, outcomeAccept)
	e.taskEvent(res, EventTaskAccepted, t, w.id)
	return e.finish(res), nil
}

// offeredTask finds the task an accept or reject is about and checks it is pending for
// that worker.
func (e *Engine) offeredTask(op, taskID, workerID string) (*task, error) {
	t, err := e.lookupTask(taskID)
	if err != nil {
		return nil, err
	}
	if _, err := e.actor(t, workerID); err != nil {
		return nil, err
	}
	if t.status != StatusPending {
		return nil, &StateError{Op: op, TaskID: t.id, WorkerID: workerID, Status: t.status, Reason: StateWrongStatus}
	}
	if t.workerID != workerID || (t.w != nil && t.w.removed) {
		// Under RulesPlatform a removed worker's offers stay until they expire, but are no
		// longer its to answer (nor a new worker's of the same id).
		return nil, &StateError{Op: op, TaskID: t.id, WorkerID: workerID, Status: t.status, Reason: StateNotOfferedWorker}
	}
	return t, nil
}

// Reject refuses a pending offer (POST /tasks/{id}/reject): the task is queued again at
// its original place and the worker never gets it again.
func (e *Engine) Reject(now time.Time, taskID, workerID string) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.offeredTask("reject", taskID, workerID)
	if err != nil {
		return e.fail(res, err)
	}
	w := t.w
	e.withdraw(t)
	t.rejected = append(t.rejected, w.id)
	e.reward(w, t, RewardReject)
	e.learnOutcome(t, outcomeReject)
	e.taskEvent(res, EventTaskRejected, t, w.id)
	if e.onRejected(t, res) {
		return e.finish(res), nil
	}
	e.requeue(t)
	return e.finish(res), nil
}

// Complete completes an accepted task by the accepting worker
// (POST /tasks/{id}/complete). result is stored and echoed untouched.
func (e *Engine) Complete(now time.Time, taskID, workerID string, result any) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.lookupTask(taskID)
	if err != nil {
		return e.fail(res, err)
	}
	w, err := e.actor(t, workerID)
	if err != nil {
		return e.fail(res, err)
	}
	if t.status != StatusAccepted {
		return e.fail(res, &StateError{Op: "complete", TaskID: taskID, WorkerID: workerID, Status: t.status, Reason: StateWrongStatus})
	}
	if t.workerID != workerID {
		return e.fail(res, &StateError{Op: "complete", TaskID: taskID, WorkerID: workerID, Status: t.status, Reason: StateNotAcceptingWorker})
	}
	t.status = StatusCompleted
	t.result = result
	e.learnOutcome(t, outcomeComplete)
	if w != nil {
		e.reward(w, t, RewardComplete)
		// A reward can lift a learned veto, so the worker may now serve queued tasks.
		e.markWorker(w)
	}
	ev := e.taskEvent(res, EventTaskCompleted, t, workerID)
	ev.Result = result
	return e.finish(res), nil
}

// Advance moves the engine's clock to now, firing every offer expiry due by then in
// deadline order, each followed by matching at its own time. Under RulesPlatform with a
// Config.MaintenanceInterval, moving the clock is no command: only the maintenance ticks
// that expired offers run a pass (fireDuePlatform), and Advance adds none of its own.
func (e *Engine) Advance(now time.Time) Result {
	res := e.begin(&Result{}, now)
	if e.platform() && e.cfg.MaintenanceInterval > 0 {
		return *res
	}
	return e.finish(res)
}

// NextDeadline returns the earliest offer expiry or task clock, so the caller's clock knows when to call
// Advance.
func (e *Engine) NextDeadline() (time.Time, bool) {
	at, ok := e.nextClockDeadline()
	if len(e.deadlines.h) > 0 {
		offer := e.deadlines.h[0].deadline
		if e.platform() && e.cfg.MaintenanceInterval > 0 {
			offer = e.sweepTick(offer) // an offer expires on the sweep after its deadline
		}
		if !ok || offer < at {
			at, ok = offer, true
		}
	}
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, at).In(e.nowTime.Location()), true
}
