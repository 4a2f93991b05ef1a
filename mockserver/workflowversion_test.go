package mockserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// workflows.save numbers versions: a new definition without a version is 1, a replacement
// without one the stored version plus one, and a version sent is kept as sent. metadata is
// stored as sent (null when absent: a save replaces the whole definition), and workflows.get
// reads back what was saved.
func TestWorkflowSaveVersionsAndMetadata(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	steps := []any{map[string]any{"id": "collect", "name": "Collect docs", "taskType": "assignment", "defaultNextStepId": nil,
		"assignmentTemplate": map[string]any{"tags": []string{"ops"}}}}
	type saved struct {
		Version          int64           `json:"version"`
		DefaultTimeoutMs *int64          `json:"defaultTimeoutMs"`
		Metadata         json.RawMessage `json:"metadata"`
	}
	ten := int64(10000)
	tests := []struct {
		name  string
		id    string
		extra map[string]any
		want  saved
	}{
		{"new, no version", "wf_a", nil, saved{1, nil, json.RawMessage("null")}},
		{"replaced, no version", "wf_a", map[string]any{"metadata": map[string]any{"owner": "ops"}}, saved{2, nil, json.RawMessage(`{"owner":"ops"}`)}},
		{"replaced with version 7", "wf_a", map[string]any{"version": 7, "defaultTimeoutMs": 10000}, saved{7, &ten, json.RawMessage("null")}},
		{"replaced again, no version: metadata not kept from before", "wf_a", nil, saved{8, nil, json.RawMessage("null")}},
		{"new with version 3", "wf_b", map[string]any{"version": 3}, saved{3, nil, json.RawMessage("null")}},
	}
	for _, tc := range tests {
		body := map[string]any{"name": "Onboarding", "initialStepId": "collect", "steps": steps}
		for k, v := range tc.extra {
			body[k] = v
		}
		var answered, read saved
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "PUT", "/workflows/"+tc.id, body).Body, &answered))
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "GET", "/workflows/"+tc.id, nil).Body, &read))
		if d := cmp.Diff(tc.want, answered); d != "" {
			t.Errorf("%s: save answer (-want +got):\n%s", tc.name, d)
		}
		if d := cmp.Diff(tc.want, read); d != "" {
			t.Errorf("%s: workflows.get (-want +got):\n%s", tc.name, d)
		}
	}
}
