package mockserver

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzCreateTaskBody feeds arbitrary bytes to the POST /tasks validation (the contract's
// schema, then the prepare function's rules across members) and, when both accept them, to
// the matcher: nothing panics, refusals are 400s, acceptances are 202s.
//
//	go test -run '^$' -fuzz FuzzCreateTaskBody -fuzztime 60s ./mockserver/
func FuzzCreateTaskBody(f *testing.F) {
	for _, seed := range []string{
		`{"tags":["english"]}`,
		`{"tags":["a","b"],"priority":1e308,"meta":{"k":[1,{"x":null}]},"sla":null}`,
		`{"tags":["a"],"escalation":{"respondWithinMs":1000,"onNoResponse":"block","x":1}}`,
		`{"tags":["a"],"schedule":{"notBefore":5,"notAfter":4}}`,
		`{"tags":["a"],"skillThresholds":{"a":-1}}`,
		`{"tags":[]}`, `[]`, `null`, `{"tags":["\u00ff"]}`, "{\"tags\":[\"\xff\"]}", `{"tags":["a"]} {}`,
	} {
		f.Add([]byte(seed))
	}
	srv, err := NewUnstarted(WithClock(NewManualClock(t0)))
	require.NoError(f, err)
	f.Cleanup(srv.Close)
	ws := srv.workspaces[srv.APIKey()]
	f.Fuzz(func(t *testing.T, body []byte) {
		req := &request{method: http.MethodPost, path: "/v1/tasks", body: body}
		aerr := srv.checkRequest(route{opID: "tasks.create"}, req)
		var run op
		if aerr == nil {
			run, aerr = prepCreateTask(req)
		}
		if aerr != nil {
			assert.Equal(t, http.StatusBadRequest, aerr.status, aerr.message)
			return
		}
		ws.mu.Lock()
		defer ws.mu.Unlock()
		status, _, aerr := run(ws, t0.Add(time.Duration(len(body))))
		if aerr != nil {
			assert.Less(t, aerr.status, 500, aerr.message)
			return
		}
		assert.Equal(t, http.StatusAccepted, status)
	})
}
