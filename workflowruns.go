package taskrouting

import (
	"context"
	"iter"
	"net/url"
	"strconv"
)

// WorkflowsService is the workspace's workflow definitions and the runs
// started from them: Client.Workflows.
type WorkflowsService struct{ c *Client }

// List returns the id and name of every workflow definition.
//
// API: workflows.list, GET /workflows
func (s *WorkflowsService) List(ctx context.Context, opts ...RequestOption) ([]WorkflowSummary, error) {
	var out struct {
		Workflows []WorkflowSummary `json:"workflows"`
	}
	if err := s.c.call(ctx, "GET", "/workflows", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Workflows, nil
}

// Get returns one workflow definition with its whole graph.
//
// API: workflows.get, GET /workflows/{id}
func (s *WorkflowsService) Get(ctx context.Context, workflowID string, opts ...RequestOption) (*Workflow, error) {
	if err := s.c.admit(checkID("workflowID", workflowID), opts); err != nil {
		return nil, err
	}
	out := new(Workflow)
	if err := s.c.call(ctx, "GET", escapePath("/workflows/", workflowID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Save creates or replaces the definition named workflowID. The server
// checks the graph: a missing initial step, a step leading to a step that
// does not exist or an unreachable step is a 400 with code
// CodeInvalidWorkflow.
//
// API: workflows.save, PUT /workflows/{id}
func (s *WorkflowsService) Save(ctx context.Context, workflowID string, p SaveWorkflowParams, opts ...RequestOption) (*Workflow, error) {
	if err := s.c.admit(firstError(checkID("workflowID", workflowID), p.validate()), opts); err != nil {
		return nil, err
	}
	out := new(Workflow)
	if err := s.c.call(ctx, "PUT", escapePath("/workflows/", workflowID), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Remove deletes a workflow definition.
//
// API: workflows.remove, DELETE /workflows/{id}
func (s *WorkflowsService) Remove(ctx context.Context, workflowID string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("workflowID", workflowID), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/workflows/", workflowID), nil, nil, nil, opts)
}

// Run starts a run of a workflow; the answer shows the step it waits on.
//
// API: workflows.run, POST /workflows/{id}/runs
func (s *WorkflowsService) Run(ctx context.Context, workflowID string, p StartRunParams, opts ...RequestOption) (*WorkflowRun, error) {
	if err := s.c.admit(firstError(checkID("workflowID", workflowID), checkLen("StartRunParams.InitiatorWorkerID", p.InitiatorWorkerID, 0, 128)), opts); err != nil {
		return nil, err
	}
	out := new(WorkflowRun)
	if err := s.c.call(ctx, "POST", escapePath("/workflows/", workflowID, "/runs"), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// ListRunsPage returns one page of a workflow's runs, newest first.
// p.WorkflowID must be empty: the workflow is workflowID.
//
// API: workflows.listRuns, GET /workflows/{id}/runs
func (s *WorkflowsService) ListRunsPage(ctx context.Context, workflowID string, p ListRunsParams, opts ...RequestOption) (*WorkflowRunPage, error) {
	if err := s.c.admit(checkID("workflowID", workflowID), opts); err != nil {
		return nil, err
	}
	if p.WorkflowID != "" {
		return nil, &ParamError{Param: "ListRunsParams.WorkflowID", Problem: "must be empty: the workflow is named by workflowID"}
	}
	return runPage(ctx, s.c, escapePath("/workflows/", workflowID, "/runs"), p, opts)
}

// ListRuns returns every run of a workflow from p.Cursor on, newest first,
// fetching pages as the loop asks for them.
//
// API: workflows.listRuns, GET /workflows/{id}/runs
func (s *WorkflowsService) ListRuns(ctx context.Context, workflowID string, p ListRunsParams, opts ...RequestOption) iter.Seq2[WorkflowRun, error] {
	return allRuns(p, func(p ListRunsParams) (*WorkflowRunPage, error) { return s.ListRunsPage(ctx, workflowID, p, opts...) })
}

// RunsService is the workspace's workflow runs: Client.Runs.
type RunsService struct{ c *Client }

// ListPage returns one page of the workspace's runs, newest first,
// optionally of one workflow (p.WorkflowID) or in one status.
//
// API: runs.list, GET /workflow-runs
func (s *RunsService) ListPage(ctx context.Context, p ListRunsParams, opts ...RequestOption) (*WorkflowRunPage, error) {
	return runPage(ctx, s.c, "/workflow-runs", p, opts)
}

// List returns every run from p.Cursor on, newest first, fetching pages
// as the loop asks for them.
//
// API: runs.list, GET /workflow-runs
func (s *RunsService) List(ctx context.Context, p ListRunsParams, opts ...RequestOption) iter.Seq2[WorkflowRun, error] {
	return allRuns(p, func(p ListRunsParams) (*WorkflowRunPage, error) { return s.ListPage(ctx, p, opts...) })
}

// Get returns one run.
//
// API: runs.get, GET /workflow-runs/{runId}
func (s *RunsService) Get(ctx context.Context, runID string, opts ...RequestOption) (*WorkflowRun, error) {
	return s.runAt(ctx, "GET", runID, "", nil, opts)
}

// Steps returns every step of a run's definition with the state it is in
// (pending, active, awaiting_callback, completed, failed).
//
// API: runs.steps, GET /workflow-runs/{runId}/steps
func (s *RunsService) Steps(ctx context.Context, runID string, opts ...RequestOption) (*WorkflowRunSteps, error) {
	if err := s.c.admit(checkID("runID", runID), opts); err != nil {
		return nil, err
	}
	out := new(WorkflowRunSteps)
	if err := s.c.call(ctx, "GET", escapePath("/workflow-runs/", runID, "/steps"), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Cancel stops an active run; a run already over is ErrInvalidState.
//
// API: runs.cancel, POST /workflow-runs/{runId}/cancel
func (s *RunsService) Cancel(ctx context.Context, runID string, opts ...RequestOption) (*WorkflowRun, error) {
	return s.runAt(ctx, "POST", runID, "/cancel", nil, opts)
}

// CompleteStep ends the external (callback) step stepID of a run with
// data as its result (nil sends none), and the run moves on. A step the
// run does not wait on, or one that is not external, is ErrInvalidState.
//
// API: runs.completeStep, POST /workflow-runs/{runId}/steps/{stepId}/complete
func (s *RunsService) CompleteStep(ctx context.Context, runID, stepID string, data map[string]any, opts ...RequestOption) (*WorkflowRun, error) {
	if err := s.c.admit(checkID("stepID", stepID), opts); err != nil {
		return nil, err
	}
	body := struct {
		Data map[string]any `json:"data,omitempty"`
	}{data}
	return s.runAt(ctx, "POST", runID, "/steps/"+url.PathEscape(stepID)+"/complete", body, opts)
}

// FailStep fails the external (callback) step stepID of a run with the
// message given ("" sends none, at most 2000 characters); the step's
// failure policy decides what the run does next.
//
// API: runs.failStep, POST /workflow-runs/{runId}/steps/{stepId}/fail
func (s *RunsService) FailStep(ctx context.Context, runID, stepID, message string, opts ...RequestOption) (*WorkflowRun, error) {
	if err := s.c.admit(firstError(checkID("stepID", stepID), checkLen("message", message, 0, 2000)), opts); err != nil {
		return nil, err
	}
	body := struct {
		Error string `json:"error,omitempty"`
	}{message}
	return s.runAt(ctx, "POST", runID, "/steps/"+url.PathEscape(stepID)+"/fail", body, opts)
}

// runAt calls an operation on one run that answers the run; tail is
// already escaped. POSTs always carry a body, as the platform's SDKs send.
func (s *RunsService) runAt(ctx context.Context, method, runID, tail string, body any, opts []RequestOption) (*WorkflowRun, error) {
	if err := s.c.admit(checkID("runID", runID), opts); err != nil {
		return nil, err
	}
	if method == "POST" && body == nil {
		body = struct{}{}
	}
	out := new(WorkflowRun)
	if err := s.c.call(ctx, method, escapePath("/workflow-runs/", runID)+tail, nil, body, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

func runPage(ctx context.Context, c *Client, path string, p ListRunsParams, opts []RequestOption) (*WorkflowRunPage, error) {
	if err := c.admit(firstError(checkLen("ListRunsParams.Cursor", p.Cursor, 0, 512), checkLen("ListRunsParams.WorkflowID", p.WorkflowID, 0, 128)), opts); err != nil {
		return nil, err
	}
	if p.Limit < 0 {
		return nil, &ParamError{Param: "ListRunsParams.Limit", Problem: "must be 1-100, or 0 for the server's default"}
	}
	if err := c.admit(checkRange("ListRunsParams.Limit", float64(p.Limit), 0, 100), opts); err != nil {
		return nil, err
	}
	q := url.Values{}
	for k, v := range map[string]string{"status": p.Status, "workflowId": p.WorkflowID, "cursor": p.Cursor} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	out := new(WorkflowRunPage)
	if err := c.call(ctx, "GET", path, q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// allRuns walks the pages page returns from p.Cursor on.
func allRuns(p ListRunsParams, page func(ListRunsParams) (*WorkflowRunPage, error)) iter.Seq2[WorkflowRun, error] {
	return func(yield func(WorkflowRun, error) bool) {
		p := p // ranging again starts from the caller's cursor
		seen := map[string]bool{p.Cursor: p.Cursor != ""}
		for {
			pg, err := page(p)
			if err != nil {
				yield(WorkflowRun{}, err)
				return
			}
			for _, r := range pg.Runs {
				if !yield(r, nil) {
					return
				}
			}
			if pg.NextCursor == "" {
				return
			}
			if seen[pg.NextCursor] {
				yield(WorkflowRun{}, ErrCursorRepeated)
				return
			}
			seen[pg.NextCursor] = true
			p.Cursor = pg.NextCursor
		}
	}
}
