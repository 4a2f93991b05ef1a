package mockserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
)

// TestSaveWorkflowRefusesBadStepLimits: the members api/openapi.json leaves open on a
// workflow (defaultTimeoutMs has no minimum; a step's timeoutMs, maxRetries and
// failurePolicy are not described) are checked by the server: each bad value is a 400
// naming the member, nothing is stored, and zero values and every named policy pass.
func TestSaveWorkflowRefusesBadStepLimits(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	step := func(extra map[string]any) map[string]any {
		s := map[string]any{"id": "s1", "name": "Review"}
		for k, v := range extra {
			s[k] = v
		}
		return s
	}
	bad := []struct {
		name string
		body map[string]any
		want string
	}{
		{"negative default timeout", map[string]any{"name": "Flow", "steps": []any{step(nil)}, "defaultTimeoutMs": -1}, "body/defaultTimeoutMs must be >= 0"},
		{"negative step timeout", map[string]any{"name": "Flow", "steps": []any{step(map[string]any{"timeoutMs": -0.5})}}, "body/steps/0/timeoutMs must be >= 0"},
		{"negative retries", map[string]any{"name": "Flow", "steps": []any{step(nil), map[string]any{"id": "s2", "name": "Two", "maxRetries": -1}}}, "body/steps/1/maxRetries must be >= 0"},
		{"unknown policy", map[string]any{"name": "Flow", "steps": []any{step(map[string]any{"failurePolicy": "skip"})}}, "body/steps/0/failurePolicy must be one of abort, continue, retry"},
		{"step member of the wrong type", map[string]any{"name": "Flow", "steps": []any{step(map[string]any{"failurePolicy": 3})}}, "body/steps/0 does not match a workflow step: failurePolicy must be string"},
	}
	for _, tc := range bad {
		a := mustAPI(t, srv, 400, "PUT", "/workflows/wf1", tc.body)
		assert.Empty(t, cmp.Diff(`{"error":{"code":"validation_failed","message":"`+tc.want+`"}}`, string(a.Body)), tc.name)
		mustAPI(t, srv, 404, "GET", "/workflows/wf1", nil)
	}
	for _, policy := range []string{"abort", "continue", "retry", ""} {
		mustAPI(t, srv, 200, "PUT", "/workflows/wf1", map[string]any{"name": "Flow", "defaultTimeoutMs": 0,
			"steps": []any{step(map[string]any{"timeoutMs": 0, "maxRetries": 0, "failurePolicy": policy})}})
	}
}
