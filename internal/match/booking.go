package match

import "time"

// A booking reserves a task for one worker (tasks.booking.set): while it holds, matching
// offers the task to that worker only, and to nobody else even when the booked worker is
// busy or away. The rest of the engine sees a booking through three hooks: check refuses
// other workers (ReasonBookedForOther), bestWorker asks only the booked worker, and
// bestTaskFor skips tasks booked for someone else.

// ReasonBookedForOther: the task is booked for another worker.
const ReasonBookedForOther ReasonKind = "bookedForOther"

// bookedWorker is bestWorker for a booked task: the booked worker when it is ready and
// eligible, else nil. It never scans other workers.
func (e *Engine) bookedWorker(id string, s *spec, sc *scanResult) *worker {
	w, ok := e.workers[id]
	if !ok || !e.isReady(w) {
		return nil
	}
	e.examine(s, w, sc)
	if len(sc.top) == 0 {
		return nil
	}
	return sc.top[0].w
}

// Book reserves a task for a worker. A queued task is offered to that worker at once when it
// is ready; a task pending with another worker is taken back from it (task.released with
// reason "booked") and waits for the booked one. A finished task, or one accepted by another
// worker, is a StateError: its work is already someone's.
func (e *Engine) Book(now time.Time, taskID, workerID string) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.lookupTask(taskID)
	if err != nil {
		return e.fail(res, err)
	}
	if _, err := e.lookupWorker(workerID); err != nil {
		return e.fail(res, err)
	}
	if t.status.Terminal() || (t.status == StatusAccepted && t.workerID != workerID) {
		return e.fail(res, &StateError{Op: "book", TaskID: taskID, WorkerID: workerID, Status: t.status, Reason: StateWrongStatus})
	}
	e.setBooked(t, workerID)
	switch {
	case t.status == StatusQueued:
		e.markTask(t)
	case t.status == StatusPending && t.workerID != workerID:
		prev := t.w
		res.PreviousWorkerID = prev.id
		e.withdraw(t)
		ev := e.taskEvent(res, EventTaskReleased, t, prev.id)
		ev.Reason = "booked"
		e.requeue(t)
	}
	return e.finish(res), nil
}

// Unbook ends a task's booking; a queued task is open to every eligible worker again.
// Unbooking a task that is not booked changes nothing.
func (e *Engine) Unbook(now time.Time, taskID string) (Result, error) {
	res := e.begin(&Result{}, now)
	t, err := e.lookupTask(taskID)
	if err != nil {
		return e.fail(res, err)
	}
	e.setBooked(t, "")
	if t.status == StatusQueued {
		e.markTask(t)
	}
	return e.finish(res), nil
}

// BookedFor names the worker a task is booked for ("" when none).
func (e *Engine) BookedFor(taskID string) (string, error) {
	t, err := e.lookupTask(taskID)
	if err != nil {
		return "", err
	}
	return t.booked, nil
}

// BookingCandidates ranks the workers who could take a task if it were booked for them:
// eligible ones first in the mode's order, then ineligible ones with their reasons, at most
// limit (1-100; 0 means 25). The task's own booking is left out of the check, so the answer
// is the same before and after a booking. It examines workers as SuggestWorkers does, ready
// or not, and changes nothing.
func (e *Engine) BookingCandidates(taskID string, limit int) ([]Candidate, error) {
	t, err := e.lookupTask(taskID)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = defaultMaxCandidates
	}
	limit = min(limit, 100)
	s := e.taskSpec(t)
	s.booked = ""
	sc := scanResult{}
	sc.reset(nil, limit)
	e.eachCandidate(&s, false, func(w *worker) {
		if ok, score := e.check(w, &s, true, nil); ok {
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

// setBooked books t for workerID ("" ends the booking). A task in the platform orders is
// indexed again: their entries copy whether it is booked (platform_order.go).
func (e *Engine) setBooked(t *task, workerID string) {
	if !t.platQueued {
		t.booked = workerID
		return
	}
	e.platUnindex(t)
	t.booked = workerID
	e.platReindex(t)
}
