package mockserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notText are string contents (as sent, between the quotes) that are not Unicode text: each
// is refused on every plane. The surrogate cases sit at the edges of the ranges the check
// compares against.
var notText = []struct{ name, raw string }{
	{"lone high surrogate", `a\ud800`},
	{"lone high surrogate, upper-case escape", `\uD800`},
	{"lone high surrogate, last of the range", `\udbff`},
	{"lone low surrogate", `\udc00`},
	{"lone low surrogate, last of the range", `\uDFFF`},
	{"two low surrogates", `\udc00\udc00`},
	{"high followed by a letter escape", `\ud800\u0041`},
	{"high followed by a high", `\ud800\udbff`},
	{"high followed by the first code point past the lows", `\ud83d\ue000`},
	{"high followed by an escaped backslash", `\ud800\\udc00`},
	{"high followed by a short escape", `\ud800\n`},
	{"high followed by an escaped backslash and low digits", `\ud800\\dc00`},
	{"high followed by an escaped quote and low digits", `\ud800\"dc00`},
	{"high followed by a letter", `\ud83dx\ude00`},
	{"lone surrogate after an escaped quote", `q\"\ud800`},
	{"lone surrogate after a valid escape", `\u0041\ud800`},
	{"invalid UTF-8 byte", "a\xffb"},
	{"truncated UTF-8 sequence", "\xc3"},
	{"a surrogate encoded as UTF-8", "\xed\xa0\x80"},
}

// isText are string contents that are Unicode text, at the same edges: each is served.
var isText = []struct{ name, raw, want string }{
	{"surrogate pair", `\ud83d\ude00`, "😀"},
	{"first surrogate pair", `\uD800\uDC00`, "\U00010000"},
	{"last surrogate pair", `\udbff\udfff`, "\U0010FFFF"},
	{"code point before the surrogates", `\ud7ff`, "\ud7ff"},
	{"code point after the surrogates", `\ue000`, "\ue000"},
	{"escaped backslash before u", `a\\ud800`, `a\ud800`},
	{"astral character as UTF-8", "😃", "😃"},
}

// TestBodyTextCheckedOnEveryPlane: on the workspace, worker and supervisor planes a string
// that is not Unicode text (bytes that are not UTF-8, a lone or mis-paired surrogate escape)
// is refused with 400 validation_failed naming the member, before anything is stored; the
// same operation with text at the same edges is served and stores the string as sent.
func TestBodyTextCheckedOnEveryPlane(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}})
	mustAPI(t, srv, 200, "POST", "/workers/agent_1/identity", map[string]any{"label": "desk 4", "pin": "4921"})
	login := call(t, srv, "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": "agent_1", "pin": "4921"})
	require.Equal(t, 200, login.Status, "%s", login.Body)
	worker := login.json(t)["token"].(string)
	link, err := srv.InviteSupervisor(SupervisorInvite{})
	require.NoError(t, err)
	accept := call(t, srv, "", "POST", "/supervisor-auth/accept", map[string]any{"token": link.Token})
	require.Equal(t, 200, accept.Status, "%s", accept.Body)
	sv := accept.json(t)["token"].(string)

	planes := []struct {
		name, key, method, path string
		body                    func(n int, raw string) string // raw goes in as sent
		member                  string
		stored                  func(t *testing.T, n int) string
	}{
		{"workspace", srv.APIKey(), "POST", "/workers",
			func(n int, raw string) string { return fmt.Sprintf(`{"id":"w_%d","tags":["english","%s"]}`, n, raw) },
			"body/tags/1",
			func(t *testing.T, n int) string {
				var w struct{ Tags []string }
				require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", fmt.Sprintf("/workers/w_%d", n), nil).Body, &w))
				require.Len(t, w.Tags, 2)
				return w.Tags[1]
			}},
		{"worker", worker, "POST", "/portal/devices",
			func(n int, raw string) string { return fmt.Sprintf(`{"token":"%s","platform":"ios"}`, raw) },
			"body/token",
			func(t *testing.T, n int) string { return lastRegistration(t, srv, "worker").Token }},
		{"supervisor", sv, "POST", "/supervisor/push/subscriptions",
			func(n int, raw string) string {
				return fmt.Sprintf(`{"endpoint":"https://push.example/%d","keys":{"p256dh":"k","auth":"%s"}}`, n, raw)
			},
			"body/keys/auth",
			nil},
		{"supervisor, member name", sv, "POST", "/supervisor/push/subscriptions",
			func(n int, raw string) string {
				return fmt.Sprintf(`{"endpoint":"https://push.example/%d","keys":{"p256dh":"k","auth":"a","%s":1}}`, n, raw)
			},
			"body/keys has a member name",
			nil},
	}
	for _, p := range planes {
		for i, bad := range notText {
			t.Run(p.name+"/refuses "+bad.name, func(t *testing.T) {
				before, regs := snapshotOf(t, srv), srv.PushRegistrations()
				a := call(t, srv, p.key, p.method, p.path, p.body(1000+i, bad.raw))
				assert.Equal(t, 400, a.Status, "body %s", a.Body)
				assert.Equal(t, CodeValidationFailed, a.errCode(t))
				assert.Contains(t, a.errMessage(t), p.member, "the message names the member")
				assert.Contains(t, a.errMessage(t), "valid Unicode text")
				assert.Empty(t, cmp.Diff(before, snapshotOf(t, srv), cmp.AllowUnexported(taskExtra{}, workerExtra{}), netipEqual), "state changed")
				assert.Equal(t, regs, srv.PushRegistrations(), "a registration was stored")
			})
		}
		if strings.Contains(p.member, "member name") {
			continue // a member name the schema does not know is refused for that alone
		}
		for i, good := range isText {
			t.Run(p.name+"/serves "+good.name, func(t *testing.T) {
				a := call(t, srv, p.key, p.method, p.path, p.body(i, good.raw))
				require.Less(t, a.Status, 300, "body %s", a.Body)
				if p.stored != nil {
					assert.Equal(t, good.want, p.stored(t, i))
				}
			})
		}
	}
}

// lastRegistration is the newest push registration of the plane.
func lastRegistration(t *testing.T, srv *Server, plane string) PushRegistration {
	t.Helper()
	var last *PushRegistration
	for _, r := range srv.PushRegistrations() {
		if r.Plane == plane {
			last = &r
		}
	}
	require.NotNil(t, last, "no %s registration", plane)
	return *last
}

// TestBodyEndingInEscapeRefusedCleanly: a body cut off right after a \u (not JSON) is
// refused with a 4xx envelope, not a server error, on every plane.
func TestBodyEndingInEscapeRefusedCleanly(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	for _, body := range []string{`{"tags":["\u`, `{"tags":["\ud800\u`, `{"tags":["\ud800\`, `{"tags":["\ud800`, "{\"tags\":[\"\xff\\u"} {
		a := call(t, srv, srv.APIKey(), "POST", "/workers", body)
		assert.Equal(t, 400, a.Status, "%q: %s", body, a.Body)
		assert.Equal(t, CodeValidationFailed, a.errCode(t), "%q", body)
	}
}

// errMessage is the message of the answer's error envelope.
func (a answer) errMessage(t *testing.T) string {
	t.Helper()
	var env struct {
		Error struct{ Message string }
	}
	require.NoError(t, json.Unmarshal(a.Body, &env), "body %s", a.Body)
	return env.Error.Message
}
