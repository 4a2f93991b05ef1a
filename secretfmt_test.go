package taskrouting

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecretsInEveryVerb formats every type that holds a secret, as a
// value, as a pointer, held in an any and nested in a caller's struct,
// with every verb, and checks no output carries a secret, in clear or in
// hex, while the output still says what the value is.
func TestSecretsInEveryVerb(t *testing.T) {
	c, err := NewClient("https://api.example.com/v1", testKey)
	require.NoError(t, err)
	w, err := NewWorkerClient("https://api.example.com/v1")
	require.NoError(t, err)
	signIn(w)
	login := WorkerLoginParams{WorkspaceID: "ws_sandbox", WorkerID: "agent_1", PIN: NewSecret(testPIN)}
	identity := SetIdentityParams{Label: "desk 4", PIN: NewSecret(testPIN), Email: "ada@example.com"}
	callCfg := &config{bearerSet: true, bearer: testWorkerToken, redact: []string{testPIN}}

	values := map[string]struct {
		v    any
		want string // a part of the %v output that is not secret
	}{
		"Client":                      {*c, "api.example.com"},
		"*Client":                     {c, "api.example.com"},
		"WorkerClient":                {*w, "agent_1"},
		"*WorkerClient":               {w, "agent_1"},
		"*credentials":                {w.c.creds, "redacted"},
		"WorkerLoginParams":           {login, "agent_1"},
		"*WorkerLoginParams":          {&login, "agent_1"},
		"SetIdentityParams":           {identity, "desk 4"},
		"*SetIdentityParams":          {&identity, "desk 4"},
		"*config":                     {callCfg, "redacted"},
		"config":                      {*callCfg, "redacted"},
		"struct with params field":    {struct{ Login WorkerLoginParams }{login}, "agent_1"},
		"struct with *Client field":   {struct{ C *Client }{c}, "api.example.com"},
		"[]any of clients and params": {[]any{*c, *w, identity}, "desk 4"},
		"unexported Client field":     {struct{ c Client }{*c}, ""},
		"unexported WorkerClient":     {struct{ w WorkerClient }{*w}, ""},
		"*TasksService":               {c.Tasks, ""},
		"TasksService":                {*c.Tasks, ""},
		"WorkersService":              {*c.Workers, ""},
		"RequestOption with a bearer": {withBearer(testWorkerToken), ""},
		"RequestOption redacting":     {redacting(testPIN), ""},
	}
	secrets := []string{testKey, testWorkerToken, testPIN}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%X", "%10.3s", "% x"}
	for name, tt := range values {
		for _, verb := range verbs {
			out := fmt.Sprintf(verb, tt.v)
			for _, s := range secrets {
				hexed := hex.EncodeToString([]byte(s))
				if strings.Contains(out, s) || strings.Contains(strings.ToLower(out), hexed) ||
					strings.Contains(strings.ReplaceAll(strings.ToLower(out), " ", ""), hexed) {
					t.Errorf("%s with %s leaks a secret: %s", name, verb, out)
				}
			}
		}
		assert.Contains(t, fmt.Sprintf("%v", tt.v), tt.want, "%s: %%v no longer describes the value", name)
	}
}
