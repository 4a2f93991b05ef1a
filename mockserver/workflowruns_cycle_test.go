package mockserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestMachineStepCycleEndsTheRun: machine steps complete at once, so a cycle of them would
// never stop; a run that enters more than 10,000 steps fails the step it was entering, the
// 10,001st (here the cycle's first step again), and ends there.
func TestMachineStepCycleEndsTheRun(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "PUT", "/workflows/loop", map[string]any{"name": "loop", "initialStepId": "a", "steps": []any{
		map[string]any{"id": "a", "name": "A", "taskType": "machine", "machineTask": map[string]any{"handler": "h"}, "defaultNextStepId": "b"},
		map[string]any{"id": "b", "name": "B", "taskType": "machine", "machineTask": map[string]any{"handler": "h"}, "defaultNextStepId": "a"}}})
	run := mustAPI(t, srv, 201, "POST", "/workflows/loop/runs", map[string]any{}).json(t)
	var view struct {
		Status string `json:"status"`
		Steps  []struct {
			StepID string          `json:"stepId"`
			State  string          `json:"state"`
			Result json.RawMessage `json:"result"`
		} `json:"steps"`
	}
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/workflow-runs/"+run["id"].(string)+"/steps", nil).Body, &view))
	type step struct{ ID, State, Result string }
	got := []step{}
	for _, s := range view.Steps {
		got = append(got, step{s.StepID, s.State, string(s.Result)})
	}
	want := []step{{"a", "failed", `{"error":"the run entered more than 10000 steps"}`}, {"b", "completed", "null"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	require.Equal(t, "failed", view.Status)
	require.Equal(t, "failed", run["status"])
}
