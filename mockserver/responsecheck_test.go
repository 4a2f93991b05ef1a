package mockserver

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordingTB is a testing.TB whose Errorf and Cleanup are captured, to watch what Start
// does to the test that owns a server.
type recordingTB struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (r *recordingTB) Helper()                   {}
func (r *recordingTB) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }

func (r *recordingTB) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

var createdAtMs = regexp.MustCompile(`"createdAt":[0-9]+`)

// TestDriftedResponseIsCaught makes the server's answer to tasks.get drift from
// api/openapi.json and checks that the violation names the member and fails the test that
// owns the server (through Start's cleanup).
func TestDriftedResponseIsCaught(t *testing.T) {
	cases := []struct {
		name  string
		op    string // the drifting operation; "" for tasks.get
		drift func([]byte) []byte
		want  string
	}{
		{
			name:  "unknown member",
			drift: func(b []byte) []byte { return append([]byte(`{"surprise":1,`), b[1:]...) },
			want:  "GET /v1/tasks/t1 (tasks.get) answered 200: response must NOT have additional properties (surprise)",
		},
		{
			// JSON Schema would let this nested object hold more (its schema lists properties
			// and says nothing of others); a platform answer may not (UndeclaredMembers).
			name:  "unknown member of an object the schema leaves open",
			op:    "workers.upsert",
			drift: func(b []byte) []byte { return append([]byte(`{"unmatched":{},`), b[1:]...) },
			want:  "POST /v1/workers (workers.upsert) answered 200: members the contract does not define: /unmatched",
		},
		{
			name: "epoch ms became an ISO string",
			drift: func(b []byte) []byte {
				return createdAtMs.ReplaceAll(b, []byte(`"createdAt":"2026-01-02T03:04:05.000Z"`))
			},
			want: "GET /v1/tasks/t1 (tasks.get) answered 200: response/createdAt must be integer",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			srv := Start(rec, WithClock(NewManualClock(t0)))
			op := tc.op
			if op == "" {
				op = "tasks.get"
			}
			srv.checks.drift = func(opID string, body []byte) []byte {
				if opID != op {
					return body
				}
				return tc.drift(body)
			}
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"b"}})
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}})
			mustAPI(t, srv, 200, "GET", "/tasks/t1", nil)
			rec.runCleanups()
			require.Len(t, rec.errors, 1, "the owning test fails")
			assert.Contains(t, rec.errors[0], tc.want)
		})
	}
}

func TestCleanServerReportsNothing(t *testing.T) {
	rec := &recordingTB{TB: t}
	srv := Start(rec, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}})
	mustAPI(t, srv, 200, "GET", "/tasks/t1", nil)
	rec.runCleanups()
	assert.Empty(t, rec.errors)
}

// TestServerFromNewPanicsOnUncollectedViolations covers servers made with New in a test: Close
// panics with the violations unless the test collected them.
func TestServerFromNewPanicsOnUncollectedViolations(t *testing.T) {
	srv, err := New(WithClock(NewManualClock(t0)))
	require.NoError(t, err)
	srv.checks.drift = func(_ string, b []byte) []byte { return append([]byte(`{"surprise":1,`), b[1:]...) }
	mustAPI(t, srv, 200, "GET", "/workers", nil)
	var got any
	func() {
		defer func() { got = recover() }()
		srv.Close()
	}()
	require.NotNil(t, got, "Close must panic")
	assert.True(t, strings.Contains(fmt.Sprint(got), "GET /v1/workers (workers.list) answered 200: response must NOT have additional properties (surprise)"), "%v", got)

	srv2, err := New(WithClock(NewManualClock(t0)))
	require.NoError(t, err)
	srv2.checks.drift = srv.checks.drift
	mustAPI(t, srv2, 200, "GET", "/workers", nil)
	assert.Len(t, srv2.ContractViolations(), 1)
	assert.NotPanics(t, srv2.Close, "collected violations are the test's to judge")
}
