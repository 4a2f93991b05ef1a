package taskrouting

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const testJoinToken = "jt_5ecret_JoinToken_DoNotLeak_77aa"

// echoForms are the ways a server may quote a secret back in an error message.
var echoForms = map[string]func(string) string{
	"as is":        func(s string) string { return s },
	"quoted":       func(s string) string { return fmt.Sprintf("%q", s) },
	"upper case":   strings.ToUpper,
	"lower case":   strings.ToLower,
	"all escaped":  allEscaped,
	"ALL ESCAPED":  func(s string) string { return strings.ToUpper(allEscaped(s)) },
	"json in json": func(s string) string { b, _ := json.Marshal(map[string]string{"pin": s}); return string(b) },
	"truncated":    func(s string) string { return s[:min(len(s), max(minEcho, len(s)-4))] + "…" },
	"truncated, upper case": func(s string) string {
		return strings.ToUpper(s[:min(len(s), max(minEcho, len(s)-4))])
	},
}

// echoServer answers every request 400 with a message quoting, in the form the test sets,
// the bearer and every secret member of the body.
func echoServer(t *testing.T, form *func(string) string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var echoes []string
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			echoes = append(echoes, (*form)(tok))
		}
		body, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		for _, k := range []string{"pin", "token", "currentPin", "newPin", "secret"} {
			if s, ok := m[k].(string); ok {
				echoes = append(echoes, (*form)(s))
			}
		}
		env, _ := json.Marshal(map[string]any{"error": map[string]string{
			"code": "validation_failed", "message": "bad request from " + strings.Join(echoes, " and "),
		}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(env)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestErrorRedactsEchoedSecrets: a server quoting the API key, a worker's or supervisor's
// token, a PIN or a join token back (quoted, escaped, in another case, cut short) does not
// put it into err.Error() or %#v.
func TestErrorRedactsEchoedSecrets(t *testing.T) {
	var form func(string) string
	srv := echoServer(t, &form)
	base := srv.URL + "/v1"
	ctx := context.Background()
	calls := map[string]struct {
		secret string
		call   func() error
	}{
		"API key": {testKey, func() error {
			c := newTestClient(t, base, WithMaxRetries(0))
			_, err := c.Workers.List(ctx)
			return err
		}},
		"worker token": {testWorkerToken, func() error {
			w := newTestWorkerClient(t, base, WithMaxRetries(0))
			signIn(w)
			_, err := w.Me(ctx)
			return err
		}},
		"supervisor token": {testSupervisorToken, func() error {
			_, err := signedInSupervisor(t, base, WithMaxRetries(0)).Overview(ctx)
			return err
		}},
		"PIN": {testPIN, func() error {
			w := newTestWorkerClient(t, base, WithMaxRetries(0))
			_, err := w.Login(ctx, WorkerLoginParams{WorkspaceID: "ws_1", WorkerID: "agent_1", PIN: NewSecret(testPIN)})
			return err
		}},
		"join token": {testJoinToken, func() error {
			w := newTestWorkerClient(t, base, WithMaxRetries(0))
			_, err := w.Join(ctx, JoinParams{Token: NewSecret(testJoinToken), Name: "Ada", PIN: NewSecret("4921")})
			return err
		}},
	}
	for name, tc := range calls {
		for formName, f := range echoForms {
			t.Run(name+"/"+formName, func(t *testing.T) {
				form = f
				err := tc.call()
				require.Error(t, err)
				require.Contains(t, err.Error(), "bad request from", "the server's message is kept")
				for _, out := range []string{err.Error(), fmt.Sprintf("%#v", err), fmt.Sprintf("%+v", err)} {
					low := strings.ToLower(out)
					for _, leak := range []string{tc.secret, f(tc.secret), tc.secret[:min(len(tc.secret), minEcho)]} {
						if strings.Contains(low, strings.ToLower(leak)) {
							t.Errorf("%q leaks %q", out, leak)
						}
					}
				}
			})
		}
	}
}

func TestRedactSecrets(t *testing.T) {
	tests := []struct{ in, want string }{
		{"pin 4921 refused", "pin [redacted] refused"},
		{`token "sk_test_abcdefgh" unknown`, `token "[redacted]" unknown`},
		{"SK_TEST_ABCDEFGH", "[redacted]"},
		{"sk_test_abc… cut", "[redacted]… cut"},
		{"sk_te is too short a piece to redact", "sk_te is too short a piece to redact"},
		{`\u0073\u006b\u005f\u0074\u0065\u0073\u0074`, "[redacted]"},
		{"nothing here", "nothing here"},
	}
	for _, tc := range tests {
		got := redactSecrets(tc.in, []string{"4921", "sk_test_abcdefgh"})
		if got != tc.want {
			t.Errorf("redactSecrets(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
