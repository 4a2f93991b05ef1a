package mockserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRestoreNamesEachContradiction breaks a saved state in the ways the schema cannot see,
// one at a time: each refusal is the whole message, naming the member, and the running
// state is untouched. Every member a tick may not carry is tried alone.
func TestRestoreNamesEachContradiction(t *testing.T) {
	_, raw := savedStory(t)
	const tickCarries = "/workspaces/0/commands/0/tick: a tick carries no request"
	tick := func(member string, v any) func(d map[string]any) {
		return func(d map[string]any) {
			c := map[string]any{"at": command(d, 0)["at"], "tick": true, member: v}
			space(d)["commands"].([]any)[0] = c
		}
	}
	cases := []struct {
		name string
		edit func(doc map[string]any)
		want string
	}{
		{"task twice", func(d map[string]any) { task(d, 1)["id"] = task(d, 0)["id"] },
			"/workspaces/0/tasks/1/id: task t1 is listed twice"},
		{"learned of a missing worker", func(d map[string]any) { space(d)["learned"] = []any{map[string]any{"workerId": "ghost", "tag": "en"}} },
			"/workspaces/0/learned/0/workerId: names worker ghost, which /workspaces/0/workers lacks"},
		{"command without a method", func(d map[string]any) { delete(command(d, 0), "method") },
			"/workspaces/0/commands/0/method: is required unless tick is true"},
		{"command without a path", func(d map[string]any) { delete(command(d, 0), "path") },
			"/workspaces/0/commands/0/path: is required unless tick is true"},
		{"seed past 64 bits", func(d map[string]any) { space(d)["seed"] = "18446744073709551616" },
			"/workspaces/0/seed: is not a 64-bit unsigned integer"},
		{"path with a control character", func(d map[string]any) { command(d, 0)["path"] = "/v1/work\u007fers" },
			// The rest names the URL with the server's own address.
			"/workspaces/0/commands/0/path: is not a request path: parse "},
		{"tick with a method", tick("method", "POST"), tickCarries},
		{"tick with a path", tick("path", "/v1/workers"), tickCarries},
		{"tick with a body", tick("body", map[string]any{}), tickCarries},
		{"tick with a query", tick("query", "a=1"), tickCarries},
		{"tick with an idempotency key", tick("idempotencyKey", "k1"), tickCarries},
		{"tick with a status", tick("status", 200), tickCarries},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target := Start(t, WithClock(NewManualClock(t0.Add(time.Hour))))
			mustAPI(t, target, 200, "POST", "/workers", map[string]any{"id": "zed", "tags": []string{"en"}, "available": true})
			before, err := target.Snapshot(context.Background())
			require.NoError(t, err)
			var doc map[string]any
			require.NoError(t, json.Unmarshal(raw, &doc))
			tc.edit(doc)
			b, err := json.Marshal(doc)
			require.NoError(t, err)
			a := stateCall(t, target, "POST", b)
			require.Equal(t, http.StatusBadRequest, a.Status, "%s", a.Body)
			var env errorEnvelope
			require.NoError(t, json.Unmarshal(a.Body, &env))
			got := env.Error
			if strings.HasSuffix(tc.want, "parse ") && strings.HasPrefix(got.Message, tc.want) {
				assert.True(t, strings.HasSuffix(got.Message, `/v1/work\x7fers": net/url: invalid control character in URL`), got.Message)
				got.Message = tc.want
			}
			assert.Empty(t, cmp.Diff(errorBody{Code: CodeValidationFailed, Message: tc.want}, got))
			after, err := target.Snapshot(context.Background())
			require.NoError(t, err)
			assert.Equal(t, string(before), string(after), "a refused state changes nothing")
		})
	}
}

// TestRestoreReplaysTheQuery: a command's query is part of the request replayed. An
// undeclared query parameter is refused (400), so a command logged with one and answered 400
// restores only if the query is sent again.
func TestRestoreReplaysTheQuery(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	fixture := `{
	  "kind": "taskrouting.mockserver.state", "version": 1,
	  "workspaces": [{"commands": [
	    {"at": "2025-11-21T04:00:00Z", "method": "POST", "path": "/v1/workers", "query": "bogus=1", "body": {"id": "ana", "tags": ["en"]}, "status": 400},
	    {"at": "2025-11-21T04:00:01Z", "method": "POST", "path": "/v1/workers", "body": {"id": "bo", "tags": ["en"]}}
	  ]}]
	}`
	a := stateCall(t, srv, "POST", []byte(fixture))
	require.Equal(t, http.StatusNoContent, a.Status, "%s", a.Body)
	mustAPI(t, srv, 404, "GET", "/workers/ana", nil)
	mustAPI(t, srv, 200, "GET", "/workers/bo", nil)
}
