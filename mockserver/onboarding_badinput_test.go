package mockserver

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onboardingState is what the onboarding operations may change besides the matcher: sign-ins,
// join links, the outbox and the sessions.
type onboardingState struct {
	Identities []wireIdentity
	Links      int
	Uses       []int
	Mail       int
	Sessions   int
}

func onboardingSnapshot(srv *Server) onboardingState {
	var s onboardingState
	srv.mu.RLock()
	for _, k := range srv.keys {
		ws := srv.workspaces[k]
		ws.mu.Lock()
		s.Identities = append(s.Identities, ws.sortedIdentities()...)
		s.Links += len(ws.onboard.links)
		for _, l := range ws.onboard.links {
			s.Uses = append(s.Uses, l.useCount)
		}
		s.Mail += len(ws.onboard.outbox)
		ws.mu.Unlock()
	}
	srv.mu.RUnlock()
	srv.sessions.mu.Lock()
	s.Sessions = len(srv.sessions.tokens)
	srv.sessions.mu.Unlock()
	return s
}

// TestOnboardingBadInputChangesNothing: every onboarding operation answers bad input, another
// workspace's ids, a missing or wrong credential with a 4xx envelope and changes no state.
func TestOnboardingBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	const keyB = "sk_test_workspace_b"
	srv := Start(t, WithClock(NewManualClock(t0)), WithExtraAPIKey(keyB))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1"})
	mustAPI(t, srv, 200, "POST", "/workers/agent_1/identity", map[string]any{"label": "desk 4", "pin": "4921"})
	mustAPI(t, srv, 200, "POST", "/worker-identities/invite", map[string]any{"email": "bo@example.com", "workerId": "agent_2"})
	link := mustAPI(t, srv, 200, "POST", "/join-links", map[string]any{"label": "Open", "maxUses": 1}).json(t)
	linkID := link["link"].(map[string]any)["id"].(string)
	require.Equal(t, 200, call(t, srv, keyB, "POST", "/workers", map[string]any{"id": "worker_b"}).Status)
	require.Equal(t, 200, call(t, srv, keyB, "POST", "/workers/worker_b/identity", map[string]any{"label": "b", "pin": "4921"}).Status)
	login := call(t, srv, "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": "agent_1", "pin": "4921"})
	require.Equal(t, 200, login.Status, "%s", login.Body)
	token := login.json(t)["token"].(string)
	key := srv.APIKey()

	cases := []struct {
		name, key, method, path string
		body                    any
		status                  int
		code                    string
	}{
		{"invite without email", key, "POST", "/worker-identities/invite", map[string]any{"label": "x"}, 400, CodeValidationFailed},
		{"invite with a bad email", key, "POST", "/worker-identities/invite", map[string]any{"email": "not an address"}, 400, CodeValidationFailed},
		{"invite unknown field", key, "POST", "/worker-identities/invite", map[string]any{"email": "c@example.com", "pin": "4921"}, 400, CodeValidationFailed},
		{"invite unknown skill", key, "POST", "/worker-identities/invite", map[string]any{"email": "c@example.com", "skills": []any{map[string]any{"skillId": "nope", "level": 2}}}, 400, CodeValidationFailed},
		{"invite unknown team", key, "POST", "/worker-identities/invite", map[string]any{"email": "c@example.com", "teamIds": []string{"team_nope"}}, 400, CodeValidationFailed},
		{"invite an address in use", key, "POST", "/worker-identities/invite", map[string]any{"email": "bo@example.com", "workerId": "agent_3"}, 409, CodeIdentityExists},
		{"invite a worker with a PIN", key, "POST", "/worker-identities/invite", map[string]any{"email": "c@example.com", "workerId": "agent_1"}, 409, CodeIdentityExists},
		{"resend for a PIN sign-in", key, "POST", "/worker-identities/agent_1/invite/resend", nil, 409, CodeInvalidState},
		{"resend another workspace's worker", key, "POST", "/worker-identities/worker_b/invite/resend", nil, 404, CodeNotFound},
		{"update with nothing", key, "PATCH", "/workers/agent_1/identity", map[string]any{}, 400, CodeValidationFailed},
		{"update a bad status", key, "PATCH", "/workers/agent_1/identity", map[string]any{"status": "paused"}, 400, CodeValidationFailed},
		{"update a short PIN", key, "PATCH", "/workers/agent_1/identity", map[string]any{"pin": "12"}, 400, CodeValidationFailed},
		{"update another workspace's sign-in", key, "PATCH", "/workers/worker_b/identity", map[string]any{"label": "x"}, 404, CodeNotFound},
		{"link without label", key, "POST", "/join-links", map[string]any{"tags": []string{"x"}}, 400, CodeValidationFailed},
		{"link with 2.5 uses", key, "POST", "/join-links", map[string]any{"label": "x", "maxUses": 2.5}, 400, CodeValidationFailed},
		{"link living 30 s", key, "POST", "/join-links", map[string]any{"label": "x", "expiresInMs": 30_000}, 400, CodeValidationFailed},
		{"link for an unknown team", key, "POST", "/join-links", map[string]any{"label": "x", "teamId": "team_nope"}, 400, CodeValidationFailed},
		{"revoke another workspace's link", keyB, "DELETE", "/join-links/" + linkID, nil, 404, CodeNotFound},
		{"list with a worker token", token, "GET", "/worker-identities", nil, 401, CodeUnauthorized},
		{"join with an unknown token", "", "POST", "/worker-auth/join", map[string]any{"token": "jt_nope", "name": "Ada", "pin": "4821"}, 400, CodeInvalidToken},
		{"join with a short PIN", "", "POST", "/worker-auth/join", map[string]any{"token": "jt_nope", "name": "Ada", "pin": "12"}, 400, CodeValidationFailed},
		{"join without name", "", "POST", "/worker-auth/join", map[string]any{"token": "jt_nope", "pin": "4821"}, 400, CodeValidationFailed},
		{"accept an unknown token", "", "POST", "/worker-auth/accept-invite", map[string]any{"token": "inv_nope", "pin": "4821"}, 400, CodeInvalidToken},
		{"accept malformed JSON", "", "POST", "/worker-auth/accept-invite", `{"token":`, 400, CodeValidationFailed},
		{"refresh without token", "", "POST", "/worker-auth/refresh", nil, 401, CodeUnauthorized},
		{"refresh with the API key", key, "POST", "/worker-auth/refresh", nil, 401, CodeUnauthorized},
		{"change PIN wrongly", token, "POST", "/portal/me/pin", map[string]any{"currentPin": "0000", "newPin": "5555"}, 400, CodeInvalidCurrentPIN},
		{"change PIN too short", token, "POST", "/portal/me/pin", map[string]any{"currentPin": "4921", "newPin": "5"}, 400, CodeValidationFailed},
		{"locale as a number", token, "PATCH", "/portal/me", map[string]any{"locale": 7}, 400, CodeValidationFailed},
		{"skills without level", token, "PUT", "/portal/me/skills", map[string]any{"skills": []any{map[string]any{"skillId": "x"}}}, 400, CodeValidationFailed},
		{"skill level 6", token, "PUT", "/portal/me/skills", map[string]any{"skills": []any{map[string]any{"skillId": "x", "level": 6}}}, 400, CodeValidationFailed},
		{"unknown skill", token, "PUT", "/portal/me/skills", map[string]any{"skills": []any{map[string]any{"skillId": "x", "level": 2}}}, 400, CodeValidationFailed},
		{"latitude 91", token, "POST", "/portal/workers/me/location", map[string]any{"latitude": 91, "longitude": 0}, 400, CodeValidationFailed},
		{"location as text", token, "POST", "/portal/workers/me/location", map[string]any{"latitude": "north", "longitude": 0}, 400, CodeValidationFailed},
		{"body over 1 MiB", token, "PATCH", "/portal/me", `{"locale":"` + strings.Repeat("x", MaxBodyBytes) + `"}`, 413, CodePayloadTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, beforeOn := snapshotOf(t, srv), onboardingSnapshot(srv)
			a := call(t, srv, tc.key, tc.method, tc.path, tc.body)
			assert.Equal(t, tc.status, a.Status, "body %s", a.Body)
			assert.Equal(t, tc.code, a.errCode(t))
			assert.Empty(t, cmp.Diff(before, snapshotOf(t, srv), cmp.AllowUnexported(taskExtra{}, workerExtra{})), "state changed")
			assert.Empty(t, cmp.Diff(beforeOn, onboardingSnapshot(srv)), "onboarding state changed")
		})
	}
}
