package taskrouting

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const workflowWire = `{"id":"wf_onboard","name":"Onboarding","version":2,"initialStepId":"collect","defaultTimeoutMs":600000,
	"metadata":null,"steps":[
	{"id":"collect","name":"Collect docs","taskType":"assignment","assignmentTemplate":{"tags":["english"]},
	 "routing":[{"condition":"result.ok","targetStepId":"review"}],"defaultNextStepId":"review"},
	{"id":"review","name":"Review","taskType":"external","external":{"name":"compliance"},"timeoutMs":300000,"defaultNextStepId":null}]}`

var workflowDecoded = &Workflow{ID: "wf_onboard", Name: "Onboarding", Version: 2, InitialStepID: "collect",
	DefaultTimeout: 10 * time.Minute, Steps: []WorkflowStep{
		{ID: "collect", Name: "Collect docs", TaskType: "assignment", AssignmentTemplate: map[string]any{"tags": []any{"english"}},
			Routing: []WorkflowRoute{{Condition: "result.ok", TargetStepID: "review"}}, DefaultNextStepID: "review"},
		{ID: "review", Name: "Review", TaskType: "external", External: map[string]any{"name": "compliance"},
			Timeout: 5 * time.Minute, EndWorkflow: true},
	}}

const runWire = `{"id":"run_1","workflowId":"wf_onboard","status":"active","currentStepId":"collect","currentTaskId":"task_8fk2",
	"initiatorWorkerId":"agent_1","context":{"customerId":"c_1"},"definitionVersion":2,"parallelBranches":null,
	"history":[{"stepId":"intake","taskId":"task_1","workerId":"agent_2","completedAt":1763700000000,"result":{"ok":true}}],
	"createdAt":1763700000000,"updatedAt":1763700000000}`

var runDecoded = &WorkflowRun{ID: "run_1", WorkflowID: "wf_onboard", Status: "active", CurrentStepID: "collect",
	CurrentTaskID: "task_8fk2", InitiatorWorkerID: "agent_1", Context: map[string]any{"customerId": "c_1"},
	DefinitionVersion: 2, CreatedAt: t0, UpdatedAt: t0, History: []WorkflowRunHistoryEntry{
		{StepID: "intake", TaskID: "task_1", WorkerID: "agent_2", CompletedAt: t0, Result: map[string]any{"ok": true}}}}

// workflowsCases are the workflows and runs calls on the wire: the request
// each sends and how it decodes the platform's answer. Every request and
// answer is also held to api/openapi.json.
var workflowsCases = []struct {
	name       string
	op         string
	call       func(ctx context.Context, c *Client) (any, error)
	wantMethod string
	wantPath   string
	wantQuery  url.Values
	wantBody   string // "" for none
	status     int
	answer     string
	want       any
}{
	{"list", "workflows.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Workflows.List(ctx)
	}, "GET", "/workflows", nil, "", 200, `{"workflows":[{"id":"wf_onboard","name":"Onboarding"}]}`,
		[]WorkflowSummary{{ID: "wf_onboard", Name: "Onboarding"}}},
	{"get", "workflows.get", func(ctx context.Context, c *Client) (any, error) {
		return c.Workflows.Get(ctx, "wf_onboard")
	}, "GET", "/workflows/wf_onboard", nil, "", 200, workflowWire, workflowDecoded},
	{"save puts the graph at the url that names it, never the id in the body", "workflows.save", func(ctx context.Context, c *Client) (any, error) {
		return c.Workflows.Save(ctx, "wf_onboard", SaveWorkflowParams{Name: "Onboarding", InitialStepID: "collect",
			DefaultTimeout: 10 * time.Minute, Steps: workflowDecoded.Steps})
	}, "PUT", "/workflows/wf_onboard", nil, `{"name":"Onboarding","initialStepId":"collect","defaultTimeoutMs":600000,"steps":[
		{"id":"collect","name":"Collect docs","taskType":"assignment","assignmentTemplate":{"tags":["english"]},
		 "routing":[{"condition":"result.ok","targetStepId":"review"}],"defaultNextStepId":"review"},
		{"id":"review","name":"Review","taskType":"external","external":{"name":"compliance"},"timeoutMs":300000,"defaultNextStepId":null}]}`,
		200, workflowWire, workflowDecoded},
	{"remove", "workflows.remove", func(ctx context.Context, c *Client) (any, error) {
		return nil, c.Workflows.Remove(ctx, "wf onboard")
	}, "DELETE", "/workflows/wf%20onboard", nil, "", 204, "", nil},
	{"run sends context and initiator", "workflows.run", func(ctx context.Context, c *Client) (any, error) {
		return c.Workflows.Run(ctx, "wf_onboard", StartRunParams{Context: map[string]any{"customerId": "c_1"}, InitiatorWorkerID: "agent_1"})
	}, "POST", "/workflows/wf_onboard/runs", nil, `{"context":{"customerId":"c_1"},"initiatorWorkerId":"agent_1"}`, 201, runWire, runDecoded},
	{"run with no input still posts a body", "workflows.run", func(ctx context.Context, c *Client) (any, error) {
		return c.Workflows.Run(ctx, "wf_onboard", StartRunParams{})
	}, "POST", "/workflows/wf_onboard/runs", nil, `{}`, 201, runWire, runDecoded},
	{"list one workflow's runs filters by status", "workflows.listRuns", func(ctx context.Context, c *Client) (any, error) {
		return c.Workflows.ListRunsPage(ctx, "wf_onboard", ListRunsParams{Status: "active", Limit: 25})
	}, "GET", "/workflows/wf_onboard/runs", url.Values{"status": {"active"}, "limit": {"25"}}, "", 200,
		`{"runs":[` + runWire + `],"nextCursor":null}`, &WorkflowRunPage{Runs: []WorkflowRun{*runDecoded}}},
	{"list runs across the workspace by definition", "runs.list", func(ctx context.Context, c *Client) (any, error) {
		return c.Runs.ListPage(ctx, ListRunsParams{WorkflowID: "wf_onboard", Status: "completed", Cursor: "c1"})
	}, "GET", "/workflow-runs", url.Values{"workflowId": {"wf_onboard"}, "status": {"completed"}, "cursor": {"c1"}}, "", 200,
		`{"runs":[],"nextCursor":"cursor_r1"}`, &WorkflowRunPage{Runs: []WorkflowRun{}, NextCursor: "cursor_r1"}},
	{"get run", "runs.get", func(ctx context.Context, c *Client) (any, error) {
		return c.Runs.Get(ctx, "run_1")
	}, "GET", "/workflow-runs/run_1", nil, "", 200, runWire, runDecoded},
	{"steps", "runs.steps", func(ctx context.Context, c *Client) (any, error) {
		return c.Runs.Steps(ctx, "run_1")
	}, "GET", "/workflow-runs/run_1/steps", nil, "", 200, `{"runId":"run_1","status":"active","steps":[
		{"stepId":"collect","name":"Collect docs","taskType":"assignment","state":"completed","taskId":"task_8fk2","workerId":"agent_1","completedAt":1763700000000,"result":{"ok":true}},
		{"stepId":"review","name":"Review","taskType":"external","state":"awaiting_callback","taskId":null,"workerId":null,"completedAt":null,"result":null}]}`,
		&WorkflowRunSteps{RunID: "run_1", Status: "active", Steps: []WorkflowRunStep{
			{StepID: "collect", Name: "Collect docs", TaskType: "assignment", State: "completed", TaskID: "task_8fk2", WorkerID: "agent_1",
				CompletedAt: t0, Result: map[string]any{"ok": true}},
			{StepID: "review", Name: "Review", TaskType: "external", State: "awaiting_callback"}}}},
	{"cancel posts an empty object", "runs.cancel", func(ctx context.Context, c *Client) (any, error) {
		return c.Runs.Cancel(ctx, "run_1")
	}, "POST", "/workflow-runs/run_1/cancel", nil, `{}`, 200, runWire, runDecoded},
	{"complete a callback step with data", "runs.completeStep", func(ctx context.Context, c *Client) (any, error) {
		return c.Runs.CompleteStep(ctx, "run_1", "review", map[string]any{"approved": true})
	}, "POST", "/workflow-runs/run_1/steps/review/complete", nil, `{"data":{"approved":true}}`, 200, runWire, runDecoded},
	{"fail a callback step with a message", "runs.failStep", func(ctx context.Context, c *Client) (any, error) {
		return c.Runs.FailStep(ctx, "run_1", "review", "compliance system unreachable")
	}, "POST", "/workflow-runs/run_1/steps/review/fail", nil, `{"error":"compliance system unreachable"}`, 200, runWire, runDecoded},
}

func TestWorkflowsWire(t *testing.T) {
	for _, tc := range workflowsCases {
		runWireCase(t, wireCase{tc.name, tc.op, tc.call, tc.wantMethod, tc.wantPath, tc.wantQuery.Encode(), tc.wantBody, tc.status, tc.answer, tc.want})
	}
}

// TestWorkflowsRefusedBeforeSending checks that input the platform would
// refuse is a *ParamError and nothing reaches the server.
func TestWorkflowsRefusedBeforeSending(t *testing.T) {
	step := WorkflowStep{ID: "a", Name: "A", TaskType: "external"}
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client) error
		param string
	}{
		{"save without name", func(ctx context.Context, c *Client) error {
			_, err := c.Workflows.Save(ctx, "wf", SaveWorkflowParams{Steps: []WorkflowStep{step}})
			return err
		}, "SaveWorkflowParams.Name"},
		{"save without steps", func(ctx context.Context, c *Client) error {
			_, err := c.Workflows.Save(ctx, "wf", SaveWorkflowParams{Name: "x"})
			return err
		}, "SaveWorkflowParams.Steps"},
		{"save a step without id", func(ctx context.Context, c *Client) error {
			_, err := c.Workflows.Save(ctx, "wf", SaveWorkflowParams{Name: "x", Steps: []WorkflowStep{step, {Name: "B"}}})
			return err
		}, "SaveWorkflowParams.Steps[1].ID"},
		{"save an unknown task type", func(ctx context.Context, c *Client) error {
			_, err := c.Workflows.Save(ctx, "wf", SaveWorkflowParams{Name: "x", Steps: []WorkflowStep{{ID: "a", Name: "A", TaskType: "human"}}})
			return err
		}, "SaveWorkflowParams.Steps[0].TaskType"},
		{"save without workflow id", func(ctx context.Context, c *Client) error {
			_, err := c.Workflows.Save(ctx, "", SaveWorkflowParams{Name: "x", Steps: []WorkflowStep{step}})
			return err
		}, "workflowID"},
		{"list runs of one workflow naming another", func(ctx context.Context, c *Client) error {
			_, err := c.Workflows.ListRunsPage(ctx, "wf", ListRunsParams{WorkflowID: "other"})
			return err
		}, "ListRunsParams.WorkflowID"},
		{"list runs past the limit", func(ctx context.Context, c *Client) error {
			_, err := c.Runs.ListPage(ctx, ListRunsParams{Limit: 101})
			return err
		}, "ListRunsParams.Limit"},
		{"get run dot segment", func(ctx context.Context, c *Client) error {
			_, err := c.Runs.Get(ctx, "..")
			return err
		}, "runID"},
		{"complete without step id", func(ctx context.Context, c *Client) error {
			_, err := c.Runs.CompleteStep(ctx, "run_1", "", nil)
			return err
		}, "stepID"},
		{"fail with a message past 2000", func(ctx context.Context, c *Client) error {
			_, err := c.Runs.FailStep(ctx, "run_1", "review", strings.Repeat("e", 2001))
			return err
		}, "message"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, http.StatusOK, nil, "{}")
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			err := tc.call(context.Background(), c)
			var pe *ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.param, pe.Param)
			assert.Empty(t, rec.all(), "a refused call reached the server")
		})
	}
}
