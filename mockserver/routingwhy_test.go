package mockserver

import (
	"encoding/json"
	"net/http"
	"testing"
)

// Why a routed task waits names what the nearest worker lacks: the team it is not in, or how
// far it is (one decimal, in km: a degree of longitude on the equator is 111.2 km). A create
// with half a location, or a minLevel that is not whole, is refused and makes no task.
func TestRoutingReasonsInWhyUnmatchedAndRefusals(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	team := mustAPI(t, srv, http.StatusOK, "POST", "/teams", map[string]any{"key": "red", "name": "Red"}).json(t)["id"].(string)
	mustAPI(t, srv, http.StatusOK, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"x"}, "available": true, "latitude": 0, "longitude": 0})
	waits := []struct {
		name string
		body map[string]any
		want string
	}{
		{"team", map[string]any{"tags": []string{"x"}, "teamId": team}, "nearest workers: w1 notInTeam " + team},
		{"geo", map[string]any{"tags": []string{"x"}, "latitude": 0, "longitude": 1, "maxDistanceKm": 10}, "nearest workers: w1 tooFar 111.2 km"},
	}
	for _, tc := range waits {
		tc.body["id"] = tc.name
		mustAPI(t, srv, http.StatusAccepted, "POST", "/tasks", tc.body)
		u, err := srv.WhyUnmatched(tc.name)
		if err != nil || u.Summary != tc.want {
			t.Errorf("%s: summary %q, %v; want %q", tc.name, u.Summary, err, tc.want)
		}
	}
	refused := []struct {
		name string
		body map[string]any
		code string
		msg  string
	}{
		{"latitude alone", map[string]any{"latitude": 0}, CodeInvalidBody, "latitude and longitude go together"},
		{"longitude alone", map[string]any{"longitude": 0}, CodeInvalidBody, "latitude and longitude go together"},
		{"minLevel 2.5", map[string]any{"requiredSkills": []any{map[string]any{"skillId": "s", "minLevel": 2.5}}}, CodeValidationFailed,
			"body/requiredSkills/0/minLevel must be integer"},
	}
	for _, tc := range refused {
		tc.body["id"], tc.body["tags"] = "refused", []string{"x"}
		a := api(t, srv, "POST", "/tasks", tc.body)
		var env struct {
			Error struct{ Code, Message string }
		}
		_ = json.Unmarshal(a.Body, &env)
		if a.Status != http.StatusBadRequest || env.Error.Code != tc.code || env.Error.Message != tc.msg {
			t.Errorf("%s: %d %s, want 400 %s %q", tc.name, a.Status, a.Body, tc.code, tc.msg)
		}
	}
	if a := api(t, srv, "GET", "/tasks/refused", nil); a.Status != http.StatusNotFound {
		t.Errorf("a refused create made a task: %d %s", a.Status, a.Body)
	}
}
