package mockserver

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStepAnswersNameTheirVerb: completing or failing a step the run does not wait on is 409
// invalid_state, and the message says which of the two was asked.
func TestStepAnswersNameTheirVerb(t *testing.T) {
	srv := Start(t)
	mustAPI(t, srv, http.StatusOK, "PUT", "/workflows/wf", map[string]any{"name": "A",
		"steps": []map[string]any{
			{"id": "cb", "name": "Callback", "taskType": "external", "defaultNextStepId": "later"},
			{"id": "later", "name": "Later", "taskType": "external"},
		}})
	run := mustAPI(t, srv, http.StatusCreated, "POST", "/workflows/wf/runs", map[string]any{}).json(t)
	id, _ := run["id"].(string)
	var got []string
	for _, verb := range []string{"complete", "fail"} {
		a := api(t, srv, "POST", "/workflow-runs/"+id+"/steps/later/"+verb, map[string]any{})
		env, _ := a.json(t)["error"].(map[string]any)
		msg, _ := env["message"].(string)
		if a.Status != http.StatusConflict || a.errCode(t) != CodeInvalidState {
			t.Errorf("%s: %d %s, want 409 %s", verb, a.Status, a.Body, CodeInvalidState)
		}
		got = append(got, msg)
	}
	want := []string{"cannot complete step later: the run waits on step cb", "cannot fail step later: the run waits on step cb"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}
