package mockserver_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// onboarding is a workflow with each kind of step: an assignment that branches on its
// result, an external step with a timeout, a machine step and an external end step.
func onboarding() taskrouting.SaveWorkflowParams {
	return taskrouting.SaveWorkflowParams{
		Name: "Onboarding", InitialStepID: "collect",
		Steps: []taskrouting.WorkflowStep{
			{ID: "collect", Name: "Collect docs", TaskType: "assignment",
				AssignmentTemplate: map[string]any{"tags": []string{"english"}, "priority": 5},
				Routing:            []taskrouting.WorkflowRoute{{Condition: "result.ok", TargetStepID: "review"}},
				DefaultNextStepID:  "reject"},
			{ID: "review", Name: "Review", TaskType: "external", External: map[string]any{"name": "compliance"},
				Timeout: 5 * time.Minute, DefaultNextStepID: "notify"},
			{ID: "notify", Name: "Notify", TaskType: "machine", MachineTask: map[string]any{"handler": "send"}, EndWorkflow: true},
			{ID: "reject", Name: "Reject", TaskType: "external", EndWorkflow: true},
		},
	}
}

func stepStates(t *testing.T, c *taskrouting.Client, runID string) map[string]string {
	t.Helper()
	view, err := c.Runs.Steps(context.Background(), runID)
	require.NoError(t, err)
	out := map[string]string{}
	for _, s := range view.Steps {
		out[s.StepID] = s.State
	}
	return out
}

// TestWorkflowRunAcrossItsSteps drives runs across their time boundaries on the manual clock:
// an assignment step routed to a worker and branched on its result, an external step ended
// by the caller or by its timeout, a machine step that completes at once, cancel and fail.
func TestWorkflowRunAcrossItsSteps(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()

	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	def, err := c.Workflows.Save(ctx, "wf_onboard", onboarding())
	require.NoError(t, err)
	assert.Equal(t, int64(1), def.Version)
	assert.Equal(t, 5*time.Minute, def.Steps[1].Timeout)
	assert.True(t, def.Steps[2].EndWorkflow)

	// Run 1: collect -> (ok) review -> completed by the caller -> notify (machine) -> done.
	run, err := c.Workflows.Run(ctx, "wf_onboard", taskrouting.StartRunParams{Context: map[string]any{"customerId": "c_1"}, InitiatorWorkerID: "agent_1"})
	require.NoError(t, err)
	assert.Equal(t, "active", run.Status)
	assert.Equal(t, "collect", run.CurrentStepID)
	require.NotEmpty(t, run.CurrentTaskID)
	task, err := c.Tasks.Get(ctx, run.CurrentTaskID)
	require.NoError(t, err)
	assert.Equal(t, "pending", string(task.Status), "the assignment step is a task the matcher routes at once")
	assert.Equal(t, "agent_1", task.WorkerID)

	clk.Advance(time.Minute)
	_, err = c.Decisions.Accept(ctx, run.CurrentTaskID, "agent_1")
	require.NoError(t, err)
	_, err = c.Decisions.Complete(ctx, run.CurrentTaskID, "agent_1", map[string]any{"ok": true})
	require.NoError(t, err)
	got, err := c.Runs.Get(ctx, run.ID)
	require.NoError(t, err)
	wantHistory := []taskrouting.WorkflowRunHistoryEntry{{StepID: "collect", TaskID: run.CurrentTaskID, WorkerID: "agent_1",
		CompletedAt: t0.Add(time.Minute), Result: map[string]any{"ok": true}}}
	assert.Equal(t, "review", got.CurrentStepID, "result.ok routes to review")
	assert.Empty(t, got.CurrentTaskID)
	if d := cmp.Diff(wantHistory, got.History); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	assert.Equal(t, map[string]string{"collect": "completed", "review": "awaiting_callback", "notify": "pending", "reject": "pending"},
		stepStates(t, c, run.ID))

	_, err = c.Runs.CompleteStep(ctx, run.ID, "notify", nil)
	assert.ErrorIs(t, err, taskrouting.ErrInvalidState, "not the step the run waits on")
	_, err = c.Runs.CompleteStep(ctx, run.ID, "nope", nil)
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)

	clk.Advance(5*time.Minute - time.Millisecond) // one millisecond before review times out
	got, err = c.Runs.CompleteStep(ctx, run.ID, "review", map[string]any{"approved": true})
	require.NoError(t, err)
	assert.Equal(t, "completed", got.Status, "notify (machine) completes at once and ends the run")
	assert.Empty(t, got.CurrentStepID)
	assert.Equal(t, []string{"collect", "review", "notify"}, historySteps(got))
	assert.Equal(t, map[string]any{"approved": true}, got.History[1].Result)

	// Run 2: collect -> review, which times out on the clock: the run fails.
	run2, err := c.Workflows.Run(ctx, "wf_onboard", taskrouting.StartRunParams{})
	require.NoError(t, err)
	completeTask(t, c, run2.CurrentTaskID, map[string]any{"ok": true})
	clk.Advance(5*time.Minute - time.Millisecond)
	assert.Equal(t, "awaiting_callback", stepStates(t, c, run2.ID)["review"])
	clk.Advance(time.Millisecond)
	got, err = c.Runs.Get(ctx, run2.ID)
	require.NoError(t, err)
	assert.Equal(t, "failed", got.Status, "the step timed out exactly at its deadline")
	view, err := c.Runs.Steps(ctx, run2.ID)
	require.NoError(t, err)
	assert.Equal(t, "failed", view.Status)
	assert.Equal(t, taskrouting.WorkflowRunStep{StepID: "review", Name: "Review", TaskType: "external", State: "failed",
		CompletedAt: clk.Now(), Result: map[string]any{"error": "step review timed out after 300000 ms"}}, view.Steps[1])

	// Run 3: a result without ok takes the default route; the caller fails the step.
	run3, err := c.Workflows.Run(ctx, "wf_onboard", taskrouting.StartRunParams{})
	require.NoError(t, err)
	completeTask(t, c, run3.CurrentTaskID, map[string]any{"ok": false})
	got, err = c.Runs.FailStep(ctx, run3.ID, "reject", "customer unreachable")
	require.NoError(t, err)
	assert.Equal(t, "failed", got.Status)
	assert.Equal(t, map[string]string{"collect": "completed", "review": "pending", "notify": "pending", "reject": "failed"},
		stepStates(t, c, run3.ID))

	// Run 4: cancelled while its assignment is offered: the task is cancelled too.
	run4, err := c.Workflows.Run(ctx, "wf_onboard", taskrouting.StartRunParams{})
	require.NoError(t, err)
	got, err = c.Runs.Cancel(ctx, run4.ID)
	require.NoError(t, err)
	assert.Equal(t, "cancelled", got.Status)
	task, err = c.Tasks.Get(ctx, run4.CurrentTaskID)
	require.NoError(t, err)
	assert.Equal(t, "cancelled", string(task.Status))
	_, err = c.Runs.Cancel(ctx, run4.ID)
	assert.ErrorIs(t, err, taskrouting.ErrInvalidState, "a run already over")

	// Listings, newest first, filtered.
	var ids []string
	for r, err := range c.Workflows.ListRuns(ctx, "wf_onboard", taskrouting.ListRunsParams{Limit: 3}) {
		require.NoError(t, err)
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{run4.ID, run3.ID, run2.ID, run.ID}, ids, "two pages of 3 and 1")
	page, err := c.Runs.ListPage(ctx, taskrouting.ListRunsParams{Status: "failed", WorkflowID: "wf_onboard"})
	require.NoError(t, err)
	assert.Equal(t, []string{run3.ID, run2.ID}, []string{page.Runs[0].ID, page.Runs[1].ID})
	assert.Empty(t, page.NextCursor)
}

func historySteps(r *taskrouting.WorkflowRun) []string {
	var out []string
	for _, h := range r.History {
		out = append(out, h.StepID)
	}
	return out
}

func completeTask(t *testing.T, c *taskrouting.Client, taskID string, result map[string]any) {
	t.Helper()
	ctx := context.Background()
	_, err := c.Decisions.Accept(ctx, taskID, "agent_1")
	require.NoError(t, err)
	_, err = c.Decisions.Complete(ctx, taskID, "agent_1", result)
	require.NoError(t, err)
}

// TestWorkflowSaveChecksTheGraph: a definition that cannot run is 400 invalid_workflow and
// stores nothing; a replace bumps the version and leaves a started run on its own version.
func TestWorkflowSaveChecksTheGraph(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t, mockserver.WithClock(mockserver.NewManualClock(time.UnixMilli(1763700000000))))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	ext := func(id, next string) taskrouting.WorkflowStep {
		return taskrouting.WorkflowStep{ID: id, Name: id, TaskType: "external", DefaultNextStepID: next}
	}
	cases := []struct {
		name string
		p    taskrouting.SaveWorkflowParams
	}{
		{"missing initial step", taskrouting.SaveWorkflowParams{Name: "x", InitialStepID: "missing", Steps: []taskrouting.WorkflowStep{ext("a", "")}}},
		{"dangling next step", taskrouting.SaveWorkflowParams{Name: "x", Steps: []taskrouting.WorkflowStep{ext("a", "b")}}},
		{"unreachable step", taskrouting.SaveWorkflowParams{Name: "x", Steps: []taskrouting.WorkflowStep{ext("a", ""), ext("b", "")}}},
		{"duplicate step id", taskrouting.SaveWorkflowParams{Name: "x", Steps: []taskrouting.WorkflowStep{ext("a", "a"), ext("a", "")}}},
		{"machine step without handler", taskrouting.SaveWorkflowParams{Name: "x", Steps: []taskrouting.WorkflowStep{{ID: "m", Name: "m", TaskType: "machine"}}}},
	}
	for _, tc := range cases {
		_, err := c.Workflows.Save(ctx, "wf_bad", tc.p)
		var apiErr *taskrouting.APIError
		if assert.True(t, errors.As(err, &apiErr), tc.name) {
			assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode, tc.name)
			assert.Equal(t, taskrouting.CodeInvalidWorkflow, apiErr.Code, tc.name)
		}
	}
	list, err := c.Workflows.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, list, "nothing stored")

	v1, err := c.Workflows.Save(ctx, "wf", taskrouting.SaveWorkflowParams{Name: "One", Steps: []taskrouting.WorkflowStep{ext("a", "")}})
	require.NoError(t, err)
	run, err := c.Workflows.Run(ctx, "wf", taskrouting.StartRunParams{})
	require.NoError(t, err)
	v2, err := c.Workflows.Save(ctx, "wf", taskrouting.SaveWorkflowParams{Name: "Two", Steps: []taskrouting.WorkflowStep{ext("b", "")}})
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 2}, []int64{v1.Version, v2.Version})
	got, err := c.Runs.CompleteStep(ctx, run.ID, "a", nil)
	require.NoError(t, err, "the run keeps the definition it started with")
	assert.Equal(t, int64(1), got.DefinitionVersion)
	assert.Equal(t, "completed", got.Status)

	list, err = c.Workflows.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []taskrouting.WorkflowSummary{{ID: "wf", Name: "Two"}}, list)
	require.NoError(t, c.Workflows.Remove(ctx, "wf"))
	_, err = c.Workflows.Get(ctx, "wf")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
	_, err = c.Workflows.Run(ctx, "wf", taskrouting.StartRunParams{})
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
	_, err = c.Runs.Get(ctx, run.ID)
	assert.NoError(t, err, "runs outlive their definition")
}

// TestWorkflowFailurePolicies: continue goes on past a failed step, retry enters it again
// up to maxRetries times and then fails the run.
func TestWorkflowFailurePolicies(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t, mockserver.WithClock(mockserver.NewManualClock(time.UnixMilli(1763700000000))))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	_, err := c.Workflows.Save(ctx, "wf", taskrouting.SaveWorkflowParams{Name: "Policies", Steps: []taskrouting.WorkflowStep{
		{ID: "soft", Name: "Soft", TaskType: "external", FailurePolicy: "continue", DefaultNextStepID: "hard"},
		{ID: "hard", Name: "Hard", TaskType: "external", FailurePolicy: "retry", MaxRetries: taskrouting.Ptr(1)},
	}})
	require.NoError(t, err)
	run, err := c.Workflows.Run(ctx, "wf", taskrouting.StartRunParams{})
	require.NoError(t, err)

	got, err := c.Runs.FailStep(ctx, run.ID, "soft", "")
	require.NoError(t, err)
	assert.Equal(t, []string{"active", "hard"}, []string{got.Status, got.CurrentStepID}, "continue")
	got, err = c.Runs.FailStep(ctx, run.ID, "hard", "first")
	require.NoError(t, err)
	assert.Equal(t, []string{"active", "hard"}, []string{got.Status, got.CurrentStepID}, "one retry")
	got, err = c.Runs.FailStep(ctx, run.ID, "hard", "second")
	require.NoError(t, err)
	assert.Equal(t, []string{"failed", ""}, []string{got.Status, got.CurrentStepID}, "retries used up")
	view, err := c.Runs.Steps(ctx, run.ID)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"error": "second"}, view.Steps[1].Result, "the latest outcome")
	_, err = c.Runs.CompleteStep(ctx, run.ID, "hard", nil)
	assert.ErrorIs(t, err, taskrouting.ErrInvalidState, "a run already over")
}

// TestWorkflowsStayInTheirWorkspace: another workspace's workflows and runs are 404, a
// repeated run start under one idempotency key starts one run, and bad input changes nothing.
func TestWorkflowsStayInTheirWorkspace(t *testing.T) {
	t.Parallel()
	const keyB = "sk_test_workspace_b"
	srv := mockserver.Start(t, mockserver.WithClock(mockserver.NewManualClock(time.UnixMilli(1763700000000))), mockserver.WithExtraAPIKey(keyB))
	a, b := newClient(t, srv, srv.APIKey()), newClient(t, srv, keyB)
	ctx := context.Background()
	_, err := a.Workflows.Save(ctx, "wf", taskrouting.SaveWorkflowParams{Name: "A", Steps: []taskrouting.WorkflowStep{
		{ID: "cb", Name: "Callback", TaskType: "external"}}})
	require.NoError(t, err)
	run, err := a.Workflows.Run(ctx, "wf", taskrouting.StartRunParams{}, taskrouting.WithIdempotencyKey("start-1"))
	require.NoError(t, err)
	again, err := a.Workflows.Run(ctx, "wf", taskrouting.StartRunParams{}, taskrouting.WithIdempotencyKey("start-1"))
	require.NoError(t, err)
	assert.Equal(t, run.ID, again.ID, "the stored answer is replayed")

	_, err = b.Workflows.Get(ctx, "wf")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
	_, err = b.Runs.Get(ctx, run.ID)
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
	_, err = b.Runs.CompleteStep(ctx, run.ID, "cb", nil)
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
	_, err = b.Workflows.ListRunsPage(ctx, "wf", taskrouting.ListRunsParams{})
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)

	for _, body := range []string{`{"name":"x"}`, `{"name":"x","steps":[{"id":"a"}]}`, `{"name":"x","steps":[{"id":"a","name":"a","timeoutMs":"soon"}]}`, `[]`} {
		assert.Equal(t, http.StatusBadRequest, rawStatus(t, srv, http.MethodPut, "/workflows/wf", body), body)
	}
	assert.Equal(t, http.StatusBadRequest, rawStatus(t, srv, http.MethodPost, "/workflows/wf/runs", `{"unknown":1}`))
	assert.Equal(t, http.StatusBadRequest, rawStatus(t, srv, http.MethodPost, "/workflow-runs/"+run.ID+"/steps/cb/complete", `{"data":[1]}`))
	got, err := a.Workflows.Get(ctx, "wf")
	require.NoError(t, err)
	assert.Equal(t, "A", got.Name)
	page, err := a.Runs.ListPage(ctx, taskrouting.ListRunsParams{})
	require.NoError(t, err)
	assert.Len(t, page.Runs, 1)
	assert.Equal(t, "active", page.Runs[0].Status)
}

func rawStatus(t *testing.T, srv *mockserver.Server, method, path, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}
