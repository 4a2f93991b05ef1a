package taskrouting

import "testing"

func TestLookupOperation(t *testing.T) {
	tests := []struct {
		method, path, wantID, wantTemplate string
	}{
		{"POST", "/tasks", "tasks.create", "/tasks"},
		{"GET", "/tasks/t%2F1", "tasks.get", "/tasks/{id}"},
		{"GET", "/tasks/parked", "tasks.parked", "/tasks/parked"}, // the fixed segment beats {id}
		{"POST", "/tasks/t1/accept", "tasks.accept", "/tasks/{id}/accept"},
		{"POST", "/workflow-runs/r1/steps/s1/complete", "runs.completeStep", "/workflow-runs/{runId}/steps/{stepId}/complete"},
		{"GET", "/tasks//accept", "", ""}, // an empty id matches no template
		{"GET", "/no/such/path", "", ""},
		{"PATCH", "/tasks", "", ""},
	}
	for _, tt := range tests {
		op := lookupOperation(tt.method, tt.path)
		if op.id != tt.wantID || op.template != tt.wantTemplate {
			t.Errorf("%s %s = %q %q, want %q %q", tt.method, tt.path, op.id, op.template, tt.wantID, tt.wantTemplate)
		}
	}
}
