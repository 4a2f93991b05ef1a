package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// CodeInvalidWorkflow answers a workflow definition whose graph cannot run: a missing initial
// step, a step that names a step that does not exist, a step no path reaches, a machine step
// without a handler (docs/contract.md, workflows).
const CodeInvalidWorkflow = "invalid_workflow"

// workflowStore is a workspace's workflow definitions and the runs started from them, each
// in creation order; its zero value is empty and usable. Guarded by the workspace's lock.
type workflowStore struct {
	defs   []*workflowDef
	runs   []*workflowRun
	byTask map[string]*workflowRun // the task of a run's current assignment step
	moved  bool                    // a run deadline was set since the scheduler last looked
}

// workflowDef is one saved definition. A save replaces the pointer, never the fields, so a
// run keeps the definition it started with (its definitionVersion).
type workflowDef struct {
	id, name         string
	version          int64
	initial          string
	steps            []flowStep
	defaultTimeoutMs *int64
	metadata         json.RawMessage // object; nil when absent or null
}

// flowStep is a step as sent (raw, answered byte for byte) plus the members the mock acts on.
type flowStep struct {
	raw json.RawMessage
	flowStepInput
}

type flowStepInput struct {
	ID                 string `json:"id"`
	Name               string `json:"name"`
	TaskType           string `json:"taskType"`
	AssignmentTemplate *struct {
		Tags     []string `json:"tags"`
		Priority *float64 `json:"priority"`
	} `json:"assignmentTemplate"`
	MachineTask *struct {
		Handler string `json:"handler"`
	} `json:"machineTask"`
	Routing []struct {
		Condition    string `json:"condition"`
		TargetStepID string `json:"targetStepId"`
	} `json:"routing"`
	// DefaultNextStepID: absent and null both end the run after this step.
	DefaultNextStepID *string  `json:"defaultNextStepId"`
	ParallelStepIDs   []string `json:"parallelStepIds"`
	FailurePolicy     string   `json:"failurePolicy"`
	MaxRetries        *float64 `json:"maxRetries"` // float64: 1e3 and 1.0 are integers too
	TimeoutMs         *float64 `json:"timeoutMs"`
}

// kind is the step's task type; a step that names none is an assignment, as on the platform.
func (s *flowStep) kind() string {
	if s.TaskType == "" {
		return "assignment"
	}
	return s.TaskType
}

func (d *workflowDef) step(id string) *flowStep {
	for i := range d.steps {
		if d.steps[i].ID == id {
			return &d.steps[i]
		}
	}
	return nil
}

// definitionAnswer is WorkflowDefinition in api/openapi.json.
type definitionAnswer struct {
	ID               string            `json:"id"`
	Name             string            `json:"name"`
	Version          int64             `json:"version"`
	InitialStepID    string            `json:"initialStepId"`
	Steps            []json.RawMessage `json:"steps"`
	DefaultTimeoutMs *int64            `json:"defaultTimeoutMs"`
	Metadata         json.RawMessage   `json:"metadata"`
}

func (d *workflowDef) answer() definitionAnswer {
	steps := make([]json.RawMessage, len(d.steps))
	for i, s := range d.steps {
		steps[i] = s.raw
	}
	return definitionAnswer{ID: d.id, Name: d.name, Version: d.version, InitialStepID: d.initial,
		Steps: steps, DefaultTimeoutMs: d.defaultTimeoutMs, Metadata: rawOrNull(d.metadata)}
}

func (st *workflowStore) def(id string) (int, *apiError) {
	i := slices.IndexFunc(st.defs, func(d *workflowDef) bool { return d.id == id })
	if i < 0 {
		return -1, notFoundf("workflow %s not found", id)
	}
	return i, nil
}

// decodeWorkflow reads a workflows.save body (the schema has held it to its limits) and
// checks the graph, so an invalid definition is refused before anything is stored.
func decodeWorkflow(id string, body []byte) (*workflowDef, *apiError) {
	var in struct {
		Name             string            `json:"name"`
		Version          *float64          `json:"version"`
		InitialStepID    *string           `json:"initialStepId"`
		Steps            []json.RawMessage `json:"steps"`
		DefaultTimeoutMs *float64          `json:"defaultTimeoutMs"`
		Metadata         json.RawMessage   `json:"metadata"`
	}
	if err := decodeBody(body, &in); err != nil {
		return nil, err
	}
	d := &workflowDef{id: id, name: in.Name}
	if in.Version != nil {
		d.version = int64(*in.Version)
	}
	if in.DefaultTimeoutMs != nil {
		if *in.DefaultTimeoutMs < 0 {
			return nil, validationf("body/defaultTimeoutMs must be >= 0")
		}
		ms := int64(*in.DefaultTimeoutMs)
		d.defaultTimeoutMs = &ms
	}
	if len(in.Metadata) > 0 && string(in.Metadata) != "null" {
		d.metadata = in.Metadata
	}
	for i, raw := range in.Steps {
		s := flowStep{raw: raw}
		if err := json.Unmarshal(raw, &s.flowStepInput); err != nil {
			return nil, validationf("body/steps/%d does not match a workflow step: %s", i, jsonProblem(err))
		}
		if s.TimeoutMs != nil && *s.TimeoutMs < 0 {
			return nil, validationf("body/steps/%d/timeoutMs must be >= 0", i)
		}
		if s.MaxRetries != nil && *s.MaxRetries < 0 {
			return nil, validationf("body/steps/%d/maxRetries must be >= 0", i)
		}
		switch s.FailurePolicy {
		case "", "abort", "continue", "retry":
		default:
			return nil, validationf("body/steps/%d/failurePolicy must be one of abort, continue, retry", i)
		}
		d.steps = append(d.steps, s)
	}
	switch {
	case in.InitialStepID != nil:
		d.initial = *in.InitialStepID
	case len(d.steps) == 0:
		return nil, errorf(http.StatusBadRequest, CodeInvalidWorkflow, "a workflow needs at least one step")
	default:
		d.initial = d.steps[0].ID
	}
	if err := d.checkGraph(); err != nil {
		return nil, err
	}
	return d, nil
}

func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s must be %s", te.Field, te.Type)
	}
	return "malformed"
}

// checkGraph holds a definition to what a run needs: unique step ids, an initial step that
// exists, no edge to a step that does not exist, every step reachable from the initial one,
// and a handler on every machine step. An assignment step without tags is saved, as the
// platform saves it; a run that reaches it fails that step (enterStep).
func (d *workflowDef) checkGraph() *apiError {
	bad := func(format string, args ...any) *apiError {
		return errorf(http.StatusBadRequest, CodeInvalidWorkflow, format, args...)
	}
	seen := map[string]bool{}
	for _, s := range d.steps {
		if seen[s.ID] {
			return bad("step id '%s' is used twice", s.ID)
		}
		seen[s.ID] = true
	}
	if !seen[d.initial] {
		return bad("initial step '%s' is not defined", d.initial)
	}
	for _, s := range d.steps {
		for _, to := range s.edges() {
			if !seen[to] {
				return bad("step '%s' leads to step '%s', which is not defined", s.ID, to)
			}
		}
		switch s.kind() {
		case "machine":
			if s.MachineTask == nil || s.MachineTask.Handler == "" {
				return bad("machine step '%s' has no machineTask.handler", s.ID)
			}
		}
	}
	reached := map[string]bool{d.initial: true}
	queue := []string{d.initial}
	for len(queue) > 0 {
		s := d.step(queue[0])
		queue = queue[1:]
		for _, to := range s.edges() {
			if !reached[to] {
				reached[to] = true
				queue = append(queue, to)
			}
		}
	}
	for _, s := range d.steps {
		if !reached[s.ID] {
			return bad("step '%s' is unreachable from the initial step '%s'", s.ID, d.initial)
		}
	}
	return nil
}

// edges are the steps a step may lead to.
func (s *flowStep) edges() []string {
	var out []string
	if s.DefaultNextStepID != nil {
		out = append(out, *s.DefaultNextStepID)
	}
	for _, r := range s.Routing {
		out = append(out, r.TargetStepID)
	}
	return append(out, s.ParallelStepIDs...)
}

// prepListWorkflows is GET /workflows: id and name of each definition, in creation order.
func prepListWorkflows(*request) (op, *apiError) {
	type summary struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		out := make([]summary, len(ws.flows.defs))
		for i, d := range ws.flows.defs {
			out[i] = summary{ID: d.id, Name: d.name}
		}
		return http.StatusOK, map[string][]summary{"workflows": out}, nil
	}, nil
}

// prepGetWorkflow is GET /workflows/{id}.
func prepGetWorkflow(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i, err := ws.flows.def(id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, ws.flows.defs[i].answer(), nil
	}, nil
}

// prepSaveWorkflow is PUT /workflows/{id}: create or replace. Without a version in the body
// a new definition is version 1 and a replacement the stored version plus one.
func prepSaveWorkflow(r *request) (op, *apiError) {
	id := r.params[0]
	d, err := decodeWorkflow(id, r.body)
	if err != nil {
		return nil, err
	}
	explicit := d.version != 0
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		def := *d // the prepared value is shared by a replayed request: store a copy
		i := slices.IndexFunc(ws.flows.defs, func(x *workflowDef) bool { return x.id == id })
		if i < 0 {
			if !explicit {
				def.version = 1
			}
			ws.flows.defs = append(ws.flows.defs, &def)
		} else {
			if !explicit {
				def.version = ws.flows.defs[i].version + 1
			}
			ws.flows.defs[i] = &def
		}
		return http.StatusOK, def.answer(), nil
	}, nil
}

// prepRemoveWorkflow is DELETE /workflows/{id}. Runs already started keep going on the
// definition they started with and stay listed.
func prepRemoveWorkflow(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i, err := ws.flows.def(id)
		if err != nil {
			return 0, nil, err
		}
		ws.flows.defs = slices.Delete(ws.flows.defs, i, i+1)
		return http.StatusNoContent, nil, nil
	}, nil
}
