package mockserver

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// An invite's life: a re-invite keeps the sign-in (id, createdAt) and replaces the token; of
// two pending invites each token opens its own; an operator setting a PIN activates the
// sign-in once (a later PIN change keeps activatedAt), sets the email given and ends the
// invite's token.
func TestInviteReinviteAcceptAndOperatorPIN(t *testing.T) {
	clock := NewManualClock(t0)
	srv := Start(t, WithClock(clock))
	invite := func(email, workerID string) inviteAnswer {
		t.Helper()
		var out inviteAnswer
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "POST", "/worker-identities/invite", map[string]any{"email": email, "workerId": workerID}).Body, &out))
		return out
	}
	token := func(a inviteAnswer) string {
		t.Helper()
		u, err := url.Parse(a.InviteURL)
		require.NoError(t, err)
		return u.Query().Get("token")
	}
	accept := func(tok string) answer {
		return call(t, srv, "", "POST", "/worker-auth/accept-invite", map[string]any{"token": tok, "pin": "4821"})
	}
	patch := func(body map[string]any) wireIdentity {
		t.Helper()
		var out identityAnswer
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "PATCH", "/workers/w_a/identity", body).Body, &out))
		return out.Identity
	}
	iso := func(d time.Duration) *string { s := isoTime(t0.Add(d)); return &s }
	str := func(s string) *string { return &s }

	first := invite("a@example.com", "w_a")
	invite("b@example.com", "w_b")
	clock.Advance(time.Minute)
	again := invite("a@example.com", "w_a")
	want := wireIdentity{ID: first.Identity.ID, WorkerID: "w_a", Label: "a@example.com", Status: "active", Email: str("a@example.com"), CreatedAt: *iso(0)}
	if d := cmp.Diff(want, again.Identity); d != "" || again.WorkerCreated {
		t.Errorf("re-invite (workerCreated %v) (-want +got):\n%s", again.WorkerCreated, d)
	}
	if a := accept(token(first)); a.Status != http.StatusBadRequest || a.errCode(t) != CodeInvalidToken {
		t.Errorf("the replaced token: %d %s, want 400 %s", a.Status, a.Body, CodeInvalidToken)
	}

	// w_b's token opens w_b's sign-in, whichever pending invite the server looks at first.
	b := accept(token(invite("b@example.com", "w_b")))
	require.Equal(t, http.StatusOK, b.Status, "%s", b.Body)
	if got := b.json(t)["workerId"]; got != "w_b" {
		t.Errorf("accepted as %v, want w_b", got)
	}

	clock.Advance(time.Minute)
	got := patch(map[string]any{"pin": "5555", "email": "a2@example.com"})
	want.HasPIN, want.ActivatedAt, want.Email = true, iso(2*time.Minute), str("a2@example.com")
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("operator PIN on a pending invite (-want +got):\n%s", d)
	}
	if a := accept(token(again)); a.Status != http.StatusBadRequest {
		t.Errorf("the invite's token after an operator PIN: %d %s, want 400", a.Status, a.Body)
	}
	clock.Advance(time.Minute)
	if d := cmp.Diff(want, patch(map[string]any{"pin": "6666"})); d != "" {
		t.Errorf("a second PIN keeps activatedAt (-want +got):\n%s", d)
	}
	want.Email = nil
	if d := cmp.Diff(want, patch(map[string]any{"email": nil})); d != "" {
		t.Errorf("email null erases it (-want +got):\n%s", d)
	}
}
