package taskrouting

import (
	"context"
	"encoding/json"
	"iter"
	"net/url"
	"strconv"
	"time"
)

// TaskStatus is a task's state. The server may add states; unknown ones are
// kept as they come.
type TaskStatus string

// Task states. TaskStatusAll is only a ListTasksParams filter.
const (
	TaskStatusQueued    TaskStatus = "queued"
	TaskStatusPending   TaskStatus = "pending" // offered to one worker, not yet accepted
	TaskStatusAccepted  TaskStatus = "accepted"
	TaskStatusCompleted TaskStatus = "completed"
	TaskStatusCancelled TaskStatus = "cancelled"
	TaskStatusFailed    TaskStatus = "failed"
	TaskStatusExpired   TaskStatus = "expired"
	TaskStatusScheduled TaskStatus = "scheduled"
	TaskStatusAll       TaskStatus = "all"
)

// Escalation says what happens when an offered worker does not answer.
type Escalation struct {
	RespondWithin time.Duration // wire respondWithinMs, 1s to 24h
	OnNoResponse  string        // "allow" or "block"
}

type escalationWire struct {
	RespondWithinMs durationMillis `json:"respondWithinMs,omitempty"`
	OnNoResponse    string         `json:"onNoResponse,omitempty"`
}

// MarshalJSON writes the wire form (milliseconds).
func (e Escalation) MarshalJSON() ([]byte, error) {
	return json.Marshal(escalationWire{durationMillis(e.RespondWithin), e.OnNoResponse})
}

// UnmarshalJSON reads the wire form.
func (e *Escalation) UnmarshalJSON(b []byte) error {
	var w escalationWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Escalation{time.Duration(w.RespondWithinMs), w.OnNoResponse}
	return nil
}

// SLA bounds a task's life and its rejections.
type SLA struct {
	ExpireAfter     time.Duration // wire expireAfterMs
	MaxRejections   int           // 1-100
	OnMaxRejections string        // "park", "fail" or "keep"
}

type slaWire struct {
	ExpireAfterMs   durationMillis `json:"expireAfterMs,omitempty"`
	MaxRejections   int            `json:"maxRejections,omitempty"`
	OnMaxRejections string         `json:"onMaxRejections,omitempty"`
}

// MarshalJSON writes the wire form (milliseconds).
func (s SLA) MarshalJSON() ([]byte, error) {
	return json.Marshal(slaWire{durationMillis(s.ExpireAfter), s.MaxRejections, s.OnMaxRejections})
}

// UnmarshalJSON reads the wire form.
func (s *SLA) UnmarshalJSON(b []byte) error {
	var w slaWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = SLA{time.Duration(w.ExpireAfterMs), w.MaxRejections, w.OnMaxRejections}
	return nil
}

// Schedule limits when a task may be matched. A zero time is left out.
type Schedule struct {
	NotBefore time.Time
	NotAfter  time.Time
}

type scheduleWire struct {
	NotBefore epochMillis `json:"notBefore,omitzero"`
	NotAfter  epochMillis `json:"notAfter,omitzero"`
}

// MarshalJSON writes the wire form (epoch milliseconds).
func (s Schedule) MarshalJSON() ([]byte, error) {
	return json.Marshal(scheduleWire{msOf(s.NotBefore), msOf(s.NotAfter)})
}

// UnmarshalJSON reads the wire form.
func (s *Schedule) UnmarshalJSON(b []byte) error {
	var w scheduleWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = Schedule{w.NotBefore.t, w.NotAfter.t}
	return nil
}

// CreateTaskParams is the body of POST /tasks. Only Tags is required.
type CreateTaskParams struct {
	Tags            []string             `json:"tags"`
	ID              string               `json:"id,omitempty"`
	Priority        float64              `json:"priority,omitempty"` // higher is more urgent
	VetoedWorkers   []string             `json:"vetoedWorkers,omitempty"`
	SkillThresholds map[string]float64   `json:"skillThresholds,omitempty"`
	Meta            map[string]any       `json:"meta,omitempty"`
	Title           string               `json:"title,omitempty"`
	Description     string               `json:"description,omitempty"`
	Escalation      Nullable[Escalation] `json:"escalation,omitzero"`
	SLA             Nullable[SLA]        `json:"sla,omitzero"`
	Schedule        *Schedule            `json:"schedule,omitempty"`
}

// TaskRef is the short answer of the calls that change a task.
type TaskRef struct {
	ID     string     `json:"id"`
	Status TaskStatus `json:"status"`
}

// Task is a task as the server reports it.
type Task struct {
	ID              string             `json:"id"`
	Tags            []string           `json:"tags"`
	Priority        float64            `json:"priority"`
	Status          TaskStatus         `json:"status"`
	WorkerID        string             `json:"workerId"` // "" when null
	CreatedAt       time.Time          `json:"-"`        // wire createdAt, epoch ms
	Meta            map[string]any     `json:"meta"`
	Title           string             `json:"title,omitempty"`
	Description     string             `json:"description,omitempty"`
	VetoedWorkers   []string           `json:"vetoedWorkers,omitempty"`
	SkillThresholds map[string]float64 `json:"skillThresholds,omitempty"`
	Escalation      *Escalation        `json:"escalation,omitempty"` // nil when null or absent
	SLA             *SLA               `json:"sla,omitempty"`
	Schedule        *Schedule          `json:"schedule,omitempty"`
	// Raw is the task's JSON exactly as received, for fields this version
	// of the client does not model.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the wire form and keeps it in Raw.
func (t *Task) UnmarshalJSON(b []byte) error {
	type plain Task
	w := struct {
		*plain
		CreatedAt epochMillis `json:"createdAt"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	t.CreatedAt = w.CreatedAt.t
	t.Raw = cloneRaw(b)
	return nil
}

// MarshalJSON writes the wire form (createdAt in epoch ms).
func (t Task) MarshalJSON() ([]byte, error) {
	type plain Task
	return json.Marshal(struct {
		plain
		CreatedAt epochMillis `json:"createdAt"`
	}{plain(t), msOf(t.CreatedAt)})
}

// ListTasksParams filters GET /tasks. Zero fields are not sent.
type ListTasksParams struct {
	Status TaskStatus // queued, pending, accepted or all
	Cursor string     // from TaskPage.NextCursor
	Limit  int
}

// TaskPage is one page of GET /tasks.
type TaskPage struct {
	Tasks      []Task `json:"tasks"`
	NextCursor string `json:"nextCursor"` // "" when null
	HasMore    bool   `json:"hasMore"`
}

// AssignTaskParams is the body of POST /tasks/{id}/assign.
type AssignTaskParams struct {
	WorkerID string `json:"workerId"`
	// Force assigns even when the worker's backlog is full. It overrides
	// nothing else: vetoes, rejections and skills still apply.
	Force bool `json:"force,omitempty"`
}

// Assignment is the answer of POST /tasks/{id}/assign.
type Assignment struct {
	ID               string     `json:"id"`
	Status           TaskStatus `json:"status"`
	WorkerID         string     `json:"workerId"`
	PreviousWorkerID string     `json:"previousWorkerId"` // "" when null
}

// TaskPriority is the answer of PATCH /tasks/{id}.
type TaskPriority struct {
	ID       string  `json:"id"`
	Priority float64 `json:"priority"`
}

// SuggestWorkersParams is the body of POST /tasks/suggest-workers.
type SuggestWorkersParams struct {
	Tags          []string `json:"tags"`
	Priority      *float64 `json:"priority,omitempty"`
	VetoedWorkers []string `json:"vetoedWorkers,omitempty"`
	Limit         int      `json:"limit,omitempty"` // 1-100
}

// Suggestion is the answer of POST /tasks/suggest-workers: a dry run of the
// matcher that creates nothing.
type Suggestion struct {
	Tags     []string    `json:"tags"`
	Priority float64     `json:"priority"`
	Workers  []Candidate `json:"workers"`
}

// TasksService holds the task operations. Use it as Client.Tasks.
type TasksService struct{ c *Client }

// Create creates a task: POST /tasks. The answer is 202 with the new id.
func (s *TasksService) Create(ctx context.Context, p CreateTaskParams, opts ...RequestOption) (*TaskRef, error) {
	if len(p.Tags) == 0 {
		return nil, &ParamError{Param: "CreateTaskParams.Tags", Problem: "must not be empty"}
	}
	out := new(TaskRef)
	if err := s.c.call(ctx, "POST", "/tasks", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns a task: GET /tasks/{id}.
func (s *TasksService) Get(ctx context.Context, taskID string, opts ...RequestOption) (*Task, error) {
	if err := checkID("taskID", taskID); err != nil {
		return nil, err
	}
	out := new(Task)
	if err := s.c.call(ctx, "GET", escapePath("/tasks/", taskID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// ListPage returns one page of tasks: GET /tasks.
func (s *TasksService) ListPage(ctx context.Context, p ListTasksParams, opts ...RequestOption) (*TaskPage, error) {
	if p.Limit < 0 {
		return nil, &ParamError{Param: "ListTasksParams.Limit", Problem: "must not be negative"}
	}
	q := url.Values{}
	if p.Status != "" {
		q.Set("status", string(p.Status))
	}
	if p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	out := new(TaskPage)
	if err := s.c.call(ctx, "GET", "/tasks", q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// List iterates over every task matching p: GET /tasks, following
// nextCursor until hasMore is false. An error is yielded once and ends the
// iteration; a cursor seen before ends it with ErrCursorRepeated rather
// than looping forever.
func (s *TasksService) List(ctx context.Context, p ListTasksParams, opts ...RequestOption) iter.Seq2[Task, error] {
	return func(yield func(Task, error) bool) {
		// A copy, so that ranging over the sequence again starts from the
		// caller's cursor, not from where the last pass ended.
		p := p
		// The caller's starting cursor counts as followed: a page pointing back to it
		// would otherwise be fetched and yielded twice.
		seen := map[string]bool{p.Cursor: p.Cursor != ""}
		for {
			page, err := s.ListPage(ctx, p, opts...)
			if err != nil {
				yield(Task{}, err)
				return
			}
			for _, t := range page.Tasks {
				if !yield(t, nil) {
					return
				}
			}
			if !page.HasMore || page.NextCursor == "" {
				return
			}
			if seen[page.NextCursor] {
				yield(Task{}, ErrCursorRepeated)
				return
			}
			seen[page.NextCursor] = true
			p.Cursor = page.NextCursor
		}
	}
}

// Cancel cancels a task that is not finished: DELETE /tasks/{id}.
func (s *TasksService) Cancel(ctx context.Context, taskID string, opts ...RequestOption) error {
	if err := checkID("taskID", taskID); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/tasks/", taskID), nil, nil, nil, opts)
}

// Assign offers a task to a chosen worker: POST /tasks/{id}/assign.
// The worker must be eligible for the task except for capacity: a vetoed,
// rejecting, unavailable or unqualified worker is ErrInvalidState. Without
// Force a full backlog is ErrBacklogFull; Force lets the offer exceed it.
func (s *TasksService) Assign(ctx context.Context, taskID string, p AssignTaskParams, opts ...RequestOption) (*Assignment, error) {
	if err := checkID("taskID", taskID); err != nil {
		return nil, err
	}
	if err := checkID("AssignTaskParams.WorkerID", p.WorkerID); err != nil {
		return nil, err
	}
	out := new(Assignment)
	if err := s.c.call(ctx, "POST", escapePath("/tasks/", taskID, "/assign"), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SetPriority changes a task's priority: PATCH /tasks/{id}.
func (s *TasksService) SetPriority(ctx context.Context, taskID string, priority float64, opts ...RequestOption) (*TaskPriority, error) {
	if err := checkID("taskID", taskID); err != nil {
		return nil, err
	}
	// Not omitempty: priority 0 is a real value here.
	in := struct {
		Priority float64 `json:"priority"`
	}{priority}
	out := new(TaskPriority)
	if err := s.c.call(ctx, "PATCH", escapePath("/tasks/", taskID), nil, in, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SuggestWorkers ranks the workers a task with p's tags would go to, without
// creating anything: POST /tasks/suggest-workers.
func (s *TasksService) SuggestWorkers(ctx context.Context, p SuggestWorkersParams, opts ...RequestOption) (*Suggestion, error) {
	if len(p.Tags) == 0 {
		return nil, &ParamError{Param: "SuggestWorkersParams.Tags", Problem: "must not be empty"}
	}
	out := new(Suggestion)
	if err := s.c.call(ctx, "POST", "/tasks/suggest-workers", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
