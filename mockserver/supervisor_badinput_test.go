package mockserver

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSupervisorPlaneBadInputChangesNothing: bad input on the supervisor plane and on the
// session planes' push routes is a 4xx envelope and leaves tasks, workers, events, links,
// sessions and push registrations as they were.
func TestSupervisorPlaneBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true, "maxBacklogSize": 1})
	mustAPI(t, srv, 200, "POST", "/workers/agent_1/identity", map[string]any{"label": "desk 4", "pin": "4921"})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_2", "tags": []string{"english"}})
	login := call(t, srv, "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": "agent_1", "pin": "4921"})
	require.Equal(t, 200, login.Status, "%s", login.Body)
	worker := login.json(t)["token"].(string)
	link, err := srv.InviteSupervisor(SupervisorInvite{})
	require.NoError(t, err)
	accept := call(t, srv, "", "POST", "/supervisor-auth/accept", map[string]any{"token": link.Token})
	require.Equal(t, 200, accept.Status, "%s", accept.Body)
	sv := accept.json(t)["token"].(string)
	sub := map[string]any{"endpoint": "https://p", "keys": map[string]any{"p256dh": "k", "auth": "a"}}

	cases := []struct {
		name, key, method, path string
		body                    any
		ctype                   string
		status                  int
		code                    string
	}{
		{"accept a spent link", "", "POST", "/supervisor-auth/accept", map[string]any{"token": link.Token}, "", 400, CodeInvalidToken},
		{"accept without token", "", "POST", "/supervisor-auth/accept", map[string]any{}, "", 400, CodeValidationFailed},
		{"accept with an unknown field", "", "POST", "/supervisor-auth/accept", map[string]any{"token": "x", "pin": "1"}, "", 400, CodeValidationFailed},
		{"priority not a number", sv, "POST", "/supervisor/tasks/task_1/priority", map[string]any{"priority": "high"}, "", 400, CodeValidationFailed},
		{"priority missing", sv, "POST", "/supervisor/tasks/task_1/priority", map[string]any{}, "", 400, CodeValidationFailed},
		{"priority malformed JSON", sv, "POST", "/supervisor/tasks/task_1/priority", `{"priority":`, "", 400, CodeValidationFailed},
		{"priority of an unknown task", sv, "POST", "/supervisor/tasks/nope/priority", map[string]any{"priority": 1}, "", 404, CodeNotFound},
		{"assign without worker", sv, "POST", "/supervisor/tasks/task_2/assign", map[string]any{"force": true}, "", 400, CodeValidationFailed},
		{"assign worker id too long", sv, "POST", "/supervisor/tasks/task_2/assign", map[string]any{"workerId": strings.Repeat("w", 129)}, "", 400, CodeValidationFailed},
		{"assign to a full worker", sv, "POST", "/supervisor/tasks/task_2/assign", map[string]any{"workerId": "agent_1"}, "", 400, CodeAssignBlocked},
		{"assign to an unknown worker", sv, "POST", "/supervisor/tasks/task_2/assign", map[string]any{"workerId": "nobody", "force": true}, "", 404, CodeNotFound},
		{"release with available", sv, "POST", "/supervisor/workers/agent_1/availability", map[string]any{"available": true, "releaseBacklog": true}, "", 400, CodeInvalidBody},
		{"availability wrong type", sv, "POST", "/supervisor/workers/agent_1/availability", map[string]any{"available": "no"}, "", 400, CodeValidationFailed},
		{"availability of an unknown worker", sv, "POST", "/supervisor/workers/nobody/availability", map[string]any{"available": false}, "", 404, CodeNotFound},
		{"body over 1 MiB", sv, "POST", "/supervisor/tasks/task_1/priority", `{"priority":1,"pad":"` + strings.Repeat("x", MaxBodyBytes) + `"}`, "", 413, CodePayloadTooLarge},
		{"not JSON", sv, "POST", "/supervisor/tasks/task_1/priority", "priority=1", "text/plain", 415, CodeUnsupportedMedia},
		{"a query parameter", sv, "GET", "/supervisor/overview?team=x", nil, "", 400, CodeValidationFailed},
		{"unknown path", sv, "GET", "/supervisor/nothing", nil, "", 404, CodeNotFound},
		{"wrong method", sv, "PUT", "/supervisor/me", nil, "", 405, CodeMethodNotAllowed},
		{"supervisor subscribe without keys", sv, "POST", "/supervisor/push/subscriptions", map[string]any{"endpoint": "https://p"}, "", 400, CodeValidationFailed},
		{"supervisor subscribe with an empty auth", sv, "POST", "/supervisor/push/subscriptions", map[string]any{"endpoint": "https://p", "keys": map[string]any{"p256dh": "k", "auth": ""}}, "", 400, CodeValidationFailed},
		{"supervisor unsubscribe with keys", sv, "DELETE", "/supervisor/push/subscriptions", sub, "", 400, CodeValidationFailed},
		{"worker subscribe with an unknown field", worker, "POST", "/portal/push/subscriptions", map[string]any{"endpoint": "https://p", "keys": map[string]any{"p256dh": "k", "auth": "a"}, "x": 1}, "", 400, CodeValidationFailed},
		{"device without platform", worker, "POST", "/portal/devices", map[string]any{"token": "t"}, "", 400, CodeValidationFailed},
		{"device with an empty token", worker, "POST", "/portal/devices", map[string]any{"token": "", "platform": "ios"}, "", 400, CodeValidationFailed},
		{"unregister without token", worker, "DELETE", "/portal/devices", map[string]any{}, "", 400, CodeValidationFailed},
		{"supervisor token on the worker plane", sv, "POST", "/portal/push/subscriptions", sub, "", 401, CodeUnauthorized},
		{"worker token on the supervisor plane", worker, "POST", "/supervisor/push/subscriptions", sub, "", 401, CodeUnauthorized},
		{"api key on the supervisor plane", srv.APIKey(), "POST", "/supervisor/tasks/task_1/priority", map[string]any{"priority": 5}, "", 401, CodeUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, links := snapshotOf(t, srv), srv.SupervisorLinks()
			var hdr []string
			if tc.ctype != "" {
				hdr = []string{"Content-Type", tc.ctype}
			}
			a := call(t, srv, tc.key, tc.method, tc.path, tc.body, hdr...)
			assert.Equal(t, tc.status, a.Status, "body %s", a.Body)
			assert.Equal(t, tc.code, a.errCode(t))
			assert.Empty(t, cmp.Diff(before, snapshotOf(t, srv), cmp.AllowUnexported(taskExtra{}, workerExtra{})), "state changed")
			assert.Equal(t, links, srv.SupervisorLinks())
			assert.Empty(t, srv.PushRegistrations())
		})
	}
	me := call(t, srv, sv, "GET", "/supervisor/me", nil)
	assert.Equal(t, 200, me.Status, "the session survived")
}
