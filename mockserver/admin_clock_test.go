package mockserver_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
)

// TestAdminClockAdvanceAnswers pins POST /_mock/clock/advance on a manual clock (it starts at
// 1763700000000 ms): it moves the clock by ms and answers the new now; no ms, a negative one,
// an unknown member or a body that is not JSON is a 400 and moves nothing. GET
// /_mock/push-registrations lists a device the signed-in worker registered.
func TestAdminClockAdvanceAnswers(t *testing.T) {
	srv, _, _ := portalSetup(t)
	const noMs = `{"error":{"code":"validation_failed","message":"body must have required property 'ms' (an integer >= 0)"}}`
	steps := []struct {
		method, path, body string
		want               rawAnswer
	}{
		{"GET", "/clock", "", rawAnswer{200, "", `{"manual":true,"now":1763700000000}`}},
		{"POST", "/clock/advance", `{"ms":1500}`, rawAnswer{200, "", `{"now":1763700001500}`}},
		{"POST", "/clock/advance", `{"ms":0}`, rawAnswer{200, "", `{"now":1763700001500}`}},
		{"POST", "/clock/advance", `{"ms":-1}`, rawAnswer{400, "", noMs}},
		{"POST", "/clock/advance", `{}`, rawAnswer{400, "", noMs}},
		{"POST", "/clock/advance", `{"ms":1,"by":2}`, rawAnswer{400, "", `{"error":{"code":"validation_failed","message":"body: json: unknown field \"by\""}}`}},
		{"POST", "/clock/advance", `ms=1`, rawAnswer{400, "", `{"error":{"code":"validation_failed","message":"body: invalid character 'm' looking for beginning of value"}}`}},
		{"GET", "/clock", "", rawAnswer{200, "", `{"manual":true,"now":1763700001500}`}},
	}
	for _, s := range steps {
		got := rawHTTP(t, srv.AdminURL(), srv.APIKey(), s.method, s.path, s.body)
		assert.Empty(t, cmp.Diff(s.want, got), "%s %s %s", s.method, s.path, s.body)
	}

	tok := portalToken(t, srv)
	assert.Equal(t, 200, rawHTTP(t, srv.URL(), tok, "POST", "/portal/devices", `{"token":"fcm-1","platform":"android"}`).Status)
	got := rawHTTP(t, srv.AdminURL(), srv.APIKey(), "GET", "/push-registrations", "")
	want := `{"registrations":[{"workspaceId":"` + srv.WorkspaceID() + `","plane":"worker","ownerId":"agent_1","kind":"device","token":"fcm-1","platform":"android","createdAt":"2025-11-21T04:40:01.5Z"}]}`
	assert.Empty(t, cmp.Diff(rawAnswer{200, "", want}, got))
}
