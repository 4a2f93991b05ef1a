package mockserver

import (
	"net/http"
	"testing"
)

// On the supervisor plane a task in a state that cannot be assigned stays 409 invalid_state,
// as on the workspace plane: only the matcher's refusals of a worker become 400
// assign_blocked.
func TestSupervisorAssignOfAFinishedTaskIsInvalidState(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, http.StatusOK, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"x"}, "available": true})
	mustAPI(t, srv, http.StatusAccepted, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"x"}})
	mustAPI(t, srv, http.StatusOK, "POST", "/tasks/t1/accept", map[string]any{"workerId": "w1"})
	mustAPI(t, srv, http.StatusOK, "POST", "/tasks/t1/complete", map[string]any{"workerId": "w1"})
	link, err := srv.InviteSupervisor(SupervisorInvite{})
	if err != nil {
		t.Fatal(err)
	}
	sv := call(t, srv, "", "POST", "/supervisor-auth/accept", map[string]any{"token": link.Token}).json(t)["token"].(string)
	a := call(t, srv, sv, "POST", "/supervisor/tasks/t1/assign", map[string]any{"workerId": "w1", "force": true})
	if a.Status != http.StatusConflict || a.errCode(t) != CodeInvalidState {
		t.Errorf("assign a completed task: %d %s, want 409 %s", a.Status, a.Body, CodeInvalidState)
	}
}
