package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// stateSnapshot is everything a request could change, read straight from the workspaces.
type stateSnapshot struct {
	Tasks     []match.Task
	Workers   []match.WorkerDetail
	Decisions []match.Decision
	// Routing holds the tasks' and workers' routing inputs as text (their netip values have
	// unexported fields, which cmp cannot read); Tasks and Workers carry them as nil.
	Routing  []string
	Events   int
	Counters []int
	IdemKeys []int
}

func snapshotOf(t *testing.T, srv *Server) stateSnapshot {
	t.Helper()
	var s stateSnapshot
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	for _, k := range srv.keys {
		ws := srv.workspaces[k]
		ws.mu.Lock()
		page, err := ws.engine.Tasks(match.TaskQuery{Status: match.FilterAll, Limit: 1000})
		require.NoError(t, err)
		for _, task := range page.Tasks {
			if task.Routing != nil {
				b, _ := json.Marshal(task.Routing) // netip values marshal as text
				s.Routing = append(s.Routing, "task "+task.ID+" "+string(b))
				task.Routing = nil
			}
			s.Tasks = append(s.Tasks, task)
		}
		for _, id := range ws.engine.WorkerIDs() {
			w, err := ws.engine.Worker(id)
			require.NoError(t, err)
			if w.Routing != nil {
				b, _ := json.Marshal(w.Routing)
				s.Routing = append(s.Routing, "worker "+id+" "+string(b))
				w.Routing = nil
			}
			s.Workers = append(s.Workers, w)
		}
		s.Decisions = append(s.Decisions, ws.engine.Decisions(match.DecisionQuery{Limit: 1000})...)
		s.Counters = append(s.Counters, ws.openTasks, ws.workers, len(ws.skillRefs))
		s.IdemKeys = append(s.IdemKeys, len(ws.idem.entries))
		ws.mu.Unlock()
	}
	s.Events = len(srv.Events())
	return s
}

// endpointCase describes one operation for the bad-input table: a valid body and bodies
// that break it in each way docs/reliability.md section 6 lists.
type endpointCase struct {
	name        string
	method      string
	path        string // with workspace A's ids
	otherPath   string // the same operation on workspace B's ids
	valid       map[string]any
	wrongType   map[string]any
	outOfRange  map[string]any
	tooManyTags map[string]any
}

func manyTags(n int) []string {
	tags := make([]string, n)
	for i := range tags {
		tags[i] = fmt.Sprintf("tag%d", i)
	}
	return tags
}

func endpointCases() []endpointCase {
	return []endpointCase{
		{name: "tasks.create", method: "POST", path: "/tasks",
			valid:       map[string]any{"tags": []string{"english"}},
			wrongType:   map[string]any{"tags": "english"},
			outOfRange:  map[string]any{"tags": []string{"english"}, "title": strings.Repeat("x", 301)},
			tooManyTags: map[string]any{"tags": manyTags(33)}},
		{name: "tasks.get", method: "GET", path: "/tasks/task_1", otherPath: "/tasks/task_b"},
		{name: "tasks.list", method: "GET", path: "/tasks"},
		{name: "tasks.cancel", method: "DELETE", path: "/tasks/task_1", otherPath: "/tasks/task_b"},
		{name: "tasks.accept", method: "POST", path: "/tasks/task_1/accept", otherPath: "/tasks/task_b/accept",
			valid: map[string]any{"workerId": "agent_1"}, wrongType: map[string]any{"workerId": 7},
			outOfRange: map[string]any{"workerId": strings.Repeat("a", 129)}},
		{name: "tasks.reject", method: "POST", path: "/tasks/task_1/reject", otherPath: "/tasks/task_b/reject",
			valid: map[string]any{"workerId": "agent_1"}, wrongType: map[string]any{"workerId": true},
			outOfRange: map[string]any{"workerId": strings.Repeat("b", 200)}},
		{name: "tasks.complete", method: "POST", path: "/tasks/task_1/complete", otherPath: "/tasks/task_b/complete",
			valid: map[string]any{"workerId": "agent_1"}, wrongType: map[string]any{"workerId": "agent_1", "result": "done"},
			outOfRange: map[string]any{"workerId": strings.Repeat("c", 129)}},
		{name: "workers.upsert", method: "POST", path: "/workers",
			valid:       map[string]any{"id": "agent_9"},
			wrongType:   map[string]any{"id": "agent_9", "available": "yes"},
			outOfRange:  map[string]any{"id": "agent_9", "maxBacklogSize": -1},
			tooManyTags: map[string]any{"id": "agent_9", "tags": manyTags(65)}},
		{name: "workers.patch", method: "PATCH", path: "/workers/agent_1", otherPath: "/workers/worker_b",
			valid:       map[string]any{"available": false},
			wrongType:   map[string]any{"routingWeights": map[string]any{"english": "high"}},
			outOfRange:  map[string]any{"routingWeights": map[string]any{"english": -1}},
			tooManyTags: map[string]any{"tags": manyTags(65)}},
		{name: "workers.get", method: "GET", path: "/workers/agent_1", otherPath: "/workers/worker_b"},
		{name: "workers.list", method: "GET", path: "/workers"},
		{name: "workers.setAvailability", method: "POST", path: "/workers/agent_1/availability", otherPath: "/workers/worker_b/availability",
			valid: map[string]any{"available": false}, wrongType: map[string]any{"available": 1},
			outOfRange: map[string]any{"available": true, "releaseBacklog": true}},
		{name: "workers.queue", method: "GET", path: "/workers/agent_1/queue", otherPath: "/workers/worker_b/queue"},
		{name: "workers.remove", method: "DELETE", path: "/workers/agent_1", otherPath: "/workers/worker_b"},
		{name: "decisions.list", method: "GET", path: "/decisions"},
		{name: "tasks.assign", method: "POST", path: "/tasks/task_1/assign", otherPath: "/tasks/task_b/assign",
			valid: map[string]any{"workerId": "agent_2"}, wrongType: map[string]any{"workerId": "agent_2", "force": "yes"},
			outOfRange: map[string]any{"workerId": strings.Repeat("b", 200)}},
		{name: "tasks.setPriority", method: "PATCH", path: "/tasks/task_1", otherPath: "/tasks/task_b",
			valid: map[string]any{"priority": 5}, wrongType: map[string]any{"priority": "5"},
			outOfRange: map[string]any{"priority": 5, "extra": 1}},
		{name: "tasks.suggestWorkers", method: "POST", path: "/tasks/suggest-workers",
			valid:       map[string]any{"tags": []string{"english"}},
			wrongType:   map[string]any{"tags": []any{1}},
			outOfRange:  map[string]any{"tags": []string{"english"}, "limit": 101},
			tooManyTags: map[string]any{"tags": manyTags(33)}},
		{name: "learning.status", method: "GET", path: "/learning/status"},
		{name: "learning.workerStats", method: "GET", path: "/learning/workers/agent_1", otherPath: "/learning/workers/worker_b"},
	}
}

// TestBadInputChangesNothing sends every endpoint every kind of bad request and checks the
// status, the code and that the state is exactly as before.
func TestBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	const keyB = "sk_test_workspace_b"
	srv := Start(t, WithClock(NewManualClock(t0)), WithExtraAPIKey(keyB))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_2", "tags": []string{"english"}})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	require.Equal(t, 200, call(t, srv, keyB, "POST", "/workers", map[string]any{"id": "worker_b", "tags": []string{"english"}, "available": true}).Status)
	require.Equal(t, 202, call(t, srv, keyB, "POST", "/tasks", map[string]any{"id": "task_b", "tags": []string{"english"}}).Status)

	type badCase struct {
		name   string
		key    string
		path   string
		body   any
		ctype  string
		status int
		code   string
	}
	oversized := `{"tags":["english"],"meta":{"pad":"` + strings.Repeat("x", MaxBodyBytes) + `"}}`
	for _, ep := range endpointCases() {
		hasBody := ep.valid != nil
		cases := []badCase{
			{name: "missing key", key: "", path: ep.path, body: ep.valid, status: 401, code: CodeUnauthorized},
			{name: "wrong key", key: "sk_test_wrong", path: ep.path, body: ep.valid, status: 401, code: CodeUnauthorized},
			{name: "unknown query parameter", key: srv.APIKey(), path: ep.path + "?bogus=1", body: ep.valid, status: 400, code: CodeValidationFailed},
		}
		if ep.otherPath != "" {
			cases = append(cases, badCase{name: "another workspace's id", key: srv.APIKey(), path: ep.otherPath, body: ep.valid, status: 404, code: CodeNotFound})
		}
		if hasBody {
			unknown := map[string]any{"bogus": 1}
			for k, v := range ep.valid {
				unknown[k] = v
			}
			cases = append(cases,
				badCase{name: "malformed JSON", path: ep.path, body: `{"tags": [`, status: 400, code: CodeValidationFailed},
				badCase{name: "not an object", path: ep.path, body: `[1,2]`, status: 400, code: CodeValidationFailed},
				badCase{name: "wrong types", path: ep.path, body: ep.wrongType, status: 400, code: CodeValidationFailed},
				badCase{name: "unknown field", path: ep.path, body: unknown, status: 400, code: CodeValidationFailed},
				badCase{name: "out of range", path: ep.path, body: ep.outOfRange, status: 400},
				badCase{name: "body over 1 MiB", path: ep.path, body: oversized, status: 413, code: CodePayloadTooLarge},
				badCase{name: "not JSON content type", path: ep.path, body: `tags=english`, ctype: "application/x-www-form-urlencoded", status: 415, code: CodeUnsupportedMedia},
			)
			if ep.tooManyTags != nil {
				cases = append(cases, badCase{name: "too many tags", path: ep.path, body: ep.tooManyTags, status: 400, code: CodeValidationFailed})
			}
		}
		for _, tc := range cases {
			t.Run(ep.name+"/"+tc.name, func(t *testing.T) {
				before := snapshotOf(t, srv)
				key := tc.key
				if tc.name != "missing key" && key == "" {
					key = srv.APIKey()
				}
				var hdr []string
				if tc.ctype != "" {
					hdr = []string{"Content-Type", tc.ctype}
				}
				if ep.method == "POST" {
					hdr = append(hdr, "Idempotency-Key", "bad-"+ep.name+"-"+tc.name)
				}
				var body any
				if hasBody {
					body = tc.body
				}
				a := call(t, srv, key, ep.method, tc.path, body, hdr...)
				assert.Equal(t, tc.status, a.Status, "body %s", a.Body)
				code := a.errCode(t)
				if tc.code != "" {
					assert.Equal(t, tc.code, code)
				} else {
					assert.Contains(t, []string{CodeValidationFailed, CodeInvalidBody}, code)
				}
				assert.NotEmpty(t, a.Header.Get("X-Quota-Workers-Remaining"), "quota headers on every answer")
				assert.Empty(t, cmp.Diff(before, snapshotOf(t, srv), cmp.AllowUnexported(taskExtra{}, workerExtra{}), netipEqual), "state changed")
			})
		}
	}
}

func TestValidationMessagesNameTheField(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	cases := []struct {
		body any
		want string
	}{
		{map[string]any{}, "body must have required property 'tags'"},
		{map[string]any{"tags": []string{}}, "body/tags must NOT have fewer than 1 items"},
		{map[string]any{"tags": manyTags(33)}, "body/tags must NOT have more than 32 items"},
		{map[string]any{"tags": []string{strings.Repeat("t", 65)}}, "body/tags/0 must NOT have more than 64 characters"},
		{map[string]any{"tags": []string{"a"}, "Tags": []string{"a"}}, "body must NOT have additional properties"},
		{map[string]any{"tags": []string{"a"}, "priority": "high"}, "body/priority must be number"},
		{map[string]any{"tags": []string{"a"}, "sla": map[string]any{"maxRejections": 101}}, "body/sla/maxRejections must be <= 100"},
		{map[string]any{"tags": []string{"a"}, "escalation": map[string]any{"respondWithinMs": 5000, "onNoResponse": "maybe"}},
			"body/escalation/onNoResponse must be equal to one of the allowed values"},
		{map[string]any{"tags": []string{"a"}, "vetoedWorkers": manyTags(65)}, "body/vetoedWorkers must NOT have more than 64 items"},
	}
	for _, tc := range cases {
		a := api(t, srv, "POST", "/tasks", tc.body)
		assert.Equal(t, http.StatusBadRequest, a.Status)
		assert.Equal(t, fmt.Sprintf(`{"error":{"code":"validation_failed","message":%q}}`, tc.want), string(a.Body))
	}
}

// TestWorkerPlaneBadInputChangesNothing is the bad-input table for the worker plane.
func TestWorkerPlaneBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	// One offer each, so each worker holds one task under either rule set.
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true, "maxBacklogSize": 1})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_2", "tags": []string{"english"}, "available": true, "maxBacklogSize": 1})
	mustAPI(t, srv, 200, "POST", "/workers/agent_1/identity", map[string]any{"label": "desk 4", "pin": "4921"})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_2", "tags": []string{"english"}})
	login := call(t, srv, "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": "agent_1", "pin": "4921"})
	require.Equal(t, 200, login.Status, "%s", login.Body)
	token := login.json(t)["token"].(string)
	mine, theirs := "task_1", "task_2"
	if mustAPI(t, srv, 200, "GET", "/tasks/task_1", nil).json(t)["workerId"] != "agent_1" {
		mine, theirs = theirs, mine
	}

	oversized := `{"workerId":"agent_1","result":{"pad":"` + strings.Repeat("x", MaxBodyBytes) + `"}}`
	cases := []struct {
		name, key, method, path string
		body                    any
		ctype                   string
		status                  int
		code                    string
	}{
		{"missing token", "", "GET", "/portal/me", nil, "", 401, CodeUnauthorized},
		{"api key is not a token", srv.APIKey(), "GET", "/portal/me", nil, "", 401, CodeUnauthorized},
		{"token on the workspace plane", token, "GET", "/workers", nil, "", 401, CodeUnauthorized},
		{"wrong pin", "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": "agent_1", "pin": "0000"}, "", 401, CodeInvalidCredentials},
		{"unknown workspace", "", "POST", "/worker-auth/login", map[string]any{"workspaceId": "ws_other", "workerId": "agent_1", "pin": "4921"}, "", 401, CodeInvalidCredentials},
		{"login without pin", "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": "agent_1"}, "", 400, CodeValidationFailed},
		{"another worker's task", token, "GET", "/portal/tasks/" + theirs, nil, "", 404, CodeNotFound},
		{"accept another worker's task", token, "POST", "/portal/tasks/" + theirs + "/accept", map[string]any{"workerId": "agent_1"}, "", 404, CodeNotFound},
		{"another worker's queue", token, "GET", "/portal/workers/agent_2/queue", nil, "", 404, CodeNotFound},
		{"workerId of someone else", token, "POST", "/portal/tasks/" + mine + "/accept", map[string]any{"workerId": "agent_2"}, "", 400, CodeInvalidBody},
		{"malformed JSON", token, "POST", "/portal/tasks/" + mine + "/accept", `{"workerId":`, "", 400, CodeValidationFailed},
		{"unknown field", token, "POST", "/portal/me/availability", map[string]any{"available": true, "bogus": 1}, "", 400, CodeValidationFailed},
		{"wrong type", token, "POST", "/portal/me/availability", map[string]any{"available": "yes"}, "", 400, CodeValidationFailed},
		{"staleAfterMs below a minute", token, "POST", "/portal/me/availability", map[string]any{"available": true, "staleAfterMs": 59_999}, "", 400, CodeValidationFailed},
		{"staleAfterMs over a day", token, "POST", "/portal/me/availability", map[string]any{"available": true, "staleAfterMs": 86_400_001}, "", 400, CodeValidationFailed},
		{"reason too long", token, "POST", "/portal/breaks/start", map[string]any{"reason": strings.Repeat("r", 201)}, "", 400, CodeValidationFailed},
		{"body over 1 MiB", token, "POST", "/portal/tasks/" + mine + "/complete", oversized, "", 413, CodePayloadTooLarge},
		{"not JSON", token, "POST", "/portal/breaks/start", "reason=lunch", "text/plain", 415, CodeUnsupportedMedia},
		{"empty body announced as JSON", token, "POST", "/portal/breaks/start", "", "application/json", 400, CodeValidationFailed},
		{"lone surrogate in a reason", token, "POST", "/portal/breaks/start", `{"reason":"\ud800"}`, "", 400, CodeValidationFailed},
		{"unknown path", token, "GET", "/portal/nothing", nil, "", 404, CodeNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshotOf(t, srv)
			var hdr []string
			if tc.ctype != "" {
				hdr = []string{"Content-Type", tc.ctype}
			}
			a := call(t, srv, tc.key, tc.method, tc.path, tc.body, hdr...)
			assert.Equal(t, tc.status, a.Status, "body %s", a.Body)
			assert.Equal(t, tc.code, a.errCode(t))
			assert.Empty(t, cmp.Diff(before, snapshotOf(t, srv), cmp.AllowUnexported(taskExtra{}, workerExtra{}), netipEqual), "state changed")
		})
	}
}

// TestWorkerStaleAfterAccepted: the platform's liveness contract for unattended workers is
// taken within its limits (docs/contract.md, "Known gaps": accepted, not enforced).
func TestWorkerStaleAfterAccepted(t *testing.T) {
	srv := Start(t)
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "bot_1", "tags": []string{"english"}})
	mustAPI(t, srv, 200, "POST", "/workers/bot_1/identity", map[string]any{"label": "bot", "pin": "4921"})
	login := call(t, srv, "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": "bot_1", "pin": "4921"})
	require.Equal(t, 200, login.Status, "%s", login.Body)
	token := login.json(t)["token"].(string)
	a := call(t, srv, token, "POST", "/portal/me/availability", map[string]any{"available": true, "staleAfterMs": 120_000})
	require.Equal(t, 200, a.Status, "%s", a.Body)
	assert.Equal(t, map[string]any{"workerId": "bot_1", "available": true}, a.json(t))
	assert.Equal(t, true, mustAPI(t, srv, 200, "GET", "/workers/bot_1", nil).json(t)["available"])
}

// netipEqual compares the matcher's addresses and ranges, whose fields are unexported.
var netipEqual = cmp.Options{
	cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
	cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }),
}
