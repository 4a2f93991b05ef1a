package taskrouting

import (
	"context"
	"errors"
)

// EnsureAccepted accepts a task offered to workerID and, unlike Accept,
// treats an accept that was already made as done: when the platform
// answers 409 invalid_state, it reads the task, and if workerID holds it
// (accepted, or since completed) it returns the task's state with a nil
// error. Otherwise the 409 is returned as it came (ErrInvalidState): the
// offer moved on (it expired, went to someone else, or the task was
// cancelled) and no retry can change that. When the read fails, the 409
// is returned all the same, as a *ReadBackError whose Read field holds the
// read's failure: errors.Is(err, ErrInvalidState) holds and errors.As
// finds the accept's *APIError, whatever the read answered.
//
// Use it where one match can be acted on twice, above all in a webhook
// handler: when a first task.matched delivery's accept went through but
// its answer was lost, the sender delivers again, and a plain Accept now
// answers 409, the handler 500, and the sender retries in vain while later
// events queue behind it:
//
//	ref, err := c.Decisions.EnsureAccepted(ctx, m.TaskID, m.WorkerID)
//	if errors.Is(err, taskrouting.ErrInvalidState) {
//		return nil // the offer moved on; a redelivery cannot help
//	}
//	return err
//
// It sends tasks.accept (POST /tasks/{id}/accept) and, after a 409, tasks.get
// (GET /tasks/{id}); opts apply to both, except WithIdempotencyKey,
// WithJSONSet and WithResponseInto, which apply to the accept alone (the
// Response is the accept's, its 409 included).
func (s *DecisionsService) EnsureAccepted(ctx context.Context, taskID, workerID string, opts ...RequestOption) (*TaskRef, error) {
	return acceptOnce(
		func() (*TaskRef, error) { return s.Accept(ctx, taskID, workerID, opts...) },
		func() (*Task, error) { return s.c.getTaskForCheck(ctx, taskID, opts) },
		func(t *Task) bool { return t.WorkerID == workerID },
	)
}

// acceptOnce is the one body of EnsureAccepted on both planes. accept
// sends the plane's accept; only after its 409 invalid_state does read
// fetch the task, and the accept counts as already made when ours says
// the task is the accepting worker's and its status shows an accept
// (accepted, or since completed). The planes differ only in how a task
// shows whose it is: the workspace plane names the worker, the worker
// plane answers only for the signed-in worker's own tasks.
func acceptOnce(accept func() (*TaskRef, error), read func() (*Task, error), ours func(*Task) bool) (*TaskRef, error) {
	ref, err := accept()
	if err == nil || !errors.Is(err, ErrInvalidState) {
		return ref, err
	}
	task, readErr := read()
	if readErr != nil {
		// The accept's answer stands; the read's failure rides along.
		return nil, &ReadBackError{Err: err, Read: readErr}
	}
	if ours(task) && (task.Status == TaskStatusAccepted || task.Status == TaskStatusCompleted) {
		return &TaskRef{ID: task.ID, Status: task.Status}, nil
	}
	return nil, err
}

// getTaskForCheck reads a task with the caller's options less the ones
// that belong to the first call of a pair.
func (c *Client) getTaskForCheck(ctx context.Context, taskID string, opts []RequestOption) (*Task, error) {
	own := make([]RequestOption, 0, len(opts)+2)
	own = append(own, opts...)
	own = append(own, dropCallOnly)
	var out Task
	if err := c.call(ctx, "GET", escapePath("/tasks/", taskID), nil, nil, &out, own); err != nil {
		return nil, err
	}
	return &out, nil
}

// dropCallOnly undoes WithIdempotencyKey, WithResponseInto and WithJSONSet, for the
// second call of a method that sends two.
func dropCallOnly(o *config) error {
	o.idempotencyKey, o.response, o.jsonSet = "", nil, nil
	return nil
}
