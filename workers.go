package taskrouting

import (
	"context"
	"encoding/json"
)

// UpsertWorkerParams is the body of POST /workers. Every field is optional;
// with no ID the server makes one. Nil fields are left out; an empty but
// non-nil slice or map is sent and replaces what the worker had.
type UpsertWorkerParams struct {
	ID   string   `json:"id,omitempty"`
	Tags []string `json:"tags,omitzero"`
	// RoutingWeights maps a tag or a "prefix*" pattern to the worker's
	// proficiency (>= 0). A weight of 0 is a hard veto of that tag.
	RoutingWeights map[string]float64 `json:"routingWeights,omitzero"`
	// MaxBacklogSize caps pending offers; nil is the workspace default and
	// Ptr(0) means the worker receives nothing.
	MaxBacklogSize *int `json:"maxBacklogSize,omitempty"`
	// Available: a new worker is created unavailable unless Ptr(true); nil
	// on an existing worker leaves it as it is.
	Available *bool          `json:"available,omitempty"`
	Meta      map[string]any `json:"meta,omitzero"`
}

// PatchWorkerParams is the body of PATCH /workers/{id}: nil fields keep
// their value, set fields replace it.
type PatchWorkerParams struct {
	Tags           []string           `json:"tags,omitzero"`
	RoutingWeights map[string]float64 `json:"routingWeights,omitzero"`
	MaxBacklogSize *int               `json:"maxBacklogSize,omitempty"`
	Available      *bool              `json:"available,omitempty"`
	Meta           map[string]any     `json:"meta,omitzero"`
}

// WorkerRef is the answer of POST /workers and PATCH /workers/{id}.
type WorkerRef struct {
	ID string `json:"id"`
}

// WorkerDetail is a worker as the server reports it.
type WorkerDetail struct {
	ID             string             `json:"id"`
	Tags           []string           `json:"tags"`
	RoutingWeights map[string]float64 `json:"routingWeights"`
	MaxBacklogSize *int               `json:"maxBacklogSize"` // nil: workspace default
	Available      bool               `json:"available"`
	// OnBreak is true while the worker has a break open (WorkerClient.StartBreak): it gets
	// no new offers and keeps those it holds.
	OnBreak    bool           `json:"onBreak"`
	QueueDepth int            `json:"queueDepth"` // pending offers held
	Meta       map[string]any `json:"meta,omitempty"`
	// Raw is the worker's JSON exactly as received, for fields this version
	// of the client does not model.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the wire form and keeps it in Raw.
func (w *WorkerDetail) UnmarshalJSON(b []byte) error {
	type plain WorkerDetail
	if err := json.Unmarshal(b, (*plain)(w)); err != nil {
		return err
	}
	w.Raw = cloneRaw(b)
	return nil
}

// WorkerList is the answer of GET /workers.
type WorkerList struct {
	Workers []string `json:"workers"` // ids
	Count   int      `json:"count"`
}

// SetAvailabilityParams is the body of POST /workers/{id}/availability.
type SetAvailabilityParams struct {
	Available bool `json:"available"`
	// ReleaseBacklog requeues the worker's pending offers; only with
	// Available false, and only sent when true.
	ReleaseBacklog bool `json:"releaseBacklog,omitempty"`
}

// Availability is the answer of POST /workers/{id}/availability.
type Availability struct {
	ID              string   `json:"id"`
	Available       bool     `json:"available"`
	ReleasedTaskIDs []string `json:"releasedTaskIds,omitempty"`
}

// WorkerQueue is the answer of GET /workers/{id}/queue: the tasks offered to
// the worker and not yet accepted.
type WorkerQueue struct {
	WorkerID string   `json:"workerId"`
	TaskIDs  []string `json:"taskIds"`
}

// WorkersService holds the worker operations. Use it as Client.Workers.
type WorkersService struct{ c *Client }

// Upsert creates a worker, or updates one that exists: POST /workers.
// On an update, fields left out (nil) keep their value. A new worker is
// created unavailable unless Available is set to true.
func (s *WorkersService) Upsert(ctx context.Context, p UpsertWorkerParams, opts ...RequestOption) (*WorkerRef, error) {
	if p.ID == "." || p.ID == ".." {
		return nil, checkID("UpsertWorkerParams.ID", p.ID)
	}
	out := new(WorkerRef)
	if err := s.c.call(ctx, "POST", "/workers", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Patch changes some of a worker's fields: PATCH /workers/{id}.
func (s *WorkersService) Patch(ctx context.Context, workerID string, p PatchWorkerParams, opts ...RequestOption) (*WorkerRef, error) {
	if err := checkID("workerID", workerID); err != nil {
		return nil, err
	}
	out := new(WorkerRef)
	if err := s.c.call(ctx, "PATCH", escapePath("/workers/", workerID), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns a worker: GET /workers/{id}.
func (s *WorkersService) Get(ctx context.Context, workerID string, opts ...RequestOption) (*WorkerDetail, error) {
	if err := checkID("workerID", workerID); err != nil {
		return nil, err
	}
	out := new(WorkerDetail)
	if err := s.c.call(ctx, "GET", escapePath("/workers/", workerID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// List returns the ids of all workers: GET /workers.
func (s *WorkersService) List(ctx context.Context, opts ...RequestOption) (*WorkerList, error) {
	out := new(WorkerList)
	if err := s.c.call(ctx, "GET", "/workers", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SetAvailability turns a worker on or off: POST /workers/{id}/availability.
func (s *WorkersService) SetAvailability(ctx context.Context, workerID string, p SetAvailabilityParams, opts ...RequestOption) (*Availability, error) {
	if err := checkID("workerID", workerID); err != nil {
		return nil, err
	}
	if p.Available && p.ReleaseBacklog {
		return nil, &ParamError{Param: "SetAvailabilityParams.ReleaseBacklog", Problem: "only applies when Available is false"}
	}
	out := new(Availability)
	if err := s.c.call(ctx, "POST", escapePath("/workers/", workerID, "/availability"), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Queue returns the tasks offered to a worker and not yet accepted:
// GET /workers/{id}/queue.
func (s *WorkersService) Queue(ctx context.Context, workerID string, opts ...RequestOption) (*WorkerQueue, error) {
	if err := checkID("workerID", workerID); err != nil {
		return nil, err
	}
	out := new(WorkerQueue)
	if err := s.c.call(ctx, "GET", escapePath("/workers/", workerID, "/queue"), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Remove deletes a worker: DELETE /workers/{id}.
func (s *WorkersService) Remove(ctx context.Context, workerID string, opts ...RequestOption) error {
	if err := checkID("workerID", workerID); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/workers/", workerID), nil, nil, nil, opts)
}
