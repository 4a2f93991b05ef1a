package taskrouting

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sessionErr keeps the error of a call that also returns the session
// (Login), for tests that check only the error.
func sessionErr(_ *WorkerSession, err error) error { return err }

// TestOnboardingSecretsInEveryVerb formats every onboarding type that holds a
// secret (a token, a PIN, an invite or join URL) with every verb, as a
// value, a pointer and inside a caller's struct, and checks none leaks.
func TestOnboardingSecretsInEveryVerb(t *testing.T) {
	const inviteURL = "https://app.example/v1/worker-auth/invite?token=inv_5ecretInvite"
	const joinURL = "https://app.example/join/jt_5ecretJoin"
	sess := sessionOfToken("agent_1", testWorkerToken, t0)
	join := JoinParams{Token: NewSecret("jt_5ecretJoin"), Name: "Ada", PIN: NewSecret(testPIN)}
	accept := AcceptInviteParams{Token: NewSecret("inv_5ecretInvite"), PIN: NewSecret(testPIN)}
	update := UpdateIdentityParams{Label: "desk 5", PIN: NewSecret(testPIN)}
	change := ChangePINParams{CurrentPIN: NewSecret(testPIN), NewPIN: NewSecret(testPIN + "9")}
	invite := Invite{Identity: WorkerIdentity{WorkerID: "agent_1"}, EmailStatus: "sent", InviteURL: NewSecret(inviteURL)}
	link := CreatedJoinLink{Link: JoinLink{ID: "jl_1"}, JoinURL: NewSecret(joinURL)}
	values := map[string]struct {
		v    any
		want string
	}{
		"WorkerSession":                 {sess, "agent_1"},
		"*WorkerSession":                {&sess, "agent_1"},
		"unexported WorkerSession":      {struct{ s WorkerSession }{sess}, ""},
		"JoinParams":                    {join, "Ada"},
		"*JoinParams":                   {&join, "Ada"},
		"AcceptInviteParams":            {accept, "redacted"},
		"UpdateIdentityParams":          {update, "desk 5"},
		"ChangePINParams":               {change, "redacted"},
		"Invite":                        {invite, "agent_1"},
		"*Invite":                       {&invite, "agent_1"},
		"CreatedJoinLink":               {link, "jl_1"},
		"struct with an Invite field":   {struct{ I Invite }{invite}, "agent_1"},
		"[]any of sessions and results": {[]any{sess, link, invite}, "jl_1"},
	}
	secrets := []string{testWorkerToken, testPIN, "5ecretInvite", "5ecretJoin"}
	for name, tt := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%X", "%10.3s", "% x"} {
			out := fmt.Sprintf(verb, tt.v)
			for _, s := range secrets {
				hexed := hex.EncodeToString([]byte(s))
				if strings.Contains(out, s) || strings.Contains(strings.ReplaceAll(strings.ToLower(out), " ", ""), hexed) {
					t.Errorf("%s with %s leaks a secret: %s", name, verb, out)
				}
			}
		}
		assert.Contains(t, fmt.Sprintf("%v", tt.v), tt.want, "%s: %%v no longer describes the value", name)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "session", sess, "join", join, "accept", accept, "update", update,
		"change", change, "invite", invite, "link", link)
	for _, s := range secrets {
		assert.NotContains(t, buf.String(), s, "slog leaks a secret")
	}
}

// TestOnboardingErrorsRedactSecrets: a server that echoes the PIN or the token it was sent
// does not put them into the client's error.
func TestOnboardingErrorsRedactSecrets(t *testing.T) {
	echo := `{"error":{"code":"invalid_token","message":"token jt_5ecretJoin with pin ` + testPIN + ` refused"}}`
	srv, _ := serveOnce(t, 400, map[string]string{"Content-Type": "application/json"}, echo)
	w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
	_, err := w.Join(context.Background(), JoinParams{Token: NewSecret("jt_5ecretJoin"), Name: "Ada", PIN: NewSecret(testPIN)})
	require.ErrorIs(t, err, ErrInvalidToken)
	assert.NotContains(t, err.Error(), "5ecretJoin")
	assert.NotContains(t, err.Error(), testPIN)
	signIn(w)
	err = w.ChangePIN(context.Background(), ChangePINParams{CurrentPIN: NewSecret(testPIN), NewPIN: NewSecret("5ecretJoin")})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "5ecretJoin")
	assert.NotContains(t, err.Error(), testPIN)
}
