package taskrouting

import "context"

// This file holds the calls around a task's clocks (SLA, schedule and the
// escalation ladder): ending a task, stopping its response clock, moving it
// up the ladder, and the parked and scheduled states the clocks lead to.

// TaskStatusParked is the status of a task out of matching (SLA park,
// rejection budget, end of the escalation ladder, missed schedule) until
// Unpark.
const TaskStatusParked TaskStatus = "parked"

// FailTaskParams is the body of Fail.
type FailTaskParams struct {
	WorkerID string `json:"workerId"`         // the worker that accepted the task
	Reason   string `json:"reason,omitempty"` // passed on in task.failed
}

// EscalateTaskParams is the body of Escalate; the zero value sends {}.
type EscalateTaskParams struct {
	// WorkerID, when set, names the worker whose offer is escalated away.
	WorkerID string `json:"workerId,omitempty"`
}

// EscalationStep is the answer of Escalate.
type EscalationStep struct {
	ID string `json:"id"`
	// Escalated is true when the task took a step up its ladder.
	Escalated bool `json:"escalated"`
	// Parked is true at the end of the ladder: the task has left matching.
	// This flag is the only thing in the answer that says so.
	Parked bool `json:"parked"`
	// Level is the task's step on the ladder after the call.
	Level int `json:"escalationLevel"`
}

// UnparkTaskParams are the clock resets of Unpark. Nil fields are not sent
// (the server's default); a clock left as it was may park the task again at
// once.
type UnparkTaskParams struct {
	ResetEscalation *bool `json:"resetEscalation,omitempty"` // escalation level back to 0
	ResetSLA        *bool `json:"resetSla,omitempty"`        // SLA shelf life and rejection count start again
	ResetSchedule   *bool `json:"resetSchedule,omitempty"`   // the schedule window is dropped
}

// TaskSet is the answer of Parked and Scheduled.
type TaskSet struct {
	Tasks []Task `json:"tasks"`
	Count int    `json:"count"`
}

// Fail ends a task its worker accepted and cannot finish. The task is
// terminal (status failed).
//
// API: tasks.fail, POST /tasks/{id}/fail
func (s *TasksService) Fail(ctx context.Context, taskID string, p FailTaskParams, opts ...RequestOption) (*TaskRef, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	if err := s.c.admit(firstError(checkID("FailTaskParams.WorkerID", p.WorkerID), checkLen("FailTaskParams.WorkerID", p.WorkerID, 1, 128)), opts); err != nil {
		return nil, err
	}
	out := new(TaskRef)
	if err := s.c.call(ctx, "POST", escapePath("/tasks/", taskID, "/fail"), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Ack acknowledges an offer for workerID without starting work: the
// response clock stops, so the offer no longer runs out. The answer's
// status is accepted.
//
// API: tasks.ack, POST /tasks/{id}/ack
func (s *TasksService) Ack(ctx context.Context, taskID, workerID string, opts ...RequestOption) (*TaskRef, error) {
	return s.c.answerTask(ctx, "/tasks/", taskID, "/ack", workerID, nil, opts)
}

// Escalate moves a task one step up its escalation ladder. Check
// EscalationStep.Parked: past the last step the task leaves matching and
// waits for Unpark.
//
// API: tasks.escalate, POST /tasks/{id}/escalate
func (s *TasksService) Escalate(ctx context.Context, taskID string, p EscalateTaskParams, opts ...RequestOption) (*EscalationStep, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	if p.WorkerID != "" {
		if err := s.c.admit(firstError(checkID("EscalateTaskParams.WorkerID", p.WorkerID), checkLen("EscalateTaskParams.WorkerID", p.WorkerID, 1, 128)), opts); err != nil {
			return nil, err
		}
	}
	out := new(EscalationStep)
	if err := s.c.call(ctx, "POST", escapePath("/tasks/", taskID, "/escalate"), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Unpark puts a parked task back into matching. Reset the clocks that
// parked it, or the next sweep parks it straight back.
//
// API: tasks.unpark, POST /tasks/{id}/unpark
func (s *TasksService) Unpark(ctx context.Context, taskID string, p UnparkTaskParams, opts ...RequestOption) (*TaskRef, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	out := new(TaskRef)
	if err := s.c.call(ctx, "POST", escapePath("/tasks/", taskID, "/unpark"), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Parked lists the tasks out of matching that Unpark can bring back.
//
// API: tasks.parked, GET /tasks/parked
func (s *TasksService) Parked(ctx context.Context, opts ...RequestOption) (*TaskSet, error) {
	out := new(TaskSet)
	if err := s.c.call(ctx, "GET", "/tasks/parked", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Scheduled lists the tasks held until their Schedule.NotBefore: work
// booked but not started.
//
// API: tasks.scheduled, GET /tasks/scheduled
func (s *TasksService) Scheduled(ctx context.Context, opts ...RequestOption) (*TaskSet, error) {
	out := new(TaskSet)
	if err := s.c.call(ctx, "GET", "/tasks/scheduled", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
