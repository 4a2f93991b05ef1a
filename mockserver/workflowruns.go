package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// Run statuses and step states, as the platform names them.
const (
	runActive    = "active"
	runCompleted = "completed"
	runFailed    = "failed"
	runCancelled = "cancelled"

	stepPending          = "pending"
	stepActive           = "active"
	stepAwaitingCallback = "awaiting_callback"
	stepCompleted        = "completed"
	stepFailed           = "failed"
)

// workflowRun is one run. def is the definition it started with; a later save does not
// change it.
type workflowRun struct {
	id, workflowID string
	def            *workflowDef
	status         string
	initiator      string
	context        json.RawMessage // object
	createdAt      time.Time
	updatedAt      time.Time

	current     string    // the step the run waits on; "" when the run is over
	currentTask string    // the task of the current assignment step
	stepState   string    // stepActive or stepAwaitingCallback
	deadline    time.Time // when the current step times out; zero: never
	attempts    map[string]int
	entries     int          // steps entered; bounds a loop of machine steps
	records     []stepRecord // every step that ended, in order
}

// stepRecord is one step that ended (completed or failed).
type stepRecord struct {
	stepID, state    string
	taskID, workerID string
	at               time.Time
	result           json.RawMessage // object; nil for null
}

// runAnswer is WorkflowRun in api/openapi.json.
type runAnswer struct {
	ID                string          `json:"id"`
	WorkflowID        string          `json:"workflowId"`
	Status            string          `json:"status"`
	InitiatorWorkerID string          `json:"initiatorWorkerId,omitempty"`
	DefinitionVersion int64           `json:"definitionVersion"`
	CreatedAt         int64           `json:"createdAt"`
	UpdatedAt         int64           `json:"updatedAt"`
	CurrentStepID     *string         `json:"currentStepId"`
	CurrentTaskID     *string         `json:"currentTaskId"`
	Context           json.RawMessage `json:"context"`
	History           []historyAnswer `json:"history"`
	ParallelBranches  []struct{}      `json:"parallelBranches"` // always null: parallel steps are stored, not run
}

type historyAnswer struct {
	StepID      string          `json:"stepId"`
	TaskID      string          `json:"taskId,omitempty"`
	WorkerID    string          `json:"workerId,omitempty"`
	CompletedAt int64           `json:"completedAt"`
	Result      json.RawMessage `json:"result"`
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (run *workflowRun) answer() runAnswer {
	out := runAnswer{ID: run.id, WorkflowID: run.workflowID, Status: run.status, InitiatorWorkerID: run.initiator,
		DefinitionVersion: run.def.version, CreatedAt: run.createdAt.UnixMilli(), UpdatedAt: run.updatedAt.UnixMilli(),
		CurrentStepID: optString(run.current), CurrentTaskID: optString(run.currentTask), Context: run.context,
		History: []historyAnswer{}}
	for _, r := range run.records {
		if r.state == stepCompleted {
			out.History = append(out.History, historyAnswer{StepID: r.stepID, TaskID: r.taskID, WorkerID: r.workerID,
				CompletedAt: r.at.UnixMilli(), Result: rawOrNull(r.result)})
		}
	}
	return out
}

// runStepAnswer is WorkflowRunStep in api/openapi.json.
type runStepAnswer struct {
	StepID      string          `json:"stepId"`
	Name        string          `json:"name"`
	TaskType    string          `json:"taskType"`
	State       string          `json:"state"`
	TaskID      *string         `json:"taskId"`
	WorkerID    *string         `json:"workerId"`
	CompletedAt *int64          `json:"completedAt"`
	Result      json.RawMessage `json:"result"`
}

// steps is the per-step view: every step of the run's definition in definition order, with
// its latest outcome, the state it waits in, or pending.
func (run *workflowRun) steps() []runStepAnswer {
	out := make([]runStepAnswer, 0, len(run.def.steps))
	for i := range run.def.steps {
		s := &run.def.steps[i]
		a := runStepAnswer{StepID: s.ID, Name: s.Name, TaskType: s.kind(), State: stepPending, Result: json.RawMessage("null")}
		for _, r := range run.records {
			if r.stepID == s.ID {
				at := r.at.UnixMilli()
				a.State, a.TaskID, a.WorkerID, a.CompletedAt, a.Result = r.state, optString(r.taskID), optString(r.workerID), &at, rawOrNull(r.result)
			}
		}
		if run.current == s.ID {
			a.State, a.TaskID, a.WorkerID, a.CompletedAt, a.Result = run.stepState, optString(run.currentTask), nil, nil, json.RawMessage("null")
		}
		out = append(out, a)
	}
	return out
}

// maxStepEntries is how many steps one run may enter in its life.
const maxStepEntries = 10_000

// startRun creates a run and enters its initial step.
func (ws *workspace) startRun(d *workflowDef, initiator string, context json.RawMessage, now time.Time) *workflowRun {
	run := &workflowRun{id: ws.newID("run_"), workflowID: d.id, def: d, status: runActive, initiator: initiator,
		context: context, createdAt: now, updatedAt: now, attempts: map[string]int{}}
	ws.flows.runs = append(ws.flows.runs, run)
	ws.enterStep(run, d.initial, now)
	return run
}

// enterStep makes step id the run's current step and starts it: an assignment becomes a
// task for the matcher, an external step waits for runs.completeStep or runs.failStep, and a
// machine step (its handler is stored, not run) completes at once with a null result.
func (ws *workspace) enterStep(run *workflowRun, id string, now time.Time) {
	s := run.def.step(id)
	run.current, run.currentTask, run.deadline, run.updatedAt = id, "", time.Time{}, now
	run.attempts[id]++
	if run.entries++; run.entries > maxStepEntries {
		// Machine steps complete at once, so a cycle of them would never stop.
		run.records = append(run.records, stepRecord{stepID: id, state: stepFailed, at: now,
			result: errorResult("the run entered more than " + strconv.Itoa(maxStepEntries) + " steps")})
		run.status, run.current = runFailed, ""
		return
	}
	var timeout int64
	switch {
	case s.TimeoutMs != nil:
		timeout = int64(*s.TimeoutMs)
	case run.def.defaultTimeoutMs != nil:
		timeout = *run.def.defaultTimeoutMs
	}
	if timeout > 0 {
		run.deadline = now.Add(time.Duration(timeout) * time.Millisecond)
		ws.flows.moved = true
	}
	switch s.kind() {
	case "machine":
		run.stepState = stepActive
		ws.endStep(run, stepCompleted, "", "", nil, now)
	case "external":
		run.stepState = stepAwaitingCallback
	default:
		run.stepState = stepActive
		if s.AssignmentTemplate == nil || len(s.AssignmentTemplate.Tags) == 0 {
			// Saved as the platform saves it; the mock routes an assignment by its tags alone,
			// so without tags the step cannot make a task (docs/contract.md, "Workflows").
			ws.endStep(run, stepFailed, "", "", errorResult("assignment step '"+s.ID+"' has no assignmentTemplate.tags to route its task by"), now)
			return
		}
		in := match.TaskInput{ID: ws.freshTaskID(), Tags: s.AssignmentTemplate.Tags, Extra: &taskExtra{}}
		if p := s.AssignmentTemplate.Priority; p != nil {
			in.Priority = *p
		}
		if lim := ws.limits.QueuedTasks; lim > 0 && ws.openTasks >= lim {
			ws.endStep(run, stepFailed, "", "", errorResult("plan limit of queued tasks reached"), now)
			return
		}
		run.currentTask = in.ID
		if ws.flows.byTask == nil {
			ws.flows.byTask = map[string]*workflowRun{}
		}
		ws.flows.byTask[in.ID] = run
		res, err := ws.engine.CreateTask(now, in)
		if err != nil {
			delete(ws.flows.byTask, in.ID)
			run.currentTask = ""
			ws.publish(res)
			ws.endStep(run, stepFailed, "", "", errorResult(err.Error()), now)
			return
		}
		ws.openTasks++
		ws.publish(res)
	}
}

func errorResult(msg string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return b
}

// endStep records the current step's outcome and moves the run on: after a completion to
// the first routing target whose condition holds, else defaultNextStepId, else the run is
// completed; after a failure as the step's failurePolicy says (abort, the default, fails the
// run; continue goes on as after a completion; retry enters the step again up to maxRetries
// times, then aborts).
func (ws *workspace) endStep(run *workflowRun, state, taskID, workerID string, result json.RawMessage, now time.Time) {
	s := run.def.step(run.current)
	if run.currentTask != "" {
		delete(ws.flows.byTask, run.currentTask)
	}
	run.records = append(run.records, stepRecord{stepID: s.ID, state: state, taskID: taskID, workerID: workerID, at: now, result: result})
	run.current, run.currentTask, run.deadline, run.updatedAt = "", "", time.Time{}, now
	next := ""
	if state == stepFailed {
		switch s.FailurePolicy {
		case "continue":
			next = s.defaultNext()
		case "retry":
			if s.MaxRetries != nil && float64(run.attempts[s.ID]) <= *s.MaxRetries {
				next = s.ID
				break
			}
			run.status = runFailed
			return
		default:
			run.status = runFailed
			return
		}
	} else {
		next = s.nextAfter(result, run.context)
	}
	if next == "" {
		run.status = runCompleted
		return
	}
	ws.enterStep(run, next, now)
}

func (s *flowStep) defaultNext() string {
	if s.DefaultNextStepID == nil {
		return ""
	}
	return *s.DefaultNextStepID
}

func (s *flowStep) nextAfter(result, context json.RawMessage) string {
	for _, r := range s.Routing {
		if conditionHolds(r.Condition, result, context) {
			return r.TargetStepID
		}
	}
	return s.defaultNext()
}

// conditionHolds evaluates a routing condition: "path" (truthy), "!path" (falsy),
// "path == literal" or "path != literal", where path is result.a.b or context.a.b (a bare
// path reads the result) and literal is JSON (true, 3, "x", null) or a bare word, read as a
// string. Anything else never holds.
func conditionHolds(cond string, result, context json.RawMessage) bool {
	cond = strings.TrimSpace(cond)
	for _, opr := range []string{"==", "!="} {
		if l, r, ok := strings.Cut(cond, opr); ok {
			got, _ := lookupPath(strings.TrimSpace(l), result, context)
			want := literal(strings.TrimSpace(r))
			eq := jsonEqual(got, want)
			return eq == (opr == "==")
		}
	}
	if rest, ok := strings.CutPrefix(cond, "!"); ok {
		v, _ := lookupPath(strings.TrimSpace(rest), result, context)
		return !truthy(v)
	}
	v, _ := lookupPath(cond, result, context)
	return truthy(v)
}

func lookupPath(path string, result, context json.RawMessage) (any, bool) {
	root := result
	parts := strings.Split(path, ".")
	switch parts[0] {
	case "result":
		parts = parts[1:]
	case "context":
		root, parts = context, parts[1:]
	}
	var v any
	if len(root) == 0 || json.Unmarshal(root, &v) != nil {
		return nil, false
	}
	for _, p := range parts {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[p]; !ok {
			return nil, false
		}
	}
	return v, true
}

func literal(s string) any {
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		return v
	}
	return strings.Trim(s, `'`)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return v != ""
	}
	return true
}

// observeRunTask moves a run on when the task of its current assignment step ends: a
// completion completes the step with the task's result and worker, a cancellation fails it.
func (ws *workspace) observeRunTask(ev match.Event) {
	if ev.Kind != match.EventTaskCompleted && ev.Kind != match.EventTaskCancelled {
		return
	}
	run := ws.flows.byTask[ev.TaskID]
	if run == nil || run.status != runActive || run.currentTask != ev.TaskID {
		return
	}
	if ev.Kind == match.EventTaskCompleted {
		var result json.RawMessage
		if raw, ok := ev.Result.(json.RawMessage); ok && len(raw) > 0 && raw[0] == '{' {
			result = raw
		}
		ws.endStep(run, stepCompleted, ev.TaskID, ev.WorkerID, result, ev.At)
		return
	}
	ws.endStep(run, stepFailed, ev.TaskID, "", errorResult("the step's task was cancelled"), ev.At)
}

// nextRunDeadline is the earliest step timeout of an active run.
func (st *workflowStore) nextRunDeadline() (time.Time, bool) {
	var best time.Time
	found := false
	for _, run := range st.runs {
		if run.status == runActive && !run.deadline.IsZero() && (!found || run.deadline.Before(best)) {
			best, found = run.deadline, true
		}
	}
	return best, found
}

// timeOutRuns fails every step whose timeout is due at now, earliest first; an assignment
// step's task is cancelled with it.
func (ws *workspace) timeOutRuns(now time.Time) {
	for {
		var due *workflowRun
		for _, run := range ws.flows.runs {
			if run.status == runActive && !run.deadline.IsZero() && !run.deadline.After(now) &&
				(due == nil || run.deadline.Before(due.deadline)) {
				due = run
			}
		}
		if due == nil {
			return
		}
		at := due.deadline
		s := due.def.step(due.current)
		task := due.currentTask
		ms := at.Sub(due.updatedAt).Milliseconds()
		ws.endStep(due, stepFailed, task, "", errorResult(fmt.Sprintf("step %s timed out after %d ms", s.ID, ms)), at)
		if task != "" {
			ws.cancelRunTask(task, at)
		}
	}
}

// cancelRunTask cancels a task a run no longer waits for; a task already over stays as it is.
func (ws *workspace) cancelRunTask(taskID string, now time.Time) {
	res, err := ws.engine.CancelTask(now, taskID)
	ws.publish(res)
	_ = err // a task already completed or cancelled needs nothing more
}

func (st *workflowStore) run(id string) (*workflowRun, *apiError) {
	for _, run := range st.runs {
		if run.id == id {
			return run, nil
		}
	}
	return nil, notFoundf("workflow run %s not found", id)
}

// prepStartRun is POST /workflows/{id}/runs.
func prepStartRun(r *request) (op, *apiError) {
	var in struct {
		Context           json.RawMessage `json:"context"`
		InitiatorWorkerID string          `json:"initiatorWorkerId"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	if len(in.Context) == 0 || string(in.Context) == "null" {
		in.Context = json.RawMessage("{}")
	}
	id := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		i, err := ws.flows.def(id)
		if err != nil {
			return 0, nil, err
		}
		run := ws.startRun(ws.flows.defs[i], in.InitiatorWorkerID, in.Context, now)
		return http.StatusCreated, run.answer(), nil
	}, nil
}

// runPage is the answer of workflows.listRuns and runs.list.
type runPage struct {
	Runs       []runAnswer `json:"runs"`
	NextCursor *string     `json:"nextCursor"`
}

// listRuns pages the runs newest first; the cursor is the position of the next run.
func prepRunPage(r *request, workflowID string, needDef bool) (op, *apiError) {
	limit, start := 50, 0
	if l := r.query.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil {
			return nil, validationf("querystring/limit must be integer")
		}
		limit = n
	}
	if c := r.query.Get("cursor"); c != "" {
		n, err := strconv.Atoi(c)
		if err != nil || n < 0 {
			return nil, invalidBodyf("cursor is not one this server issued")
		}
		start = n
	}
	status := r.query.Get("status")
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if needDef {
			if _, err := ws.flows.def(workflowID); err != nil {
				return 0, nil, err
			}
		}
		var match []*workflowRun
		for i := len(ws.flows.runs) - 1; i >= 0; i-- {
			run := ws.flows.runs[i]
			if (workflowID == "" || run.workflowID == workflowID) && (status == "" || run.status == status) {
				match = append(match, run)
			}
		}
		from := min(start, len(match))
		to := min(from+limit, len(match))
		out := runPage{Runs: []runAnswer{}}
		for _, run := range match[from:to] {
			out.Runs = append(out.Runs, run.answer())
		}
		if to < len(match) {
			next := strconv.Itoa(to)
			out.NextCursor = &next
		}
		return http.StatusOK, out, nil
	}, nil
}

// prepListWorkflowRuns is GET /workflows/{id}/runs; an unknown workflow is 404.
func prepListWorkflowRuns(r *request) (op, *apiError) {
	return prepRunPage(r, r.params[0], true)
}

// prepListRuns is GET /workflow-runs, optionally for one workflowId.
func prepListRuns(r *request) (op, *apiError) {
	return prepRunPage(r, r.query.Get("workflowId"), false)
}

// prepGetRun is GET /workflow-runs/{runId}.
func prepGetRun(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		run, err := ws.flows.run(id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, run.answer(), nil
	}, nil
}

// prepRunSteps is GET /workflow-runs/{runId}/steps.
func prepRunSteps(r *request) (op, *apiError) {
	id := r.params[0]
	type view struct {
		RunID  string          `json:"runId"`
		Status string          `json:"status"`
		Steps  []runStepAnswer `json:"steps"`
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		run, err := ws.flows.run(id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, view{RunID: run.id, Status: run.status, Steps: run.steps()}, nil
	}, nil
}

// prepCancelRun is POST /workflow-runs/{runId}/cancel: an active run stops where it is and
// the task of its current assignment step is cancelled; any other run is 409 invalid_state.
func prepCancelRun(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		run, err := ws.flows.run(id)
		if err != nil {
			return 0, nil, err
		}
		if run.status != runActive {
			return 0, nil, conflictf(CodeInvalidState, "cannot cancel workflow run %s: its status is %s", id, run.status)
		}
		task := run.currentTask
		if task != "" {
			delete(ws.flows.byTask, task)
		}
		run.status, run.current, run.currentTask, run.deadline, run.updatedAt = runCancelled, "", "", time.Time{}, now
		if task != "" {
			ws.cancelRunTask(task, now)
		}
		return http.StatusOK, run.answer(), nil
	}, nil
}

// prepCompleteStep is POST /workflow-runs/{runId}/steps/{stepId}/complete and prepFailStep
// its .../fail: only the current step of an active run, and only an external (callback)
// step, as on the platform; anything else is 409 invalid_state.
// mergeContext is a run's context after an external step completed with data: the data's
// members are set on the context (shallow), as the platform's completeStep answer shows
// ({"data": {"approved": true}} leaves "approved": true in the context). Data that is not an
// object leaves the context as it is.
func mergeContext(context, data json.RawMessage) json.RawMessage {
	var add map[string]json.RawMessage
	if json.Unmarshal(data, &add) != nil || len(add) == 0 {
		return context
	}
	merged := map[string]json.RawMessage{}
	_ = json.Unmarshal(context, &merged) // a run's context is always an object
	for k, v := range add {
		merged[k] = v
	}
	out, err := json.Marshal(merged)
	if err != nil {
		return context
	}
	return out
}

func prepCompleteStep(r *request) (op, *apiError) { return prepStepCallback(r, true) }

func prepFailStep(r *request) (op, *apiError) { return prepStepCallback(r, false) }

func prepStepCallback(r *request, complete bool) (op, *apiError) {
	var in struct {
		Data  json.RawMessage `json:"data"`
		Error *string         `json:"error"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	runID, stepID := r.params[0], r.params[1]
	verb := "complete"
	if !complete {
		verb = "fail"
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		run, err := ws.flows.run(runID)
		if err != nil {
			return 0, nil, err
		}
		s := run.def.step(stepID)
		if s == nil {
			return 0, nil, notFoundf("step %s not found in workflow run %s", stepID, runID)
		}
		switch {
		case run.status != runActive:
			return 0, nil, conflictf(CodeInvalidState, "cannot %s step %s: workflow run %s is %s", verb, stepID, runID, run.status)
		case run.current != stepID:
			return 0, nil, conflictf(CodeInvalidState, "cannot %s step %s: the run waits on step %s", verb, stepID, run.current)
		case s.kind() != "external":
			return 0, nil, conflictf(CodeInvalidState, "cannot %s step %s: only external (callback) steps are completed by the caller", verb, stepID)
		}
		if complete {
			var result json.RawMessage
			if len(in.Data) > 0 && string(in.Data) != "null" {
				result = in.Data
				run.context = mergeContext(run.context, in.Data)
			}
			ws.endStep(run, stepCompleted, "", "", result, now)
		} else {
			msg := "failed by the caller"
			if in.Error != nil {
				msg = *in.Error
			}
			ws.endStep(run, stepFailed, "", "", errorResult(msg), now)
		}
		return http.StatusOK, run.answer(), nil
	}, nil
}
