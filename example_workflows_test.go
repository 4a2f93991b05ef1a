package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// approval is a two-step workflow: an agent reviews the case (a task the
// matcher routes), then an outside system signs it off (a callback step).
func approval() taskrouting.SaveWorkflowParams {
	return taskrouting.SaveWorkflowParams{Name: "Refund approval", Steps: []taskrouting.WorkflowStep{
		{ID: "review", Name: "Agent review", TaskType: "assignment",
			AssignmentTemplate: map[string]any{"tags": []string{"billing"}}, DefaultNextStepID: "signoff"},
		{ID: "signoff", Name: "Finance sign-off", TaskType: "external", Timeout: time.Hour, EndWorkflow: true},
	}}
}

// Save creates or replaces a definition at the id the call names; each
// replace bumps the version.
func ExampleWorkflowsService_Save() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()

	wf, err := c.Workflows.Save(ctx, "wf_refund", approval())
	if err != nil {
		panic(err)
	}
	fmt.Println(wf.ID, wf.Version, wf.InitialStepID, len(wf.Steps))

	bad := approval()
	bad.Steps[0].DefaultNextStepID = "missing"
	_, err = c.Workflows.Save(ctx, "wf_refund", bad)
	var apiErr *taskrouting.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code)
	}
	// Output:
	// wf_refund 1 review 2
	// 400 invalid_workflow
}

// Run starts a run; its assignment step becomes a task, and the run moves
// on when a worker completes it. The external step then waits for the
// caller's CompleteStep.
func ExampleWorkflowsService_Run() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "billing")
	if _, err := c.Workflows.Save(ctx, "wf_refund", approval()); err != nil {
		panic(err)
	}

	run, err := c.Workflows.Run(ctx, "wf_refund", taskrouting.StartRunParams{Context: map[string]any{"orderId": "o_1"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Status, run.CurrentStepID)
	if _, err := c.Decisions.Accept(ctx, run.CurrentTaskID, "agent_1"); err != nil {
		panic(err)
	}
	if _, err := c.Decisions.Complete(ctx, run.CurrentTaskID, "agent_1", map[string]any{"refund": 20}); err != nil {
		panic(err)
	}

	view, err := c.Runs.Steps(ctx, run.ID)
	if err != nil {
		panic(err)
	}
	for _, s := range view.Steps {
		fmt.Printf("%s %s %q\n", s.StepID, s.State, s.WorkerID)
	}
	done, err := c.Runs.CompleteStep(ctx, run.ID, "signoff", map[string]any{"approved": true})
	if err != nil {
		panic(err)
	}
	fmt.Println(done.Status, len(done.History))
	// Output:
	// active review
	// review completed "agent_1"
	// signoff awaiting_callback ""
	// completed 2
}

// A step with a timeout fails when the server's clock passes it; with the
// default failure policy the run fails with it.
func ExampleRunsService_Steps() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	_, err := c.Workflows.Save(ctx, "wf_signoff", taskrouting.SaveWorkflowParams{Name: "Sign-off", Steps: []taskrouting.WorkflowStep{
		{ID: "signoff", Name: "Finance sign-off", TaskType: "external", Timeout: time.Hour}}})
	if err != nil {
		panic(err)
	}
	run, err := c.Workflows.Run(ctx, "wf_signoff", taskrouting.StartRunParams{})
	if err != nil {
		panic(err)
	}

	sb.clock.Advance(time.Hour)
	view, err := c.Runs.Steps(ctx, run.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(view.Status, view.Steps[0].State, view.Steps[0].Result["error"])
	// Output: failed failed step signoff timed out after 3600000 ms
}

// Cancel stops an active run where it is; cancelling it again is
// ErrInvalidState.
func ExampleRunsService_Cancel() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Workflows.Save(ctx, "wf_refund", approval()); err != nil {
		panic(err)
	}
	run, err := c.Workflows.Run(ctx, "wf_refund", taskrouting.StartRunParams{})
	if err != nil {
		panic(err)
	}

	run, err = c.Runs.Cancel(ctx, run.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Status)
	_, err = c.Runs.Cancel(ctx, run.ID)
	fmt.Println(errors.Is(err, taskrouting.ErrInvalidState))
	for r, err := range c.Runs.List(ctx, taskrouting.ListRunsParams{Status: "cancelled"}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(r.WorkflowID, r.Status)
	}
	// Output:
	// cancelled
	// true
	// wf_refund cancelled
}
