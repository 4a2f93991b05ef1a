package match

import (
	"slices"
	"time"
)

// This file holds a task's own clocks, beside the offer expiry of queue.go: the SLA's shelf
// life and rejection budget, the schedule window and the escalation ladder, with the parked
// state they lead to. Tasks without these policies carry no clock state (task.cl is nil), so
// the hot create-and-match path does not pay for them.

// Task states reached through the clocks.
const (
	// StatusScheduled: held until Schedule.NotBefore; never offered before.
	StatusScheduled Status = "scheduled"
	// StatusParked: out of matching (SLA park, rejection budget, end of the escalation
	// ladder, missed schedule) until Unpark.
	StatusParked Status = "parked"
	// StatusFailed: terminal; failed by its worker or by the rejection budget.
	StatusFailed Status = "failed"
	// StatusExpired: terminal; its SLA shelf life or schedule window ran out (drop).
	StatusExpired Status = "expired"
)

// Event kinds of the clocks. Each carries a Reason naming the clock or the caller's reason.
const (
	EventTaskParked    EventKind = "task.parked"    // Reason: "sla", "maxRejections", "escalation", "schedule"
	EventTaskUnparked  EventKind = "task.unparked"  // back in the queue
	EventTaskFailed    EventKind = "task.failed"    // Reason: "maxRejections" or the worker's reason
	EventTaskEscalated EventKind = "task.escalated" // Level: the new escalation level
	EventTaskDropped   EventKind = "task.dropped"   // Reason: "sla" or "schedule"; status expired
	EventTaskQueued    EventKind = "task.queued"    // Reason "schedule": a scheduled task became due
)

// ClockAction is what a clock does when it runs out.
type ClockAction string

// Clock actions. Not every clock takes every action (see Clocks).
const (
	ActionPark  ClockAction = "park"
	ActionFail  ClockAction = "fail"
	ActionKeep  ClockAction = "keep"
	ActionDrop  ClockAction = "drop"
	ActionQueue ClockAction = "queue"
)

// Clocks are a task's policies that run on the engine's clock. The zero value has none.
type Clocks struct {
	// ExpireAfter is the SLA shelf life from creation (sla.expireAfterMs); 0: none. It runs
	// while the task is scheduled, queued or offered, not once accepted nor while parked.
	ExpireAfter time.Duration
	// OnExpire: ActionDrop (also ""; the task expires) or ActionPark.
	OnExpire ClockAction
	// MaxRejections is the rejection budget (sla.maxRejections); 0: none.
	MaxRejections int
	// OnMaxRejections: ActionPark (also ""), ActionFail or ActionKeep.
	OnMaxRejections ClockAction
	// NotBefore holds the task as scheduled until then; zero: none.
	NotBefore time.Time
	// NotAfter ends the window in which the task may be matched; zero: none.
	NotAfter time.Time
	// OnMiss: ActionDrop (also ""; the task expires) or ActionPark.
	OnMiss ClockAction
	// MaxEscalations caps the ladder (escalation.maxEscalations); nil: no cap.
	MaxEscalations *int
	// OnExhausted: ActionPark (also "") or ActionQueue, past the last step.
	OnExhausted ClockAction
	// PriorityBoost is added to the priority at each escalation step.
	PriorityBoost float64
	// Ladder makes every offer that runs out unanswered one escalation step. Without it
	// (an escalation policy that only sets the response time) expiries only requeue.
	Ladder bool
}

// UnparkOptions are the clock resets of Unpark.
type UnparkOptions struct {
	ResetEscalation bool // level back to 0
	ResetSLA        bool // shelf life restarts now; rejection count back to 0
	ResetSchedule   bool // the schedule window is dropped
}

// EscalateResult is what Escalate did.
type EscalateResult struct {
	Result
	Escalated bool // a step was taken
	Parked    bool // the ladder was exhausted and the task parked
	Level     int
}

// clockState is a task's clock policies and where it stands on them.
type clockState struct {
	c          Clocks
	expireAt   int64 // Unix ns; 0: none
	notBefore  int64
	notAfter   int64
	rejections int
	level      int
	at         int64 // key in the clock heap; 0: not in it
	idx        int32
}

func checkClocks(c *Clocks) error {
	if c == nil {
		return nil
	}
	if c.ExpireAfter < 0 {
		return inputErr("sla.expireAfter", "must not be negative")
	}
	if c.MaxRejections < 0 {
		return inputErr("sla.maxRejections", "must not be negative")
	}
	if c.MaxEscalations != nil && *c.MaxEscalations < 0 {
		return inputErr("escalation.maxEscalations", "must not be negative")
	}
	if !c.NotBefore.IsZero() && !c.NotAfter.IsZero() && c.NotAfter.Before(c.NotBefore) {
		return inputErr("schedule.notAfter", "must not be before notBefore")
	}
	checks := []struct {
		field string
		v     ClockAction
		ok    []ClockAction
	}{
		{"sla.onExpire", c.OnExpire, []ClockAction{ActionDrop, ActionPark}},
		{"sla.onMaxRejections", c.OnMaxRejections, []ClockAction{ActionPark, ActionFail, ActionKeep}},
		{"schedule.onMiss", c.OnMiss, []ClockAction{ActionDrop, ActionPark}},
		{"escalation.onExhausted", c.OnExhausted, []ClockAction{ActionPark, ActionQueue}},
	}
	for _, ch := range checks {
		if ch.v != "" && !slices.Contains(ch.ok, ch.v) {
			return inputErr(ch.field, "is not one of the allowed actions")
		}
	}
	return nil
}

// startClocks gives a new task its clocks and reports whether it is held as scheduled (the
// caller then neither enqueues nor matches it).
func (e *Engine) startClocks(t *task, c *Clocks, res *Result) (held bool) {
	if c == nil || *c == (Clocks{}) {
		return false
	}
	cl := &clockState{c: *c, idx: -1}
	if c.ExpireAfter > 0 {
		cl.expireAt = e.now + int64(c.ExpireAfter)
	}
	if !c.NotBefore.IsZero() {
		cl.notBefore = c.NotBefore.UnixNano()
	}
	if !c.NotAfter.IsZero() {
		cl.notAfter = c.NotAfter.UnixNano()
	}
	t.cl = cl
	if cl.notAfter != 0 && cl.notAfter <= e.now {
		// The window closed before the task was made: it misses at once.
		e.closeTask(t, c.OnMiss, "schedule", res)
		return true
	}
	if cl.notBefore > e.now {
		t.status = StatusScheduled
		e.reclock(t)
		return true
	}
	e.reclock(t)
	return false
}

// clockKind names the clock nextClock found first: fireClock fires that one, so when a
// clock is due and what it does come from one place and cannot disagree.
type clockKind uint8

const (
	clockNone  clockKind = iota
	clockSLA             // the shelf life ran out (wins ties: it is checked first)
	clockStart           // a scheduled task's notBefore
	clockMiss            // the schedule window closed (notAfter)
)

// nextClock is when a task's clocks next need attention in its current state and which
// clock that is; 0 and clockNone: never.
func (e *Engine) nextClock(t *task) (int64, clockKind) {
	cl := t.cl
	var at int64
	kind := clockNone
	earliest := func(v int64, k clockKind) {
		if v != 0 && (at == 0 || v < at) {
			at, kind = v, k
		}
	}
	switch t.status {
	case StatusScheduled:
		earliest(cl.expireAt, clockSLA)
		earliest(cl.notBefore, clockStart)
	case StatusQueued, StatusPending:
		earliest(cl.expireAt, clockSLA)
		earliest(cl.notAfter, clockMiss)
	}
	return at, kind
}

// reclock puts the task in the clock heap at its next time, or takes it out.
func (e *Engine) reclock(t *task) {
	if t.cl == nil {
		return
	}
	if t.cl.idx >= 0 {
		e.clocks.remove(t)
	}
	if at, _ := e.nextClock(t); at != 0 {
		t.cl.at = at
		e.clocks.push(t)
	}
}

// fireClock runs the clock of t that is due at the engine's time (fireDue has set it to the
// heap time). Firing always changes the task's status: the SLA and the schedule window
// close it (parked, failed or expired: no clock left), notBefore moves it from scheduled to
// queued, once. When nothing is due (its times moved without a reclock) the clock is armed
// again only for a later instant, never for now: so a rule that answers "due now" without
// acting cannot make fireDue visit the same task at the same instant forever.
func (e *Engine) fireClock(t *task, res *Result) {
	cl := t.cl
	e.clocks.remove(t)
	at, kind := e.nextClock(t)
	if kind == clockNone {
		return
	}
	if at > e.now { // not due after all: wait for its own time
		e.rearmLater(t, at)
		return
	}
	switch kind {
	case clockSLA:
		e.closeTask(t, cl.c.OnExpire, "sla", res)
	case clockStart:
		t.status = StatusQueued
		ev := e.taskEvent(res, EventTaskQueued, t, "")
		ev.Reason = "schedule"
		e.enqueue(t)
		e.markTask(t)
	case clockMiss:
		e.closeTask(t, cl.c.OnMiss, "schedule", res)
	}
	e.reclock(t)
}

// rearmLater puts t back in the clock heap at at, only when that is later than the engine's
// time. It is a check of its own, apart from fireClock's test of dueness, so that no single
// wrong comparison can arm a clock again for the instant it was taken off at without firing.
func (e *Engine) rearmLater(t *task, at int64) {
	if at > e.now {
		t.cl.at = at
		e.clocks.push(t)
	}
}

// leaveMatching takes a queued or pending task out of matching. A pending offer is
// withdrawn with task.released (reason why) so the worker's backlog frees up.
func (e *Engine) leaveMatching(t *task, why string, res *Result) {
	switch t.status {
	case StatusQueued:
		e.dequeue(t)
	case StatusPending:
		prev := t.w
		e.withdraw(t)
		ev := e.taskEvent(res, EventTaskReleased, t, prev.id)
		ev.Reason = why
	}
	t.workerID = ""
}

// closeTask applies a clock's park, fail or drop action (drop is the default) to a task
// that is scheduled, queued or pending.
func (e *Engine) closeTask(t *task, action ClockAction, why string, res *Result) {
	switch action {
	case ActionPark, ActionFail:
		e.park(t, action, why, res)
	default:
		e.leaveMatching(t, why, res)
		t.status = StatusExpired
		ev := e.taskEvent(res, EventTaskDropped, t, "")
		ev.Reason = why
		e.reclock(t)
	}
}

// park parks (ActionPark) or fails (ActionFail) a live task that is not accepted.
func (e *Engine) park(t *task, action ClockAction, why string, res *Result) {
	e.leaveMatching(t, why, res)
	kind := EventTaskParked
	t.status = StatusParked
	if action == ActionFail {
		kind = EventTaskFailed
		t.status = StatusFailed
	}
	ev := e.taskEvent(res, kind, t, "")
	ev.Reason = why
	e.reclock(t)
}

// onRejected spends one of the rejection budget after a reject (the task.rejected event is
// out, the offer withdrawn). It reports whether the task left matching; otherwise the
// caller requeues it.
func (e *Engine) onRejected(t *task, res *Result) bool {
	cl := t.cl
	if cl == nil || cl.c.MaxRejections <= 0 {
		return false
	}
	cl.rejections++
	if cl.rejections < cl.c.MaxRejections || cl.c.OnMaxRejections == ActionKeep {
		return false
	}
	action := cl.c.OnMaxRejections
	if action == "" {
		action = ActionPark
	}
	t.status = StatusQueued // withdrawn: not yet requeued
	e.park(t, action, "maxRejections", res)
	return true
}

// escalateStep takes one step up t's ladder after its offer ran out or on Escalate. The
// task is out of matching (queued again by the caller unless it parks). It reports whether
// a step was taken and whether the task parked at the end of the ladder.
func (e *Engine) escalateStep(t *task, res *Result) (escalated, parked bool) {
	if t.cl == nil {
		t.cl = &clockState{idx: -1}
	}
	cl := t.cl
	if max := cl.c.MaxEscalations; max != nil && cl.level >= *max {
		if cl.c.OnExhausted == ActionQueue {
			return false, false
		}
		t.status = StatusQueued
		e.park(t, ActionPark, "escalation", res)
		return false, true
	}
	cl.level++
	e.setTaskPriority(t, t.priority+cl.c.PriorityBoost)
	ev := e.taskEvent(res, EventTaskEscalated, t, "")
	ev.Level = cl.level
	return true, false
}

// escalateOnExpiry is the expiry hook of tasks with an escalation ladder (Clocks.Ladder):
// each offer that runs out unanswered is one step. It reports whether the task parked.
func (e *Engine) escalateOnExpiry(t *task, res *Result) bool {
	if t.cl == nil || !t.cl.c.Ladder {
		return false
	}
	_, parked := e.escalateStep(t, res)
	return parked
}

// Escalate moves a queued or offered task one step up its escalation ladder
// (POST /tasks/{id}/escalate). An offer is withdrawn first (task.released, reason
// "escalated"); when workerID is set it must be the offered worker. Past the last step the
// task parks (Parked) or, with ActionQueue, stays queued (neither flag).
func (e *Engine) Escalate(now time.Time, taskID, workerID string) (EscalateResult, error) {
	res := e.begin(&Result{}, now)
	t, err := e.lookupTask(taskID)
	if err != nil {
		r, err := e.fail(res, err)
		return EscalateResult{Result: r}, err
	}
	if t.status != StatusQueued && t.status != StatusPending {
		r, err := e.fail(res, &StateError{Op: "escalate", TaskID: taskID, WorkerID: workerID, Status: t.status, Reason: StateWrongStatus})
		return EscalateResult{Result: r}, err
	}
	if workerID != "" && t.workerID != workerID {
		r, err := e.fail(res, &StateError{Op: "escalate", TaskID: taskID, WorkerID: workerID, Status: t.status, Reason: StateNotOfferedWorker})
		return EscalateResult{Result: r}, err
	}
	wasQueued := t.status == StatusQueued
	if wasQueued {
		e.dequeue(t) // the priority may change
	} else {
		e.leaveMatching(t, "escalated", res)
	}
	t.status = StatusQueued
	escalated, parked := e.escalateStep(t, res)
	switch {
	case parked:
	case wasQueued:
		// A step of a waiting task is a priority change (as SetPriority): the task never
		// left the queue, so vetoes a worker's removal lifted stay lifted (platForget).
		e.enqueue(t)
		e.markTask(t)
	default:
		e.requeue(t)
	}
	out := EscalateResult{Escalated: escalated, Parked: parked, Level: t.cl.level}
	out.Result = e.finish(res)
	return out, nil
}

// Unpark queues a parked task again (POST /tasks/{id}/unpark), resetting the clocks opts
// names. A clock left as it was may park the task again at once: an SLA shelf life already
// over runs out on the next command.
func (e *Engine) Unpark(now time.Time, taskID string, opts UnparkOptions) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.lookupTask(taskID)
	if err != nil {
		return e.fail(res, err)
	}
	if t.status != StatusParked {
		return e.fail(res, &StateError{Op: "unpark", TaskID: taskID, Status: t.status, Reason: StateWrongStatus})
	}
	if cl := t.cl; cl != nil {
		if opts.ResetEscalation {
			cl.level = 0
		}
		if opts.ResetSLA {
			cl.rejections = 0
			if cl.c.ExpireAfter > 0 {
				cl.expireAt = e.now + int64(cl.c.ExpireAfter)
			}
		}
		if opts.ResetSchedule {
			cl.notBefore, cl.notAfter = 0, 0
		}
	}
	e.taskEvent(res, EventTaskUnparked, t, "")
	t.status = StatusQueued
	switch cl := t.cl; {
	case cl != nil && cl.expireAt != 0 && cl.expireAt <= e.now:
		// Not reset and already over: the shelf life runs out again at once.
		e.closeTask(t, cl.c.OnExpire, "sla", res)
	case cl != nil && cl.notAfter != 0 && cl.notAfter <= e.now:
		e.closeTask(t, cl.c.OnMiss, "schedule", res)
	default:
		e.requeue(t)
		e.reclock(t)
	}
	return e.finish(res), nil
}

// Ack acknowledges an offer for the offered worker (POST /tasks/{id}/ack): the response
// clock stops and the task is accepted, without the accept reward (the worker has not
// started; learning counts the completion).
func (e *Engine) Ack(now time.Time, taskID, workerID string) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.offeredTask("ack", taskID, workerID)
	if err != nil {
		return e.fail(res, err)
	}
	w := t.w
	e.withdraw(t)
	t.status = StatusAccepted
	t.workerID = w.id
	ev := e.taskEvent(res, EventTaskAccepted, t, w.id)
	ev.Reason = "ack"
	e.reclock(t)
	return e.finish(res), nil
}

// Fail fails an accepted task for the accepting worker (POST /tasks/{id}/fail). The task is
// terminal; reason is passed on in task.failed.
func (e *Engine) Fail(now time.Time, taskID, workerID, reason string) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.lookupTask(taskID)
	if err != nil {
		return e.fail(res, err)
	}
	if _, err := e.actor(t, workerID); err != nil {
		return e.fail(res, err)
	}
	if t.status != StatusAccepted {
		return e.fail(res, &StateError{Op: "fail", TaskID: taskID, WorkerID: workerID, Status: t.status, Reason: StateWrongStatus})
	}
	if t.workerID != workerID {
		return e.fail(res, &StateError{Op: "fail", TaskID: taskID, WorkerID: workerID, Status: t.status, Reason: StateNotAcceptingWorker})
	}
	t.status = StatusFailed
	e.learnOutcome(t, outcomeFail)
	ev := e.taskEvent(res, EventTaskFailed, t, workerID)
	ev.Reason = reason
	return e.finish(res), nil
}

// TasksWithStatus lists the tasks in one status in creation order (GET /tasks/parked,
// GET /tasks/scheduled). It scans every task: these are rare, operator-facing reads.
func (e *Engine) TasksWithStatus(s Status) []Task {
	out := []Task{}
	for _, t := range e.taskList {
		if t.status == s {
			out = append(out, e.taskView(t))
		}
	}
	return out
}

// escalationLevel is the task's step on its ladder.
func (t *task) escalationLevel() int {
	if t.cl == nil {
		return 0
	}
	return t.cl.level
}

// fireDue fires, in time order, every offer expiry and task clock due by target, each
// followed by matching at its own time. Offer expiries go first at equal times.
//
// The loop ends: each turn takes one entry due by target off a heap. An offer expiry
// re-arms only as a new offer, whose deadline is now + a positive timeout (Config and
// Escalation refuse or replace anything else), so later than this turn's instant. A task
// clock fires at most twice per task per instant (scheduled to queued, then closed) and is
// never re-armed at the instant it fired without acting (fireClock). Time only moves
// forward to target, so a bounded number of turns happens at each instant.
func (e *Engine) fireDue(res *Result, target int64, loc *time.Location) {
	if e.platform() {
		e.fireDuePlatform(res, target, loc)
		return
	}
	for {
		var offerAt, clockAt int64
		if len(e.deadlines.h) > 0 && e.deadlines.h[0].deadline <= target {
			offerAt = e.deadlines.h[0].deadline
		}
		if len(e.clocks.h) > 0 && e.clocks.h[0].cl.at <= target {
			clockAt = e.clocks.h[0].cl.at
		}
		switch {
		case offerAt != 0 && (clockAt == 0 || offerAt <= clockAt):
			t := e.deadlines.h[0].t
			e.setClock(offerAt, time.Unix(0, offerAt).In(loc))
			e.expire(t, res)
		case clockAt != 0:
			t := e.clocks.h[0]
			e.setClock(clockAt, time.Unix(0, clockAt).In(loc))
			e.fireClock(t, res)
		default:
			return
		}
		e.settle(res)
	}
}

// nextClockDeadline is the earliest task clock, for NextDeadline.
func (e *Engine) nextClockDeadline() (int64, bool) {
	if len(e.clocks.h) == 0 {
		return 0, false
	}
	return e.clocks.h[0].cl.at, true
}

// clockHeap orders tasks by their next clock time, then creation order.
type clockHeap struct{ h []*task }

func clBefore(a, b *task) bool {
	if a.cl.at != b.cl.at {
		return a.cl.at < b.cl.at
	}
	return a.seq < b.seq
}

func (d *clockHeap) push(t *task) {
	t.cl.idx = int32(len(d.h))
	d.h = append(d.h, t)
	d.up(int(t.cl.idx))
}

func (d *clockHeap) swap(i, j int) {
	d.h[i], d.h[j] = d.h[j], d.h[i]
	d.h[i].cl.idx, d.h[j].cl.idx = int32(i), int32(j)
}

func (d *clockHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !clBefore(d.h[i], d.h[p]) {
			return
		}
		d.swap(i, p)
		i = p
	}
}

func (d *clockHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(d.h) {
			return
		}
		m := l
		if r := l + 1; r < len(d.h) && clBefore(d.h[r], d.h[l]) {
			m = r
		}
		if !clBefore(d.h[m], d.h[i]) {
			return
		}
		d.swap(i, m)
		i = m
	}
}

func (d *clockHeap) remove(t *task) {
	i := int(t.cl.idx)
	last := len(d.h) - 1
	if i != last {
		d.swap(i, last)
	}
	d.h[last] = nil
	d.h = d.h[:last]
	t.cl.idx = -1
	t.cl.at = 0
	if i < last {
		d.down(i)
		d.up(i)
	}
}
