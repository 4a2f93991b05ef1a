package mockserver_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawAnswer is an answer read by rawHTTP: status, Allow header and body.
type rawAnswer struct {
	Status int
	Allow  string
	Body   string
}

func rawHTTP(t *testing.T, url, token, method, path, body string) rawAnswer {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url+path, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return rawAnswer{resp.StatusCode, resp.Header.Get("Allow"), string(b)}
}

// TestWorkerPlaneBodylessBreakAndAllow: POST /portal/breaks/start takes no body at all (its
// reason is optional, and so is the body), while another body route without one is refused;
// a method a worker route lacks is a 405 naming the methods it has in Allow; a removed
// worker's session is revoked. The manual clock stands at 2025-11-21T04:40:00Z.
func TestWorkerPlaneBodylessBreakAndAllow(t *testing.T) {
	srv, c, _ := portalSetup(t)
	tok := portalToken(t, srv)
	const revoked = `{"error":{"code":"unauthorized","message":"missing, invalid or revoked worker token"}}`
	steps := []struct {
		method, path, body string
		want               rawAnswer
	}{
		{"DELETE", "/portal/me", "", rawAnswer{405, "PATCH, GET", `{"error":{"code":"method_not_allowed","message":"method DELETE is not allowed on /v1/portal/me"}}`}},
		{"PUT", "/portal/breaks/start", "", rawAnswer{405, "POST", `{"error":{"code":"method_not_allowed","message":"method PUT is not allowed on /v1/portal/breaks/start"}}`}},
		{"POST", "/portal/me/availability", "", rawAnswer{400, "", `{"error":{"code":"validation_failed","message":"body must be object"}}`}},
		{"POST", "/portal/breaks/start", "", rawAnswer{200, "", `{"workerId":"agent_1","onBreak":true,"since":"2025-11-21T04:40:00.000Z"}`}},
		{"POST", "/portal/breaks/start", "", rawAnswer{409, "", `{"error":{"code":"break_already_open","message":"a break is already open"}}`}},
		{"POST", "/portal/breaks/end", "", rawAnswer{200, "", `{"workerId":"agent_1","onBreak":false,"endedAt":"2025-11-21T04:40:00.000Z"}`}},
	}
	for _, s := range steps {
		got := rawHTTP(t, srv.URL(), tok, s.method, s.path, s.body)
		assert.Empty(t, cmp.Diff(s.want, got), "%s %s", s.method, s.path)
	}
	require.NoError(t, c.Workers.Remove(context.Background(), "agent_1"))
	for _, path := range []string{"/portal/me", "/portal/workers/agent_1/queue", "/portal/tasks/task_1"} {
		assert.Empty(t, cmp.Diff(rawAnswer{401, "", revoked}, rawHTTP(t, srv.URL(), tok, "GET", path, "")), path)
	}
}
