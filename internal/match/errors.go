package match

import (
	"errors"
	"fmt"
)

// Sentinel errors to branch on with errors.Is. Every error returned by a command wraps one
// of them, and a command that returns an error changed nothing itself.
var (
	// ErrNotFound: the task or worker does not exist (see *NotFoundError).
	ErrNotFound = errors.New("match: not found")
	// ErrInvalidState: the command does not fit the task's state or worker (see *StateError).
	ErrInvalidState = errors.New("match: invalid state")
	// ErrTaskExists: CreateTask with an id already used in this engine.
	ErrTaskExists = errors.New("match: task exists")
	// ErrBacklogFull: Assign without force to a worker at its cap.
	ErrBacklogFull = errors.New("match: worker backlog full")
	// ErrInvalidInput: the input breaks a rule the engine relies on (see *InputError).
	ErrInvalidInput = errors.New("match: invalid input")
	// ErrBreakAlreadyOpen: StartBreak while a break is open.
	ErrBreakAlreadyOpen = errors.New("match: break already open")
	// ErrNoOpenBreak: EndBreak with no break open (the worker plane answers 204).
	ErrNoOpenBreak = errors.New("match: no open break")
)

// NotFoundError says which object is missing. It matches ErrNotFound.
type NotFoundError struct {
	Kind string // "task" or "worker"
	ID   string
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("match: %s %q not found", e.Kind, e.ID) }

// Is reports whether target is ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// StateReason says why a transition was refused.
type StateReason string

// Reasons a transition is refused.
const (
	// StateWrongStatus: the task's status does not allow the command.
	StateWrongStatus StateReason = "wrong_status"
	// StateNotOfferedWorker: accept or reject by a worker the task is not offered to.
	StateNotOfferedWorker StateReason = "not_offered_worker"
	// StateNotAcceptingWorker: complete by a worker that did not accept the task.
	StateNotAcceptingWorker StateReason = "not_accepting_worker"
	// StateWorkerNotEligible: assign to a worker a matching rule other than capacity
	// keeps from the task; StateError.Rule names the rule.
	StateWorkerNotEligible StateReason = "worker_not_eligible"
)

// StateError is a refused transition. It matches ErrInvalidState.
type StateError struct {
	Op       string // "accept", "reject", "complete", "cancel", "assign", "setPriority"
	TaskID   string
	WorkerID string
	Status   Status // the task's status when refused
	Reason   StateReason
	Rule     ReasonKind // with StateWorkerNotEligible: the rule that refused, e.g. "vetoed"
}

func (e *StateError) Error() string {
	switch e.Reason {
	case StateNotOfferedWorker:
		return fmt.Sprintf("match: %s task %q: not offered to worker %q", e.Op, e.TaskID, e.WorkerID)
	case StateNotAcceptingWorker:
		return fmt.Sprintf("match: %s task %q: not accepted by worker %q", e.Op, e.TaskID, e.WorkerID)
	case StateWorkerNotEligible:
		return fmt.Sprintf("match: %s task %q: worker %q is not eligible (%s)", e.Op, e.TaskID, e.WorkerID, e.Rule)
	default:
		return fmt.Sprintf("match: %s task %q: status is %s", e.Op, e.TaskID, e.Status)
	}
}

// Is reports whether target is ErrInvalidState.
func (e *StateError) Is(target error) bool { return target == ErrInvalidState }

// InputError names the bad field. It matches ErrInvalidInput.
type InputError struct {
	Field  string
	Reason string
}

func (e *InputError) Error() string { return fmt.Sprintf("match: invalid %s: %s", e.Field, e.Reason) }

// Is reports whether target is ErrInvalidInput.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }

func inputErr(field, reason string) error { return &InputError{Field: field, Reason: reason} }
