package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// TaskState is the server's own bookkeeping for a task, which no platform answer carries
// (docs/contract.md, "Platform answers carry only platform members"): the queue clock, the
// offer deadline, the veto list and who turned the task down. Read it with Server.TaskState
// or GET /_mock/tasks/{id}; a program written against the platform cannot come to rely on it.
type TaskState struct {
	ID string `json:"id"`
	// QueuedAt is when the task first entered the queue; a requeue keeps it, so it orders
	// the queue (wire: epoch ms).
	QueuedAt time.Time `json:"-"`
	// OfferExpiresAt is when the current offer lapses under the server's clock; zero unless
	// the task is pending (wire: epoch ms or null).
	OfferExpiresAt time.Time `json:"-"`
	// VetoedWorkers is the veto list the task was created with.
	VetoedWorkers []string `json:"vetoedWorkers"`
	// RejectedBy lists the workers that rejected the task or let an offer of it expire, in order.
	RejectedBy []string `json:"rejectedBy"`
}

// MarshalJSON writes the times as epoch milliseconds, as the admin endpoint answers them.
func (t TaskState) MarshalJSON() ([]byte, error) {
	type plain TaskState
	return json.Marshal(struct {
		plain
		QueuedAt       int64  `json:"queuedAt"`
		OfferExpiresAt *int64 `json:"offerExpiresAt"`
	}{plain(t), t.QueuedAt.UnixMilli(), msOrNil(t.OfferExpiresAt)})
}

// WorkerState is the server's own bookkeeping for a worker, which no platform answer
// carries: when it was first upserted, when it was last offered a task (the matcher's
// tie-break) and its open break. Read it with Server.WorkerState or GET /_mock/workers/{id}.
type WorkerState struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"-"` // wire: epoch ms
	// LastMatchedAt is the last offer made to the worker; zero before the first (wire:
	// epoch ms or null).
	LastMatchedAt time.Time `json:"-"`
	OnBreak       bool      `json:"onBreak"`
	// BreakReason is the reason the open break was started with; "" without one.
	BreakReason string `json:"breakReason"`
}

// MarshalJSON writes the times as epoch milliseconds, as the admin endpoint answers them.
func (w WorkerState) MarshalJSON() ([]byte, error) {
	type plain WorkerState
	return json.Marshal(struct {
		plain
		CreatedAt     int64  `json:"createdAt"`
		LastMatchedAt *int64 `json:"lastMatchedAt"`
	}{plain(w), w.CreatedAt.UnixMilli(), msOrNil(w.LastMatchedAt)})
}

func msOrNil(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// TaskState reads the server's own bookkeeping for a task of its workspace (the one of
// APIKey). An unknown task is an error wrapping ErrTaskNotFound. It changes nothing.
func (s *Server) TaskState(taskID string) (TaskState, error) {
	ws := s.sandbox()
	ws.mu.Lock()
	defer ws.mu.Unlock()
	t, err := ws.engine.Task(taskID)
	if err != nil {
		return TaskState{}, fmt.Errorf("mockserver: task %q: %w", taskID, ErrTaskNotFound)
	}
	return taskState(t), nil
}

func taskState(t match.Task) TaskState {
	return TaskState{
		ID: t.ID, QueuedAt: t.QueuedAt, OfferExpiresAt: t.OfferExpiresAt,
		VetoedWorkers: orEmpty(t.VetoedWorkers), RejectedBy: orEmpty(t.RejectedBy),
	}
}

// WorkerState reads the server's own bookkeeping for a worker of its workspace. An unknown
// worker is an error wrapping ErrWorkerNotFound. It changes nothing.
func (s *Server) WorkerState(workerID string) (WorkerState, error) {
	ws := s.sandbox()
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w, err := ws.engine.Worker(workerID)
	if err != nil {
		return WorkerState{}, fmt.Errorf("mockserver: worker %q: %w", workerID, ErrWorkerNotFound)
	}
	out := WorkerState{ID: w.ID, CreatedAt: w.CreatedAt, LastMatchedAt: w.LastMatchedAt, OnBreak: w.OnBreak}
	if w.OnBreak {
		out.BreakReason = w.BreakReason
	}
	return out, nil
}

// ErrWorkerNotFound is wrapped by WorkerState for an unknown worker, for errors.Is.
var ErrWorkerNotFound = errors.New("no such worker")

// adminTaskState is GET /_mock/tasks/{id}: TaskState over HTTP, 404 for an unknown task.
func (s *Server) adminTaskState(taskID string) (any, *apiError) {
	t, err := s.TaskState(taskID)
	if err != nil {
		return nil, notFoundf("task %s not found", taskID)
	}
	return t, nil
}

// adminWorkerState is GET /_mock/workers/{id}: WorkerState over HTTP, 404 for an unknown
// worker.
func (s *Server) adminWorkerState(workerID string) (any, *apiError) {
	w, err := s.WorkerState(workerID)
	if err != nil {
		return nil, notFoundf("worker %s not found", workerID)
	}
	return w, nil
}

// adminItemID is the {id} of /_mock/{collection}/{id}{suffix}; for any other path a NUL,
// which no request path carries, so no case matches it.
func adminItemID(path, collection, suffix string) string {
	rest, ok := strings.CutPrefix(path, adminPrefix+collection+"/")
	if !ok {
		return "\x00"
	}
	id, ok := strings.CutSuffix(rest, suffix)
	if !ok || id == "" || strings.Contains(id, "/") {
		return "\x00"
	}
	return id
}
