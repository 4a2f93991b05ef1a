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

// signoffOnly is a one-step workflow whose single external step waits for
// an outside system's CompleteStep or FailStep.
func signoffOnly() taskrouting.SaveWorkflowParams {
	return taskrouting.SaveWorkflowParams{Name: "Sign-off", Steps: []taskrouting.WorkflowStep{
		{ID: "signoff", Name: "Finance sign-off", TaskType: "external", EndWorkflow: true}}}
}

// startRuns saves workflowID as signoffOnly and starts n runs of it, one
// minute apart on the server's clock.
func (sb *sandbox) startRuns(workflowID string, n int) []*taskrouting.WorkflowRun {
	ctx := context.Background()
	if _, err := sb.c.Workflows.Save(ctx, workflowID, signoffOnly()); err != nil {
		panic(err)
	}
	var runs []*taskrouting.WorkflowRun
	for range n {
		sb.clock.Advance(time.Minute)
		run, err := sb.c.Workflows.Run(ctx, workflowID, taskrouting.StartRunParams{})
		if err != nil {
			panic(err)
		}
		runs = append(runs, run)
	}
	return runs
}

// Get returns a definition with its whole graph, as Save stored it.
func ExampleWorkflowsService_Get() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Workflows.Save(ctx, "wf_refund", approval()); err != nil {
		panic(err)
	}

	wf, err := c.Workflows.Get(ctx, "wf_refund")
	if err != nil {
		panic(err)
	}
	fmt.Println(wf.Name, "version", wf.Version)
	for _, s := range wf.Steps {
		fmt.Println(s.ID, s.TaskType, s.Timeout)
	}
	_, err = c.Workflows.Get(ctx, "wf_missing")
	fmt.Println(errors.Is(err, taskrouting.ErrNotFound))
	// Output:
	// Refund approval version 1
	// review assignment 0s
	// signoff external 1h0m0s
	// true
}

// List names every definition, without the graphs; Get fetches one whole.
func ExampleWorkflowsService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Workflows.Save(ctx, "wf_refund", approval()); err != nil {
		panic(err)
	}
	if _, err := c.Workflows.Save(ctx, "wf_signoff", signoffOnly()); err != nil {
		panic(err)
	}

	all, err := c.Workflows.List(ctx)
	if err != nil {
		panic(err)
	}
	for _, wf := range all {
		fmt.Println(wf.ID, wf.Name)
	}
	// Output:
	// wf_refund Refund approval
	// wf_signoff Sign-off
}

// Remove deletes a definition; it is gone from Get and List.
func ExampleWorkflowsService_Remove() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Workflows.Save(ctx, "wf_refund", approval()); err != nil {
		panic(err)
	}

	if err := c.Workflows.Remove(ctx, "wf_refund"); err != nil {
		panic(err)
	}
	_, err := c.Workflows.Get(ctx, "wf_refund")
	fmt.Println("found:", !errors.Is(err, taskrouting.ErrNotFound))
	all, err := c.Workflows.List(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("definitions:", len(all))
	// Output:
	// found: false
	// definitions: 0
}

// ListRuns walks one workflow's runs, newest first, fetching pages as the
// loop asks for them; other workflows' runs are not in it.
func ExampleWorkflowsService_ListRuns() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	runs := sb.startRuns("wf_signoff", 3)
	sb.startRuns("wf_other", 1)
	if _, err := c.Runs.CompleteStep(ctx, runs[0].ID, "signoff", nil); err != nil {
		panic(err)
	}

	n := 0
	for r, err := range c.Workflows.ListRuns(ctx, "wf_signoff", taskrouting.ListRunsParams{Limit: 2}) {
		if err != nil {
			panic(err)
		}
		n++
		fmt.Println(r.WorkflowID, r.Status, r.CreatedAt.Format(time.Kitchen))
	}
	fmt.Println(n, "runs")
	// Output:
	// wf_signoff active 4:43AM
	// wf_signoff active 4:42AM
	// wf_signoff completed 4:41AM
	// 3 runs
}

// ListRunsPage fetches one page at a time: pass NextCursor back for the
// next one; it is "" on the last page.
func ExampleWorkflowsService_ListRunsPage() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.startRuns("wf_signoff", 3)

	p := taskrouting.ListRunsParams{Limit: 2}
	for {
		page, err := c.Workflows.ListRunsPage(ctx, "wf_signoff", p)
		if err != nil {
			panic(err)
		}
		fmt.Println("page of", len(page.Runs), "more:", page.NextCursor != "")
		if page.NextCursor == "" {
			break
		}
		p.Cursor = page.NextCursor
	}
	// Output:
	// page of 2 more: true
	// page of 1 more: false
}

// Get reads one run: where it stands and the version of the definition it
// runs.
func ExampleRunsService_Get() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	started := sb.startRuns("wf_signoff", 1)[0]

	run, err := c.Runs.Get(ctx, started.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(run.ID == started.ID, run.WorkflowID, run.Status, run.CurrentStepID, run.DefinitionVersion)
	_, err = c.Runs.Get(ctx, "run_missing")
	fmt.Println(errors.Is(err, taskrouting.ErrNotFound))
	// Output:
	// true wf_signoff active signoff 1
	// true
}

// List walks the workspace's runs, newest first, across workflows unless
// WorkflowID narrows it; Status narrows it too.
func ExampleRunsService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	runs := sb.startRuns("wf_signoff", 2)
	sb.startRuns("wf_other", 1)
	if _, err := c.Runs.Cancel(ctx, runs[0].ID); err != nil {
		panic(err)
	}

	for _, p := range []taskrouting.ListRunsParams{{}, {WorkflowID: "wf_signoff"}, {Status: "active"}} {
		n := 0
		for _, err := range c.Runs.List(ctx, p) {
			if err != nil {
				panic(err)
			}
			n++
		}
		fmt.Printf("workflow %q status %q: %d runs\n", p.WorkflowID, p.Status, n)
	}
	// Output:
	// workflow "" status "": 3 runs
	// workflow "wf_signoff" status "": 2 runs
	// workflow "" status "active": 2 runs
}

// ListPage is one page of List; a page shorter than the limit with no
// NextCursor is the last.
func ExampleRunsService_ListPage() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.startRuns("wf_signoff", 2)
	sb.startRuns("wf_other", 1)

	page, err := c.Runs.ListPage(ctx, taskrouting.ListRunsParams{Limit: 2})
	if err != nil {
		panic(err)
	}
	for _, r := range page.Runs {
		fmt.Println(r.WorkflowID, r.Status)
	}
	fmt.Println("more:", page.NextCursor != "")
	// Output:
	// wf_other active
	// wf_signoff active
	// more: true
}

// CompleteStep ends an external step with the outside system's result,
// which the run's history keeps; a step the run does not wait on is
// ErrInvalidState.
func ExampleRunsService_CompleteStep() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	run := sb.startRuns("wf_signoff", 1)[0]

	done, err := c.Runs.CompleteStep(ctx, run.ID, "signoff", map[string]any{"approved": true})
	if err != nil {
		panic(err)
	}
	h := done.History[0]
	fmt.Println(done.Status, h.StepID, h.Result["approved"])
	_, err = c.Runs.CompleteStep(ctx, run.ID, "signoff", nil)
	fmt.Println(errors.Is(err, taskrouting.ErrInvalidState))
	// Output:
	// completed signoff true
	// true
}

// FailStep reports that the outside system could not do its step; with
// the default failure policy (abort) the run fails, and the step keeps the
// message.
func ExampleRunsService_FailStep() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	run := sb.startRuns("wf_signoff", 1)[0]

	failed, err := c.Runs.FailStep(ctx, run.ID, "signoff", "ledger unavailable")
	if err != nil {
		panic(err)
	}
	fmt.Println(failed.Status)
	view, err := c.Runs.Steps(ctx, run.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(view.Steps[0].StepID, view.Steps[0].State, view.Steps[0].Result["error"])
	// Output:
	// failed
	// signoff failed ledger unavailable
}
