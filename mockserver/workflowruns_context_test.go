package mockserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestStepDataMergesIntoTheRunContext: an external step completed with object data sets
// its members on the run's context (shallow: a member replaced whole); an empty object
// leaves the context as it was (data that is not an object is refused by the schema).
func TestStepDataMergesIntoTheRunContext(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "PUT", "/workflows/wf", map[string]any{"name": "wf", "initialStepId": "a", "steps": []any{
		map[string]any{"id": "a", "name": "A", "taskType": "external"}}})
	tests := []struct {
		name string
		data any
		want map[string]any
	}{
		{"object", map[string]any{"b": map[string]any{"y": 2.0}, "c": true}, map[string]any{"a": 1.0, "b": map[string]any{"y": 2.0}, "c": true}},
		{"one member", map[string]any{"c": "z"}, map[string]any{"a": 1.0, "b": map[string]any{"x": 1.0}, "c": "z"}},
		{"empty object", map[string]any{}, map[string]any{"a": 1.0, "b": map[string]any{"x": 1.0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := mustAPI(t, srv, 201, "POST", "/workflows/wf/runs", map[string]any{"context": map[string]any{"a": 1, "b": map[string]any{"x": 1}}}).json(t)
			a := mustAPI(t, srv, 200, "POST", "/workflow-runs/"+run["id"].(string)+"/steps/a/complete", map[string]any{"data": tc.data})
			var got struct{ Context map[string]any }
			require.NoError(t, json.Unmarshal(a.Body, &got))
			if d := cmp.Diff(tc.want, got.Context); d != "" {
				t.Errorf("context (-want +got):\n%s", d)
			}
		})
	}
}
