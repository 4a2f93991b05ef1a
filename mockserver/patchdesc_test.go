package mockserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// teams.patch and skills.patch: an absent member keeps its value, a string sets it, null
// clears description (and a team's color). Each step runs on what the step before left.
func TestTeamAndSkillPatchDescription(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	teamID := mustAPI(t, srv, http.StatusOK, "POST", "/teams", map[string]any{"key": "red", "name": "Red", "color": "#ff0000"}).json(t)["id"].(string)
	skillID := mustAPI(t, srv, http.StatusCreated, "POST", "/skills", map[string]any{"key": "lift", "name": "Lift", "description": "Forklift"}).json(t)["id"].(string)

	type view struct {
		Name        string  `json:"name"`
		Description *string `json:"description"`
		Color       *string `json:"color"`
	}
	str := func(s string) *string { return &s }
	steps := []struct {
		name, path string
		body       map[string]any
		want       view
	}{
		{"team description set", "/teams/" + teamID, map[string]any{"description": "Night shift"}, view{"Red", str("Night shift"), str("#ff0000")}},
		{"team name alone", "/teams/" + teamID, map[string]any{"name": "Rouge"}, view{"Rouge", str("Night shift"), str("#ff0000")}},
		{"team description and color cleared", "/teams/" + teamID, map[string]any{"description": nil, "color": nil}, view{"Rouge", nil, nil}},
		{"skill name alone", "/skills/" + skillID, map[string]any{"name": "Lifting"}, view{"Lifting", str("Forklift"), nil}},
		{"skill description set", "/skills/" + skillID, map[string]any{"description": "Forklift and crane"}, view{"Lifting", str("Forklift and crane"), nil}},
		{"skill description cleared", "/skills/" + skillID, map[string]any{"description": nil}, view{"Lifting", nil, nil}},
	}
	for _, st := range steps {
		mustAPI(t, srv, http.StatusOK, "PATCH", st.path, st.body)
		var got view
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "GET", st.path, nil).Body, &got))
		if d := cmp.Diff(st.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, d)
		}
	}
}
