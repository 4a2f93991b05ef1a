package taskrouting

import (
	"encoding/json"
	"strconv"
	"time"
)

// CodeInvalidWorkflow is the code of a 400 answering Workflows.Save when
// the definition's graph cannot run.
const CodeInvalidWorkflow = "invalid_workflow"

// WorkflowSummary is one entry of Workflows.List: a definition's id and name.
type WorkflowSummary struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Workflow is a saved workflow definition: a graph of steps a run walks
// from InitialStepID (WorkflowDefinition in api/openapi.json).
type Workflow struct {
	ID             string
	Name           string
	Version        int64
	InitialStepID  string
	Steps          []WorkflowStep
	DefaultTimeout time.Duration  // wire defaultTimeoutMs; 0 when null
	Metadata       map[string]any // nil when null
}

// UnmarshalJSON reads the wire form, whose timeout is in milliseconds.
func (w *Workflow) UnmarshalJSON(b []byte) error {
	var in struct {
		ID               string         `json:"id"`
		Name             string         `json:"name"`
		Version          int64          `json:"version"`
		InitialStepID    string         `json:"initialStepId"`
		Steps            []WorkflowStep `json:"steps"`
		DefaultTimeoutMs *int64         `json:"defaultTimeoutMs"`
		Metadata         map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*w = Workflow{ID: in.ID, Name: in.Name, Version: in.Version, InitialStepID: in.InitialStepID,
		Steps: in.Steps, Metadata: in.Metadata}
	if in.DefaultTimeoutMs != nil {
		w.DefaultTimeout = time.Duration(*in.DefaultTimeoutMs) * time.Millisecond
	}
	return nil
}

// WorkflowStep is one node of a workflow graph. TaskType says what runs
// it: "assignment" (a task routed to a worker, built from
// AssignmentTemplate; the default), "machine" (a handler the platform
// runs, named in MachineTask) or "external" (a callback: the caller ends
// it with Runs.CompleteStep or Runs.FailStep).
//
// After a completed step the run goes to the first Routing entry whose
// condition holds, else to DefaultNextStepID; with neither, or with
// EndWorkflow, the run is completed.
type WorkflowStep struct {
	ID                 string
	Name               string
	TaskType           string         // "assignment", "machine" or "external"; "" is not sent
	AssignmentTemplate map[string]any // the task to create, e.g. {"tags": ["english"]}
	TargetUser         any            // "initiator", "previous", a worker id or {"tag": ...}
	MachineTask        map[string]any // e.g. {"handler": "score"}
	External           map[string]any // e.g. {"name": "compliance"}
	Routing            []WorkflowRoute
	DefaultNextStepID  string
	EndWorkflow        bool // send defaultNextStepId: null, which ends the run after this step
	ParallelStepIDs    []string
	WaitForAll         *bool
	FailurePolicy      string        // "abort" (the default), "continue" or "retry"
	MaxRetries         *int          // with FailurePolicy "retry"
	Timeout            time.Duration // wire timeoutMs; 0 is not sent
}

// WorkflowRoute is a branch rule: when Condition holds for the step's
// result, the run goes to TargetStepID. The first rule that holds wins.
type WorkflowRoute struct {
	Condition    string `json:"condition"` // e.g. "result.ok" or "result.amount == 3"
	TargetStepID string `json:"targetStepId"`
}

type wireWorkflowStep struct {
	ID                 string          `json:"id"`
	Name               string          `json:"name"`
	TaskType           string          `json:"taskType,omitempty"`
	AssignmentTemplate map[string]any  `json:"assignmentTemplate,omitempty"`
	TargetUser         any             `json:"targetUser,omitempty"`
	MachineTask        map[string]any  `json:"machineTask,omitempty"`
	External           map[string]any  `json:"external,omitempty"`
	Routing            []WorkflowRoute `json:"routing,omitempty"`
	DefaultNextStepID  json.RawMessage `json:"defaultNextStepId,omitempty"`
	ParallelStepIDs    []string        `json:"parallelStepIds,omitempty"`
	WaitForAll         *bool           `json:"waitForAll,omitempty"`
	FailurePolicy      string          `json:"failurePolicy,omitempty"`
	MaxRetries         *int            `json:"maxRetries,omitempty"`
	TimeoutMs          *int64          `json:"timeoutMs,omitempty"`
}

// MarshalJSON writes the wire form: the timeout in milliseconds and
// EndWorkflow as an explicit null next step.
func (s WorkflowStep) MarshalJSON() ([]byte, error) {
	w := wireWorkflowStep{ID: s.ID, Name: s.Name, TaskType: s.TaskType, AssignmentTemplate: s.AssignmentTemplate,
		TargetUser: s.TargetUser, MachineTask: s.MachineTask, External: s.External, Routing: s.Routing,
		ParallelStepIDs: s.ParallelStepIDs, WaitForAll: s.WaitForAll, FailurePolicy: s.FailurePolicy, MaxRetries: s.MaxRetries}
	switch {
	case s.EndWorkflow:
		w.DefaultNextStepID = json.RawMessage("null")
	case s.DefaultNextStepID != "":
		w.DefaultNextStepID, _ = json.Marshal(s.DefaultNextStepID)
	}
	if s.Timeout != 0 {
		ms := s.Timeout.Milliseconds()
		w.TimeoutMs = &ms
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the wire form; a null defaultNextStepId sets EndWorkflow.
func (s *WorkflowStep) UnmarshalJSON(b []byte) error {
	var w wireWorkflowStep
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = WorkflowStep{ID: w.ID, Name: w.Name, TaskType: w.TaskType, AssignmentTemplate: w.AssignmentTemplate,
		TargetUser: w.TargetUser, MachineTask: w.MachineTask, External: w.External, Routing: w.Routing,
		ParallelStepIDs: w.ParallelStepIDs, WaitForAll: w.WaitForAll, FailurePolicy: w.FailurePolicy, MaxRetries: w.MaxRetries}
	if string(w.DefaultNextStepID) == "null" {
		s.EndWorkflow = true
	} else if len(w.DefaultNextStepID) > 0 {
		if err := json.Unmarshal(w.DefaultNextStepID, &s.DefaultNextStepID); err != nil {
			return err
		}
	}
	if w.TimeoutMs != nil {
		s.Timeout = time.Duration(*w.TimeoutMs) * time.Millisecond
	}
	return nil
}

// SaveWorkflowParams is a whole definition for Workflows.Save; the id
// comes from the call, never the body.
type SaveWorkflowParams struct {
	Name           string         // 1-200 characters
	Steps          []WorkflowStep // 1-200
	Version        int64          // 0 is not sent
	InitialStepID  string         // "" is not sent: the first step
	DefaultTimeout time.Duration  // 0 is not sent
	Metadata       map[string]any
}

// MarshalJSON writes the wire form.
func (p SaveWorkflowParams) MarshalJSON() ([]byte, error) {
	w := struct {
		Name             string         `json:"name"`
		Version          int64          `json:"version,omitempty"`
		InitialStepID    string         `json:"initialStepId,omitempty"`
		Steps            []WorkflowStep `json:"steps"`
		DefaultTimeoutMs int64          `json:"defaultTimeoutMs,omitempty"`
		Metadata         map[string]any `json:"metadata,omitempty"`
	}{p.Name, p.Version, p.InitialStepID, p.Steps, p.DefaultTimeout.Milliseconds(), p.Metadata}
	return json.Marshal(w)
}

func (p SaveWorkflowParams) validate() error {
	if err := checkLen("SaveWorkflowParams.Name", p.Name, 1, 200); err != nil {
		return err
	}
	if err := checkCount("SaveWorkflowParams.Steps", len(p.Steps), 1, 200); err != nil {
		return err
	}
	if err := checkLen("SaveWorkflowParams.InitialStepID", p.InitialStepID, 0, 128); err != nil {
		return err
	}
	if p.DefaultTimeout < 0 {
		return &ParamError{Param: "SaveWorkflowParams.DefaultTimeout", Problem: "must not be negative"}
	}
	for i, s := range p.Steps {
		at := "SaveWorkflowParams.Steps[" + strconv.Itoa(i) + "]"
		if err := firstError(checkLen(at+".ID", s.ID, 1, 128), checkLen(at+".Name", s.Name, 1, 200)); err != nil {
			return err
		}
		switch s.TaskType {
		case "", "assignment", "machine", "external":
		default:
			return &ParamError{Param: at + ".TaskType", Problem: `must be "assignment", "machine" or "external"`}
		}
		if s.Timeout < 0 {
			return &ParamError{Param: at + ".Timeout", Problem: "must not be negative"}
		}
	}
	return nil
}

// WorkflowRun is one run of a workflow (WorkflowRun in api/openapi.json).
// Status is "active", "completed", "failed" or "cancelled"; keep unknown
// statuses as they come.
type WorkflowRun struct {
	ID                string
	WorkflowID        string
	Status            string
	InitiatorWorkerID string
	DefinitionVersion int64
	CreatedAt         time.Time
	UpdatedAt         time.Time
	CurrentStepID     string // "" when the run waits on no step
	CurrentTaskID     string // the task of the current assignment step
	Context           map[string]any
	History           []WorkflowRunHistoryEntry // the steps completed, in order
	ParallelBranches  []WorkflowParallelBranch  // nil when null
}

// WorkflowRunHistoryEntry is one completed step of a run.
type WorkflowRunHistoryEntry struct {
	StepID      string
	TaskID      string
	WorkerID    string
	CompletedAt time.Time
	Result      map[string]any // nil when null
}

// WorkflowParallelBranch is one branch of a parallel step.
type WorkflowParallelBranch struct {
	StepID       string         `json:"stepId"`
	AssignmentID string         `json:"assignmentId"`
	Status       string         `json:"status"`
	Result       map[string]any `json:"result"`
}

// UnmarshalJSON reads the wire form, whose times are epoch milliseconds.
func (r *WorkflowRun) UnmarshalJSON(b []byte) error {
	var w struct {
		ID                string                   `json:"id"`
		WorkflowID        string                   `json:"workflowId"`
		Status            string                   `json:"status"`
		InitiatorWorkerID string                   `json:"initiatorWorkerId"`
		DefinitionVersion int64                    `json:"definitionVersion"`
		CreatedAt         wireTime                 `json:"createdAt"`
		UpdatedAt         wireTime                 `json:"updatedAt"`
		CurrentStepID     *string                  `json:"currentStepId"`
		CurrentTaskID     *string                  `json:"currentTaskId"`
		Context           map[string]any           `json:"context"`
		ParallelBranches  []WorkflowParallelBranch `json:"parallelBranches"`
		History           []struct {
			StepID      string         `json:"stepId"`
			TaskID      string         `json:"taskId"`
			WorkerID    string         `json:"workerId"`
			CompletedAt wireTime       `json:"completedAt"`
			Result      map[string]any `json:"result"`
		} `json:"history"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = WorkflowRun{ID: w.ID, WorkflowID: w.WorkflowID, Status: w.Status, InitiatorWorkerID: w.InitiatorWorkerID,
		DefinitionVersion: w.DefinitionVersion, CreatedAt: w.CreatedAt.t, UpdatedAt: w.UpdatedAt.t,
		CurrentStepID: nullToEmpty(w.CurrentStepID), CurrentTaskID: nullToEmpty(w.CurrentTaskID),
		Context: w.Context, ParallelBranches: w.ParallelBranches}
	for _, h := range w.History {
		r.History = append(r.History, WorkflowRunHistoryEntry{StepID: h.StepID, TaskID: h.TaskID, WorkerID: h.WorkerID,
			CompletedAt: h.CompletedAt.t, Result: h.Result})
	}
	return nil
}

// WorkflowRunSteps is the per-step view of a run: every step of its
// definition with the state it is in.
type WorkflowRunSteps struct {
	RunID  string            `json:"runId"`
	Status string            `json:"status"`
	Steps  []WorkflowRunStep `json:"steps"`
}

// WorkflowRunStep is one step of a run. State is "pending", "active",
// "awaiting_callback", "completed" or "failed".
type WorkflowRunStep struct {
	StepID      string
	Name        string
	TaskType    string
	State       string
	TaskID      string
	WorkerID    string
	CompletedAt time.Time      // zero until the step ended
	Result      map[string]any // nil when null
}

// UnmarshalJSON reads the wire form, with its nullable members.
func (s *WorkflowRunStep) UnmarshalJSON(b []byte) error {
	var w struct {
		StepID      string         `json:"stepId"`
		Name        string         `json:"name"`
		TaskType    string         `json:"taskType"`
		State       string         `json:"state"`
		TaskID      *string        `json:"taskId"`
		WorkerID    *string        `json:"workerId"`
		CompletedAt wireTime       `json:"completedAt"`
		Result      map[string]any `json:"result"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = WorkflowRunStep{StepID: w.StepID, Name: w.Name, TaskType: w.TaskType, State: w.State,
		TaskID: nullToEmpty(w.TaskID), WorkerID: nullToEmpty(w.WorkerID), CompletedAt: w.CompletedAt.t, Result: w.Result}
	return nil
}

// StartRunParams starts a run; both members may be left out.
type StartRunParams struct {
	Context           map[string]any `json:"context,omitempty"`
	InitiatorWorkerID string         `json:"initiatorWorkerId,omitempty"` // the worker a step may assign to as "initiator"
}

// ListRunsParams filters and pages a run listing.
type ListRunsParams struct {
	Status     string // "active", "completed", "failed", "cancelled"; "" for all
	WorkflowID string // Runs.List only; Workflows.ListRuns names the workflow itself
	Cursor     string
	Limit      int // 1-100; 0 for the server's default
}

// WorkflowRunPage is one page of runs, newest first.
type WorkflowRunPage struct {
	Runs       []WorkflowRun `json:"runs"`
	NextCursor string        `json:"nextCursor"` // "" on the last page
}
