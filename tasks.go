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
	CreatedAt       time.Time          `json:"-"`        // wire createdAt, epoch ms (ISO-8601 also read)
	Meta            map[string]any     `json:"meta"`
	Title           string             `json:"title,omitempty"`
	Description     string             `json:"description,omitempty"` // worker-plane task detail
	Context         map[string]any     `json:"context,omitempty"`     // worker-plane task detail
	References      []TaskReference    `json:"references,omitempty"`  // worker-plane task detail
	SkillThresholds map[string]float64 `json:"skillThresholds,omitempty"`
	Escalation      *Escalation        `json:"escalation,omitempty"` // nil when null or absent
	// EscalationLevel is how many escalation steps the task has taken.
	EscalationLevel int  `json:"escalationLevel,omitempty"`
	SLA             *SLA `json:"sla,omitempty"`
	// AcceptedAt is when the holder accepted the task (wire acceptedAt,
	// epoch ms); zero when not accepted or not recorded. Single-task reads.
	AcceptedAt    time.Time `json:"-"`
	Schedule      *Schedule `json:"schedule,omitempty"`
	Slot          *TimeSlot `json:"slot,omitempty"` // when the work is performed; nil when null or absent
	Latitude      *float64  `json:"latitude,omitempty"`
	Longitude     *float64  `json:"longitude,omitempty"`
	MaxDistanceKm *float64  `json:"maxDistanceKm,omitempty"`
	RequireGeo    bool      `json:"requireGeo,omitempty"`
	AllowedCIDRs  []string  `json:"allowedCidrs,omitempty"`
	// Booking is the worker reserved for the slot (single-task reads); nil when none.
	Booking *SlotBooking `json:"booking,omitempty"`
	// Result is what the worker completed the task with (Complete's
	// result); nil before completion or when none was given.
	Result map[string]any `json:"result,omitempty"`
	// Archived is true once the platform has moved the finished task to its
	// archive (tasks.history).
	Archived bool `json:"archived,omitempty"`
	// Data summarises the task's rich data (context, references,
	// attachments, comments); nil when the server sends none.
	Data *TaskDataSummary `json:"data,omitempty"`
	// WorkflowRunID and WorkflowStepID name the workflow run and step that
	// created the task; "" for a task created directly.
	WorkflowRunID  string `json:"workflowRunId,omitempty"`
	WorkflowStepID string `json:"workflowStepId,omitempty"`

	// Raw is the task's JSON, for the members this version of the client
	// does not model. When the task is a call's whole answer (Tasks.Get,
	// WorkerClient.Task) it is the response body exactly as received;
	// elsewhere (in a list, or decoded with json.Unmarshal) it is the
	// object's own bytes, without the whitespace around it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the wire form and keeps it in Raw.
func (t *Task) UnmarshalJSON(b []byte) error {
	type plain Task
	w := struct {
		*plain
		CreatedAt  wireTime `json:"createdAt"`
		AcceptedAt wireTime `json:"acceptedAt"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	t.CreatedAt, t.AcceptedAt = w.CreatedAt.t, w.AcceptedAt.t
	t.Raw = cloneRaw(b)
	return nil
}

// MarshalJSON writes the wire form (createdAt and acceptedAt in epoch ms).
func (t Task) MarshalJSON() ([]byte, error) {
	type plain Task
	return json.Marshal(struct {
		plain
		CreatedAt  wireTime `json:"createdAt"`
		AcceptedAt wireTime `json:"acceptedAt,omitzero"`
	}{plain(t), msOf(t.CreatedAt), msOf(t.AcceptedAt)})
}

// ListTasksParams filters GET /tasks. Zero fields are not sent.
type ListTasksParams struct {
	Status TaskStatus // queued, pending, accepted or all
	Cursor string     // from TaskPage.NextCursor; at most 512 characters
	Limit  int        // 1-100; 0 leaves the server's default
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
	// Force overrides every check the platform makes on an assignment: a
	// paused worker, a full backlog, a veto and an earlier rejection of the
	// task. The worker must still exist (ErrNotFound).
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

// UpdateTaskParams is the body of PATCH /tasks/{id} for Update. A field
// left at its zero value is not sent and keeps its value; Null clears one
// that can be cleared. The limits are those of CreateTaskParams.
type UpdateTaskParams struct {
	// Tags replaces the task's tags (1-32). Eligibility follows them: a
	// task whose holder no longer carries every tag is taken back.
	Tags        []string                        `json:"tags,omitzero"`
	Priority    *float64                        `json:"priority,omitempty"`
	Title       Nullable[string]                `json:"title,omitzero"`
	Description Nullable[string]                `json:"description,omitzero"`
	Context     Nullable[map[string]any]        `json:"context,omitzero"`
	References  Nullable[[]TaskReferenceParams] `json:"references,omitzero"`
	Meta        Nullable[map[string]any]        `json:"meta,omitzero"`
}

// validate holds the fields to the platform's limits (tasks.update).
func (p UpdateTaskParams) validate() error {
	const in = "UpdateTaskParams"
	if p.Tags == nil && p.Priority == nil && p.Title.IsZero() && p.Description.IsZero() &&
		p.Context.IsZero() && p.References.IsZero() && p.Meta.IsZero() {
		return &ParamError{Param: in, Problem: "must set at least one field"}
	}
	var errs []error
	if p.Tags != nil {
		errs = append(errs, checkStrings(in+".Tags", p.Tags, 1, 32, 1, 64))
	}
	if title, ok := p.Title.Get(); ok {
		errs = append(errs, checkLen(in+".Title", title, 1, 300))
	}
	if desc, ok := p.Description.Get(); ok {
		errs = append(errs, checkLen(in+".Description", desc, 1, 10000))
	}
	if refs, ok := p.References.Get(); ok {
		errs = append(errs, checkReferences(in, refs))
	}
	return firstError(errs...)
}

// TaskUpdate is the answer of PATCH /tasks/{id} for Update.
type TaskUpdate struct {
	ID       string     `json:"id"`
	Status   TaskStatus `json:"status"`
	Tags     []string   `json:"tags"`
	Priority *float64   `json:"priority"` // nil when the task has none
	// Requeued is true when new tags no longer reached the worker holding
	// the task, so it was taken back and queued again; PreviousWorkerID
	// names that worker.
	Requeued         bool   `json:"requeued"`
	PreviousWorkerID string `json:"previousWorkerId,omitempty"`
}

// SuggestWorkersParams is the body of POST /tasks/suggest-workers. The
// fields mean what they mean in CreateTaskParams.
type SuggestWorkersParams struct {
	Tags           []string        `json:"tags"` // 1-32, each 1-64 characters
	Priority       *float64        `json:"priority,omitempty"`
	RequiredSkills []RequiredSkill `json:"requiredSkills,omitempty"`
	VetoedWorkers  []string        `json:"vetoedWorkers,omitempty"`
	Limit          int             `json:"limit,omitempty"` // 1-100
	Latitude       *float64        `json:"latitude,omitempty"`
	Longitude      *float64        `json:"longitude,omitempty"`
	MaxDistanceKm  *float64        `json:"maxDistanceKm,omitempty"`
	RequireGeo     bool            `json:"requireGeo,omitempty"`
	AllowedCIDRs   []string        `json:"allowedCidrs,omitempty"`
}

// validate holds the fields to the platform's limits (tasks.suggestWorkers).
func (p SuggestWorkersParams) validate() error {
	const in = "SuggestWorkersParams"
	if p.Limit != 0 {
		if err := checkRange(in+".Limit", float64(p.Limit), 1, 100); err != nil {
			return err
		}
	}
	return firstError(
		checkStrings(in+".Tags", p.Tags, 1, 32, 1, 64),
		checkRequiredSkills(in, p.RequiredSkills),
		checkStrings(in+".VetoedWorkers", p.VetoedWorkers, 0, 64, 0, 128),
		checkGeo(in, p.Latitude, p.Longitude, p.MaxDistanceKm, "MaxDistanceKm"),
		checkStrings(in+".AllowedCIDRs", p.AllowedCIDRs, 0, 32, 0, 64),
	)
}

// Suggestion is the answer of POST /tasks/suggest-workers: a dry run of the
// matcher that creates nothing.
type Suggestion struct {
	Tags     []string    `json:"tags"`
	Priority float64     `json:"priority"`
	Workers  []Candidate `json:"workers"`
}

// TasksService holds the task operations. Use it as Client.Tasks.
type TasksService struct {
	c           *Client
	Attachments *AttachmentsService  // tasks.attachments.*: files on a task
	Context     *TaskContextService  // tasks.context.*: a task's rich data
	Comments    *TaskCommentsService // tasks.comments.*
	Booking     *BookingService      // tasks.booking.*: reserving a worker for a slot
	Recurring   *RecurringService    // tasks.recurring.*: recurring templates
}

// Create creates a task. The answer is 202 with the new id.
//
// API: tasks.create, POST /tasks
func (s *TasksService) Create(ctx context.Context, p CreateTaskParams, opts ...RequestOption) (*TaskRef, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(TaskRef)
	if err := s.c.call(ctx, "POST", "/tasks", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns a task.
//
// API: tasks.get, GET /tasks/{id}
func (s *TasksService) Get(ctx context.Context, taskID string, opts ...RequestOption) (*Task, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	out := new(Task)
	if err := s.c.call(ctx, "GET", escapePath("/tasks/", taskID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// ListPage returns one page of tasks.
//
// API: tasks.list, GET /tasks
func (s *TasksService) ListPage(ctx context.Context, p ListTasksParams, opts ...RequestOption) (*TaskPage, error) {
	if p.Limit < 0 {
		return nil, &ParamError{Param: "ListTasksParams.Limit", Problem: "must not be negative"}
	}
	if err := s.c.admit(firstError(
		checkOneOf("ListTasksParams.Status", string(p.Status), "queued", "pending", "accepted", "all"),
		checkLen("ListTasksParams.Cursor", p.Cursor, 0, 512),
		checkRange("ListTasksParams.Limit", float64(p.Limit), 0, 100),
	), opts); err != nil {
		return nil, err
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

// List iterates over every task matching p, following
// nextCursor until hasMore is false. An error is yielded once and ends the
// iteration; a cursor seen before ends it with ErrCursorRepeated rather
// than looping forever.
//
// API: tasks.list, GET /tasks
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

// Cancel cancels a task that is not finished.
//
// API: tasks.cancel, DELETE /tasks/{id}
func (s *TasksService) Cancel(ctx context.Context, taskID string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/tasks/", taskID), nil, nil, nil, opts)
}

// Assign offers a task to a chosen worker, the operator's override of
// matching: the worker need not carry the task's tags or skills. Without
// Force a paused worker, a veto or an earlier rejection is ErrInvalidState
// and a full backlog is ErrBacklogFull; Force overrides all four.
//
// API: tasks.assign, POST /tasks/{id}/assign
func (s *TasksService) Assign(ctx context.Context, taskID string, p AssignTaskParams, opts ...RequestOption) (*Assignment, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	if err := s.c.admit(firstError(checkID("AssignTaskParams.WorkerID", p.WorkerID), checkLen("AssignTaskParams.WorkerID", p.WorkerID, 1, 128)), opts); err != nil {
		return nil, err
	}
	out := new(Assignment)
	if err := s.c.call(ctx, "POST", escapePath("/tasks/", taskID, "/assign"), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SetPriority changes a task's priority.
//
// API: tasks.setPriority, PATCH /tasks/{id}
func (s *TasksService) SetPriority(ctx context.Context, taskID string, priority float64, opts ...RequestOption) (*TaskPriority, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
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

// Update edits a live task: its tags, priority, title, description,
// context, references or meta. Check TaskUpdate.Requeued after a change of
// tags: the worker holding the task may have lost it.
//
// API: tasks.update, PATCH /tasks/{id}
func (s *TasksService) Update(ctx context.Context, taskID string, p UpdateTaskParams, opts ...RequestOption) (*TaskUpdate, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(TaskUpdate)
	if err := s.c.call(ctx, "PATCH", escapePath("/tasks/", taskID), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SuggestWorkers ranks the workers a task with p's tags would go to, without
// creating anything.
//
// API: tasks.suggestWorkers, POST /tasks/suggest-workers
func (s *TasksService) SuggestWorkers(ctx context.Context, p SuggestWorkersParams, opts ...RequestOption) (*Suggestion, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(Suggestion)
	if err := s.c.call(ctx, "POST", "/tasks/suggest-workers", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
