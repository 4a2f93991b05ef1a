package mockserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// joinToken cuts the token out of a join link's joinUrl.
func joinToken(t *testing.T, created answer) string {
	t.Helper()
	u, _ := created.json(t)["joinUrl"].(string)
	i := strings.LastIndex(u, "/join/")
	require.Positive(t, i, "joinUrl %q", u)
	return u[i+len("/join/"):]
}

// A join link names its skills by key or id; they are resolved to catalogue ids when the link
// is made, and the worker who joins holds them with the link's tags. An email another sign-in
// has is 409 identity_exists, and a link whose skill left the catalogue since is refused at
// join; neither uses the link nor adds a sign-in.
func TestJoinLinkSkillsAndRefusals(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	sk := mustAPI(t, srv, http.StatusCreated, "POST", "/skills", map[string]any{"key": "forklift", "name": "Forklift"}).json(t)
	skillID := sk["id"].(string)
	skills := []any{map[string]any{"skillId": "forklift", "level": 3}}

	dock := joinToken(t, mustAPI(t, srv, http.StatusOK, "POST", "/join-links", map[string]any{"label": "Dock", "tags": []string{"dock"}, "skills": skills}))
	joined := call(t, srv, "", "POST", "/worker-auth/join", map[string]any{"token": dock, "name": "Ada", "pin": "4821", "email": "ada@example.com"})
	require.Equal(t, http.StatusOK, joined.Status, "%s", joined.Body)
	workerID := joined.json(t)["workerId"].(string)
	w := mustAPI(t, srv, http.StatusOK, "GET", "/workers/"+workerID, nil).json(t)
	wantSkills := []any{map[string]any{"skillId": skillID, "key": "forklift", "name": "Forklift", "level": 3.0, "weight": 60.0, "weightOverride": nil}}
	if d := cmp.Diff(wantSkills, w["skills"]); d != "" {
		t.Errorf("joined worker's skills (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]any{"dock"}, w["tags"]); d != "" {
		t.Errorf("joined worker's tags (-want +got):\n%s", d)
	}

	noEmail := call(t, srv, "", "POST", "/worker-auth/join", map[string]any{"token": dock, "name": "Cy", "pin": "4823"})
	require.Equal(t, http.StatusOK, noEmail.Status, "a join without email is not compared with anyone's: %s", noEmail.Body)

	// A link made while the skill existed, joined after it was removed (no worker held it).
	spare := mustAPI(t, srv, http.StatusCreated, "POST", "/skills", map[string]any{"key": "crane", "name": "Crane"}).json(t)
	crane := joinToken(t, mustAPI(t, srv, http.StatusOK, "POST", "/join-links", map[string]any{"label": "Yard", "skills": []any{map[string]any{"skillId": "crane", "level": 1}}}))
	mustAPI(t, srv, http.StatusNoContent, "DELETE", "/skills/"+spare["id"].(string), nil)

	before := onboardingSnapshot(srv)
	require.Equal(t, []int{2, 0}, before.Uses)
	again := call(t, srv, "", "POST", "/worker-auth/join", map[string]any{"token": dock, "name": "Bo", "pin": "4822", "email": "ada@example.com"})
	if again.Status != http.StatusConflict || again.errCode(t) != CodeIdentityExists {
		t.Errorf("join with an email in use: %d %s, want 409 %s", again.Status, again.Body, CodeIdentityExists)
	}
	gone := call(t, srv, "", "POST", "/worker-auth/join", map[string]any{"token": crane, "name": "Di", "pin": "4824"})
	if gone.Status != http.StatusBadRequest || gone.errCode(t) != CodeValidationFailed || !strings.Contains(string(gone.Body), spare["id"].(string)) {
		t.Errorf("join through a link whose skill was removed: %d %s, want 400 %s naming %s", gone.Status, gone.Body, CodeValidationFailed, spare["id"])
	}
	if d := cmp.Diff(before, onboardingSnapshot(srv)); d != "" {
		t.Errorf("state after the refused joins (-want +got):\n%s", d)
	}
}
