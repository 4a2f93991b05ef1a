package mockserver

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunStepTaskTheMatcherRefuses: a step's assignment template is open in the schema, so
// a template with an empty tag is saved; the matcher refuses the task it makes. The step
// fails with the matcher's reason and no task: nothing is created, counted against the
// queued-task limit or left mapped to the run, and the run goes on by the step's failure
// policy (here continue, to an external step).
func TestRunStepTaskTheMatcherRefuses(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)), WithLimits(Limits{QueuedTasks: 3}))
	mustAPI(t, srv, 200, "PUT", "/workflows/wf", map[string]any{"name": "wf", "initialStepId": "collect", "steps": []any{
		map[string]any{"id": "collect", "name": "Collect", "taskType": "assignment", "failurePolicy": "continue",
			"assignmentTemplate": map[string]any{"tags": []string{"en", ""}}, "defaultNextStepId": "review"},
		map[string]any{"id": "review", "name": "Review", "taskType": "external"}}})
	a := mustAPI(t, srv, 201, "POST", "/workflows/wf/runs", map[string]any{})
	run := a.json(t)
	assert.Equal(t, "3", a.Header.Get("X-Quota-Queued-Tasks-Remaining"), "no task counted")

	type step struct {
		ID, State string
		TaskID    any
		Error     string
	}
	var view struct {
		Status string `json:"status"`
		Steps  []struct {
			StepID string          `json:"stepId"`
			State  string          `json:"state"`
			TaskID any             `json:"taskId"`
			Result json.RawMessage `json:"result"`
		} `json:"steps"`
	}
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/workflow-runs/"+run["id"].(string)+"/steps", nil).Body, &view))
	var got []step
	for _, s := range view.Steps {
		var r struct{ Error string }
		if len(s.Result) > 0 {
			require.NoError(t, json.Unmarshal(s.Result, &r))
		}
		got = append(got, step{s.StepID, s.State, s.TaskID, r.Error})
	}
	want := []step{
		{"collect", "failed", nil, "match: invalid tags: a tag must not be empty"},
		{"review", "awaiting_callback", nil, ""},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	assert.Equal(t, "active", view.Status, "the failure policy continues the run")
	assert.Nil(t, run["currentTaskId"])
	tasks := mustAPI(t, srv, 200, "GET", "/tasks", nil).json(t)
	assert.Empty(t, tasks["data"], "no task was made")
	assert.Empty(t, srv.EventsWhere(EventFilter{}), "no event of a task")
	assert.Empty(t, srv.workspaces[srv.keys[0]].flows.byTask, "no task mapped to the run")
}

// TestRunForgetsItsStepTaskWhenTheStepEnds: the run's index from task to run holds a task
// only while its step waits on it. However the step ends (its task completed or cancelled,
// the step timed out, the run cancelled, the step retried after a timeout), the ended task
// leaves the index, which would otherwise keep every step task a run ever made.
func TestRunForgetsItsStepTaskWhenTheStepEnds(t *testing.T) {
	clk := NewManualClock(t0)
	srv := Start(t, WithClock(clk))
	ws := srv.workspaces[srv.keys[0]]
	mapped := func() []string {
		ws.mu.Lock()
		defer ws.mu.Unlock()
		var out []string
		for id := range ws.flows.byTask {
			out = append(out, id)
		}
		return out
	}
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}, "available": true})
	step := map[string]any{"id": "collect", "name": "Collect", "taskType": "assignment",
		"assignmentTemplate": map[string]any{"tags": []string{"en"}}, "timeoutMs": 30000}
	mustAPI(t, srv, 200, "PUT", "/workflows/wf", map[string]any{"name": "wf", "steps": []any{step}})
	retry := map[string]any{"id": "collect", "name": "Collect", "taskType": "assignment", "failurePolicy": "retry", "maxRetries": 1,
		"assignmentTemplate": map[string]any{"tags": []string{"fr"}}, "timeoutMs": 30000}
	mustAPI(t, srv, 200, "PUT", "/workflows/again", map[string]any{"name": "again", "steps": []any{retry}})
	start := func(wf string) (string, string) {
		r := mustAPI(t, srv, 201, "POST", "/workflows/"+wf+"/runs", map[string]any{}).json(t)
		task := r["currentTaskId"].(string)
		require.Equal(t, []string{task}, mapped(), "the waiting step's task is mapped")
		return r["id"].(string), task
	}

	_, task := start("wf")
	mustAPI(t, srv, 200, "POST", "/tasks/"+task+"/accept", map[string]any{"workerId": "ana"})
	mustAPI(t, srv, 200, "POST", "/tasks/"+task+"/complete", map[string]any{"workerId": "ana"})
	assert.Empty(t, mapped(), "task completed")

	_, task = start("wf")
	mustAPI(t, srv, 204, "DELETE", "/tasks/"+task, nil)
	assert.Empty(t, mapped(), "task cancelled")

	run, _ := start("wf")
	mustAPI(t, srv, 200, "POST", "/workflow-runs/"+run+"/cancel", nil)
	assert.Empty(t, mapped(), "run cancelled")

	start("wf")
	clk.Advance(30 * time.Second)
	assert.Empty(t, mapped(), "step timed out")

	run, task = start("again")
	clk.Advance(30 * time.Second)
	r := mustAPI(t, srv, 200, "GET", "/workflow-runs/"+run, nil).json(t)
	again := r["currentTaskId"].(string)
	require.NotEqual(t, task, again, "the retry made a task of its own")
	assert.Equal(t, []string{again}, mapped(), "only the retry's task")
	clk.Advance(30 * time.Second)
	assert.Empty(t, mapped(), "the retry timed out too")
	assert.Equal(t, "failed", mustAPI(t, srv, 200, "GET", "/workflow-runs/"+run, nil).json(t)["status"])
}
