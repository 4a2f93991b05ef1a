package taskrouting

import (
	"context"
	"encoding/json"
	"time"
)

// TaskContext is a task's rich data: what a worker needs to do the task
// beyond its tags (TaskContext in api/openapi.json).
type TaskContext struct {
	TaskID      string          `json:"taskId"`
	Title       string          `json:"title"`       // "" when null
	Description string          `json:"description"` // "" when null
	Context     map[string]any  `json:"context"`     // nil when null
	References  []TaskReference `json:"references"`
	// CreatedAt and UpdatedAt (wire epoch ms) are when the data was first
	// and last set; zero when the server reports null.
	CreatedAt time.Time `json:"-"`
	UpdatedAt time.Time `json:"-"`
}

// UnmarshalJSON decodes the wire form, whose times are epoch ms or null.
func (c *TaskContext) UnmarshalJSON(b []byte) error {
	type plain TaskContext
	w := struct {
		*plain
		CreatedAt wireTime `json:"createdAt"`
		UpdatedAt wireTime `json:"updatedAt"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c.CreatedAt, c.UpdatedAt = w.CreatedAt.t, w.UpdatedAt.t
	return nil
}

// SetTaskContextParams replaces a task's rich data as a whole: a field
// left at its zero value is cleared, not kept.
type SetTaskContextParams struct {
	Title       string                `json:"title,omitempty"`       // at most 300 characters
	Description string                `json:"description,omitempty"` // at most 10000 characters
	Context     map[string]any        `json:"context,omitempty"`
	References  []TaskReferenceParams `json:"references,omitempty"` // at most 100
}

// validate holds the fields to the platform's limits (tasks.context.set).
func (p SetTaskContextParams) validate() error {
	const in = "SetTaskContextParams"
	return firstError(
		checkLen(in+".Title", p.Title, 0, 300),
		checkLen(in+".Description", p.Description, 0, 10000),
		checkReferences(in, p.References),
	)
}

// TaskContextService reads and writes a task's rich data (tasks.context.*).
// Reach it as Client.Tasks.Context.
type TaskContextService struct{ c *Client }

// Get returns a task's rich data.
//
// API: tasks.context.get, GET /tasks/{id}/context
func (s *TaskContextService) Get(ctx context.Context, taskID string, opts ...RequestOption) (*TaskContext, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	out := new(TaskContext)
	if err := s.c.call(ctx, "GET", escapePath("/tasks/", taskID, "/context"), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Set replaces a task's rich data and returns what the server stored.
//
// API: tasks.context.set, PUT /tasks/{id}/context
func (s *TaskContextService) Set(ctx context.Context, taskID string, p SetTaskContextParams, opts ...RequestOption) (*TaskContext, error) {
	if err := s.c.admit(firstError(checkID("taskID", taskID), p.validate()), opts); err != nil {
		return nil, err
	}
	out := new(TaskContext)
	if err := s.c.call(ctx, "PUT", escapePath("/tasks/", taskID, "/context"), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Clear removes a task's rich data; the task itself stays.
//
// API: tasks.context.clear, DELETE /tasks/{id}/context
func (s *TaskContextService) Clear(ctx context.Context, taskID string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/tasks/", taskID, "/context"), nil, nil, nil, opts)
}
