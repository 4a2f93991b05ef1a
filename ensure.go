package taskrouting

import (
	"context"
	"errors"
	"fmt"
)

// The Ensure forms of the writes whose outcome can be read back. Each sends
// the write once (with the chokepoint's retry rule, writeretry.go) and,
// when the answer leaves its outcome open or says the change was already
// made, reads the state back: if the state the caller asked for holds, the
// call succeeded and they return success; otherwise they return the write's
// own error, unchanged. An ambiguous answer is ErrOutcomeUnknown (the
// answer was lost after the request reached the server) or a 5xx (the
// server may have failed after the change); "already made" is the
// write's 409. A failed read-back returns the write's error too, as a
// *ReadBackError that also carries the read's failure.

// ReadBackError is the error of an Ensure method (EnsureAccepted,
// EnsureCompleted, EnsureRejected, EnsureBreakStarted, EnsureBreakEnded)
// whose write failed and whose read-back, sent to tell whether the write
// had been made all the same, failed too, so the outcome stays as the
// write's error says.
//
// It stands for the write's error: Unwrap returns that error alone, so
// errors.Is and errors.As answer as they would for the plain method's
// error (errors.Is(err, ErrInvalidState), errors.As to the write's
// *APIError), and the read's failure is never mistaken for the write's
// outcome (a read's 404 or 503 does not make errors.Is(err, ErrNotFound)
// or errors.Is(err, ErrServer) true). Read keeps why the read failed, for
// a log or for a caller that reads the state again itself; Error names
// both.
type ReadBackError struct {
	Err  error // the write's error, as the plain method returns it
	Read error // the read-back's failure
}

func (e *ReadBackError) Error() string {
	return fmt.Sprintf("%v (reading the state back failed too: %v)", e.Err, e.Read)
}

// Unwrap returns the write's error only.
func (e *ReadBackError) Unwrap() error { return e.Err }

// readBack runs write and, after an error for which again says a read can
// settle the outcome, read: read reports the value to return and whether
// the state asked for holds.
func readBack[T any](write func() (T, error), again func(error) bool, read func() (T, bool, error)) (T, error) {
	out, err := write()
	if err == nil || !again(err) {
		return out, err
	}
	got, holds, readErr := read()
	if readErr != nil {
		var zero T
		return zero, &ReadBackError{Err: err, Read: readErr}
	}
	if !holds {
		var zero T
		return zero, err
	}
	return got, nil
}

// outcomeOpen reports an error after which the write may have been applied.
func outcomeOpen(err error) bool {
	return errors.Is(err, ErrOutcomeUnknown) || errors.Is(err, ErrServer)
}

// openOrConflict is outcomeOpen or the 409 a repeat of the write answers.
func openOrConflict(conflict error) func(error) bool {
	return func(err error) bool { return outcomeOpen(err) || errors.Is(err, conflict) }
}

// EnsureCompleted completes a task accepted by workerID and, unlike
// Complete, counts a completion already made as done: after an ambiguous
// failure or a 409 invalid_state it reads the task, and if it is completed
// by workerID it returns the task's state with a nil error. Otherwise the
// Complete's error is returned as it came. Use it where one completion can
// be sent twice: a job that resumes after a crash, a handler run again for
// a redelivered event.
//
// It sends tasks.complete (POST /tasks/{id}/complete) and, after such an
// error, tasks.get (GET /tasks/{id}); opts apply to both (WithIdempotencyKey,
// WithResponseInto and WithJSONSet to the complete alone).
func (s *DecisionsService) EnsureCompleted(ctx context.Context, taskID, workerID string, result any, opts ...RequestOption) (*TaskRef, error) {
	return readBack(
		func() (*TaskRef, error) { return s.Complete(ctx, taskID, workerID, result, opts...) },
		openOrConflict(ErrInvalidState),
		func() (*TaskRef, bool, error) {
			t, err := s.c.getTaskForCheck(ctx, taskID, opts)
			if err != nil {
				return nil, false, err
			}
			return &TaskRef{ID: t.ID, Status: t.Status}, t.Status == TaskStatusCompleted && t.WorkerID == workerID, nil
		},
	)
}

// EnsureRejected turns down a task offered to workerID and, unlike Reject,
// counts a rejection already made as done: after an ambiguous failure or a
// 409 invalid_state it reads the task, and if workerID neither holds it nor
// has it on offer it returns the reject's usual answer (status queued, as
// the platform answers a reject even when the task is already offered to
// someone else) with a nil error. Otherwise the Reject's error is returned
// as it came. The read cannot tell a rejection from an offer that expired
// or moved to another worker; either way the task is no longer workerID's.
//
// It sends tasks.reject (POST /tasks/{id}/reject) and, after such an error,
// tasks.get (GET /tasks/{id}); opts apply to both (WithIdempotencyKey,
// WithResponseInto and WithJSONSet to the reject alone).
func (s *DecisionsService) EnsureRejected(ctx context.Context, taskID, workerID string, opts ...RequestOption) (*TaskRef, error) {
	return readBack(
		func() (*TaskRef, error) { return s.Reject(ctx, taskID, workerID, opts...) },
		openOrConflict(ErrInvalidState),
		func() (*TaskRef, bool, error) {
			t, err := s.c.getTaskForCheck(ctx, taskID, opts)
			if err != nil {
				return nil, false, err
			}
			return &TaskRef{ID: t.ID, Status: TaskStatusQueued}, t.WorkerID != workerID, nil
		},
	)
}

// EnsureCompleted completes a task the signed-in worker accepted and,
// unlike Complete, counts a completion already made as done. It is
// Decisions.EnsureCompleted for the worker plane, where it matters more:
// the plane's POSTs carry no idempotency key, so a Complete whose answer
// was lost is not retried (ErrOutcomeUnknown), and repeating it by hand
// answers 409 invalid_state. After either, or a 5xx, it reads the task and
// returns success when it is completed.
//
// It sends worker.complete (POST /portal/tasks/{id}/complete) and, after
// such an error, worker.taskDetail (GET /portal/tasks/{id}); opts apply to
// both (WithResponseInto and WithJSONSet to the complete alone).
func (w *WorkerClient) EnsureCompleted(ctx context.Context, taskID string, result any, opts ...RequestOption) (*TaskRef, error) {
	return readBack(
		func() (*TaskRef, error) { return w.Complete(ctx, taskID, result, opts...) },
		openOrConflict(ErrInvalidState),
		func() (*TaskRef, bool, error) {
			// worker.taskDetail shows only the signed-in worker's tasks.
			t, err := w.Task(ctx, taskID, withOwn(opts, dropCallOnly)...)
			if err != nil {
				return nil, false, err
			}
			return &TaskRef{ID: t.ID, Status: t.Status}, t.Status == TaskStatusCompleted, nil
		},
	)
}

// EnsureRejected turns down a task offered to the signed-in worker and,
// unlike Reject, counts a rejection already made as done: after an
// ambiguous failure (ErrOutcomeUnknown, a 5xx) or a 409 invalid_state it
// reads the task, and when the worker can no longer see it (404: neither
// offered to them nor held) it returns the reject's usual answer (status
// queued) with a nil error. Otherwise the Reject's error is returned as it
// came. A Reject repeated after one that went through answers 404, which is
// returned as it came: on this plane a task rejected earlier and an id that
// never was the worker's look the same.
//
// It sends worker.reject (POST /portal/tasks/{id}/reject) and, after such
// an error, worker.taskDetail (GET /portal/tasks/{id}); opts apply to both
// (WithResponseInto and WithJSONSet to the reject alone).
func (w *WorkerClient) EnsureRejected(ctx context.Context, taskID string, opts ...RequestOption) (*TaskRef, error) {
	return readBack(
		func() (*TaskRef, error) { return w.Reject(ctx, taskID, opts...) },
		openOrConflict(ErrInvalidState),
		func() (*TaskRef, bool, error) {
			_, err := w.Task(ctx, taskID, withOwn(opts, dropCallOnly)...)
			if errors.Is(err, ErrNotFound) {
				return &TaskRef{ID: taskID, Status: TaskStatusQueued}, true, nil
			}
			return nil, false, err
		},
	)
}

// EnsureBreakStarted opens a break for the signed-in worker and, unlike
// StartBreak, counts a break already open as done: after an ambiguous
// failure (ErrOutcomeUnknown, a 5xx) or ErrBreakAlreadyOpen it reads the
// worker's breaks of the day, and while one is open it returns that break
// (OnBreak true, Since its start) with a nil error. The open break may be
// one started earlier, not by this call; its reason is then that break's.
//
// It sends worker.startBreak (POST /portal/breaks/start) and, after such an
// error, worker.breaksToday (GET /portal/breaks/today); opts apply to both
// (WithResponseInto and WithJSONSet to the start alone).
func (w *WorkerClient) EnsureBreakStarted(ctx context.Context, p StartBreakParams, opts ...RequestOption) (*BreakState, error) {
	return readBack(
		func() (*BreakState, error) { return w.StartBreak(ctx, p, opts...) },
		openOrConflict(ErrBreakAlreadyOpen),
		func() (*BreakState, bool, error) {
			day, err := w.BreaksToday(ctx, withOwn(opts, dropCallOnly)...)
			if err != nil || day.Active == nil {
				return nil, false, err
			}
			return &BreakState{WorkerID: day.WorkerID, OnBreak: true, Since: day.Active.StartedAt}, true, nil
		},
	)
}

// EnsureBreakEnded closes the signed-in worker's open break and, unlike
// EndBreak, settles an ambiguous failure (ErrOutcomeUnknown, a 5xx): it
// reads the worker's breaks of the day, and when none is open it returns
// the last one that ended today (OnBreak false, EndedAt set), or nil, nil
// when there is none, as EndBreak answers when no break was open.
// Otherwise the EndBreak's error is returned as it came. (A repeated
// EndBreak is no 409: the platform answers 204, EndBreak nil, nil.)
//
// It sends worker.endBreak (POST /portal/breaks/end) and, after such an
// error, worker.breaksToday (GET /portal/breaks/today); opts apply to both
// (WithResponseInto and WithJSONSet to the end alone).
func (w *WorkerClient) EnsureBreakEnded(ctx context.Context, opts ...RequestOption) (*BreakState, error) {
	return readBack(
		func() (*BreakState, error) { return w.EndBreak(ctx, opts...) },
		outcomeOpen,
		func() (*BreakState, bool, error) {
			day, err := w.BreaksToday(ctx, withOwn(opts, dropCallOnly)...)
			if err != nil || day.Active != nil {
				return nil, false, err
			}
			var last *WorkerBreak
			for i := range day.Breaks {
				if b := &day.Breaks[i]; !b.EndedAt.IsZero() && (last == nil || b.EndedAt.After(last.EndedAt)) {
					last = b
				}
			}
			if last == nil {
				return nil, true, nil
			}
			return &BreakState{WorkerID: day.WorkerID, OnBreak: false, EndedAt: last.EndedAt}, true, nil
		},
	)
}
