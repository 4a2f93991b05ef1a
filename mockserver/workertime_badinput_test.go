package mockserver

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// timeSnapshot is the worker-time state a request could change: per workspace, the number of
// shifts, breaks, outcomes, corrections and links, and each shift's and break's span.
func timeSnapshot(t *testing.T, srv *Server) []string {
	t.Helper()
	var out []string
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	for _, k := range srv.keys {
		ws := srv.workspaces[k]
		ws.mu.Lock()
		for _, id := range ws.engine.WorkerIDs() {
			l := ws.time.log(id)
			for _, e := range append(append([]*timeEntry{}, l.shifts...), l.breaks...) {
				out = append(out, e.id+" "+e.start.String()+" "+e.end.String())
			}
			out = append(out, id+" outcomes "+strconv.Itoa(len(l.outcomes)))
		}
		out = append(out, "corrections "+strconv.Itoa(len(ws.time.corrections)), "links "+strconv.Itoa(len(ws.links.links)))
		ws.mu.Unlock()
	}
	return out
}

// TestWorkerTimeBadInputChangesNothing sends the worker-time operations of both planes bad
// requests: each is a 4xx envelope and leaves the record, the trail and the links as they were.
func TestWorkerTimeBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	const keyB = "sk_test_workspace_b"
	srv := Start(t, WithClock(NewManualClock(t0)), WithExtraAPIKey(keyB))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_2", "tags": []string{"english"}})
	mustAPI(t, srv, 200, "POST", "/workers/agent_1/identity", map[string]any{"label": "desk 4", "pin": "4921"})
	mustAPI(t, srv, 201, "POST", "/workers/agent_1/time-entries", map[string]any{
		"startedAt": "2025-11-20T09:00:00.000Z", "endedAt": "2025-11-20T17:00:00.000Z", "note": "paper timesheet"})
	mustAPI(t, srv, 200, "PUT", "/workers/agent_1/links/jira", map[string]any{"vendorUserId": "acc_1"})
	require.Equal(t, 200, call(t, srv, keyB, "POST", "/workers", map[string]any{"id": "worker_b", "tags": []string{"english"}, "available": true}).Status)
	login := call(t, srv, "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": "agent_1", "pin": "4921"})
	require.Equal(t, 200, login.Status, "%s", login.Body)
	token := login.json(t)["token"].(string)
	key := srv.APIKey()
	day := map[string]any{"startedAt": "2025-11-19T09:00:00.000Z", "endedAt": "2025-11-19T17:00:00.000Z", "note": "paper timesheet"}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range day {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	oversized := `{"note":"` + strings.Repeat("x", MaxBodyBytes) + `"}`

	cases := []struct {
		name, key, method, path string
		body                    any
		status                  int
		code                    string
	}{
		{"metrics window past 30 days", key, "GET", "/workers/agent_1/metrics?window=31d", nil, 400, CodeValidationFailed},
		{"metrics window without unit", key, "GET", "/workers/agent_1/metrics?window=7", nil, 400, CodeValidationFailed},
		{"metrics of another workspace's worker", key, "GET", "/workers/worker_b/metrics", nil, 404, CodeNotFound},
		{"time entries with a bad bound", key, "GET", "/workers/agent_1/time-entries?from=yesterday", nil, 400, CodeValidationFailed},
		{"time entries from after to", key, "GET", "/workers/agent_1/time-entries?from=2025-11-21&to=2025-11-20", nil, 400, CodeInvalidBody},
		{"time entries in csv", key, "GET", "/workers/agent_1/time-entries?format=csv", nil, 400, CodeValidationFailed},
		{"time entries of another workspace's worker", key, "GET", "/workers/worker_b/time-entries", nil, 404, CodeNotFound},
		{"create: malformed JSON", key, "POST", "/workers/agent_1/time-entries", `{"note":`, 400, CodeValidationFailed},
		{"create: unknown field", key, "POST", "/workers/agent_1/time-entries", with(map[string]any{"bogus": 1}), 400, CodeValidationFailed},
		{"create: note too short", key, "POST", "/workers/agent_1/time-entries", with(map[string]any{"note": "ab"}), 400, CodeValidationFailed},
		{"create: note of the wrong type", key, "POST", "/workers/agent_1/time-entries", with(map[string]any{"note": 5}), 400, CodeValidationFailed},
		{"create: ends before it starts", key, "POST", "/workers/agent_1/time-entries", with(map[string]any{"endedAt": "2025-11-19T08:00:00.000Z"}), 400, CodeInvalidBody},
		{"create: not a time", key, "POST", "/workers/agent_1/time-entries", with(map[string]any{"endedAt": "five o'clock"}), 400, ""},
		{"create: overlaps a shift", key, "POST", "/workers/agent_1/time-entries", with(map[string]any{"startedAt": "2025-11-20T16:00:00.000Z", "endedAt": "2025-11-20T18:00:00.000Z"}), 409, CodeInvalidState},
		{"create: break outside the shift", key, "POST", "/workers/agent_1/time-entries", with(map[string]any{"breaks": []any{map[string]any{"startedAt": "2025-11-19T18:00:00.000Z", "endedAt": "2025-11-19T18:10:00.000Z"}}}), 400, CodeInvalidBody},
		{"create: breaks overlapping", key, "POST", "/workers/agent_1/time-entries", with(map[string]any{"breaks": []any{
			map[string]any{"startedAt": "2025-11-19T12:00:00.000Z", "endedAt": "2025-11-19T12:30:00.000Z"},
			map[string]any{"startedAt": "2025-11-19T12:15:00.000Z", "endedAt": "2025-11-19T12:45:00.000Z"}}}), 400, CodeInvalidBody},
		{"create: another workspace's worker", key, "POST", "/workers/worker_b/time-entries", day, 404, CodeNotFound},
		{"create: body over 1 MiB", key, "POST", "/workers/agent_1/time-entries", oversized, 413, CodePayloadTooLarge},
		{"correct: unknown entry", key, "PATCH", "/workers/agent_1/time-entries/sh_99", map[string]any{"note": "why not"}, 404, CodeNotFound},
		{"correct: another worker's entry", key, "PATCH", "/workers/agent_2/time-entries/sh_1", map[string]any{"note": "why not"}, 404, CodeNotFound},
		{"correct: without a note", key, "PATCH", "/workers/agent_1/time-entries/sh_2", map[string]any{"endedAt": nil}, 400, CodeValidationFailed},
		{"correct: unknown type", key, "PATCH", "/workers/agent_1/time-entries/sh_2", map[string]any{"note": "why not", "type": "lunch"}, 400, CodeValidationFailed},
		{"correct: reopen beside the open shift", key, "PATCH", "/workers/agent_1/time-entries/sh_2", map[string]any{"note": "why not", "endedAt": nil}, 409, CodeInvalidState},
		{"correct: into the future", key, "PATCH", "/workers/agent_1/time-entries/sh_2", map[string]any{"note": "why not", "endedAt": "2030-01-01T00:00:00.000Z"}, 400, CodeInvalidBody},
		{"correct: breaks naming no break", key, "PATCH", "/workers/agent_1/time-entries/sh_2", map[string]any{"note": "why not",
			"breaks": []any{map[string]any{"id": "br_9", "startedAt": "2025-11-20T12:00:00.000Z", "endedAt": "2025-11-20T12:10:00.000Z"}}}, 400, CodeInvalidBody},
		{"trail of another workspace's worker", key, "GET", "/workers/worker_b/time-corrections", nil, 404, CodeNotFound},
		{"offboarding with a bad day", key, "GET", "/workers/agent_1/offboarding?lastDay=2025-13-01", nil, 400, CodeValidationFailed},
		{"offboarding of another workspace's worker", key, "GET", "/workers/worker_b/offboarding", nil, 404, CodeNotFound},
		{"link without a vendor user", key, "PUT", "/workers/agent_1/links/hubspot", map[string]any{"tags": []string{"sales"}}, 400, CodeValidationFailed},
		{"link with tags of the wrong type", key, "PUT", "/workers/agent_1/links/hubspot", map[string]any{"vendorUserId": "u", "tags": "sales"}, 400, CodeValidationFailed},
		{"link another workspace's worker", key, "PUT", "/workers/worker_b/links/hubspot", map[string]any{"vendorUserId": "u"}, 404, CodeNotFound},
		{"unlink what is not linked", key, "DELETE", "/workers/agent_2/links/jira", nil, 404, CodeNotFound},
		{"links with an unknown parameter", key, "GET", "/workers/links?bogus=1", nil, 400, CodeValidationFailed},
		{"break metrics with a bad bound", key, "GET", "/breaks/metrics?to=soon", nil, 400, CodeValidationFailed},
		{"team time with entries=yes", key, "GET", "/team/time?entries=yes", nil, 400, CodeValidationFailed},
		{"presence with a team id too long", key, "GET", "/team/presence?teamId=" + strings.Repeat("t", 65), nil, 400, CodeValidationFailed},
		{"worker: metrics window of 0 days", token, "GET", "/portal/metrics?window=0d", nil, 400, CodeValidationFailed},
		{"worker: another worker's time by query", token, "GET", "/portal/me/time-entries?workerId=agent_2", nil, 400, CodeValidationFailed},
		{"worker: an API key is not a session", key, "GET", "/portal/breaks/today", nil, 401, CodeUnauthorized},
		{"worker: a session is not an API key", token, "GET", "/team/presence", nil, 401, CodeUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, beforeTime := snapshotOf(t, srv), timeSnapshot(t, srv)
			var hdr []string
			if tc.method == "POST" && tc.key == key {
				hdr = []string{"Idempotency-Key", "bad-" + tc.name}
			}
			a := call(t, srv, tc.key, tc.method, tc.path, tc.body, hdr...)
			assert.Equal(t, tc.status, a.Status, "body %s", a.Body)
			if tc.code != "" {
				assert.Equal(t, tc.code, a.errCode(t))
			} else {
				assert.Contains(t, []string{CodeValidationFailed, CodeInvalidBody}, a.errCode(t))
			}
			assert.Empty(t, cmp.Diff(before, snapshotOf(t, srv), cmp.AllowUnexported(taskExtra{}, workerExtra{})), "state changed")
			assert.Empty(t, cmp.Diff(beforeTime, timeSnapshot(t, srv)), "the time record changed")
		})
	}
}
