package mockserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// worker.setSkills replaces the worker's whole skill set: a skill kept keeps the weight
// override an operator set (at the new level), a skill dropped loses it, so it comes back
// without one. An unknown or repeated skill is 400 and the set stays as it was.
func TestWorkerSetSkillsKeepsOverridesAndRefusesBadSkills(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	lift := mustAPI(t, srv, http.StatusCreated, "POST", "/skills", map[string]any{"key": "forklift", "name": "Forklift"}).json(t)["id"].(string)
	crane := mustAPI(t, srv, http.StatusCreated, "POST", "/skills", map[string]any{"key": "crane", "name": "Crane"}).json(t)["id"].(string)
	mustAPI(t, srv, http.StatusOK, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}})
	mustAPI(t, srv, http.StatusOK, "PATCH", "/workers/w1", map[string]any{"skills": []any{
		map[string]any{"skillId": "forklift", "level": 2, "weightOverride": 90},
		map[string]any{"skillId": "crane", "level": 1, "weightOverride": 50},
	}})
	token := signIn(t, srv, "w1")

	type held struct {
		SkillID        string   `json:"skillId"`
		Level          int      `json:"level"`
		Weight         float64  `json:"weight"`
		WeightOverride *float64 `json:"weightOverride"`
	}
	stored := func() []held {
		var w struct {
			Skills []held `json:"skills"`
		}
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "GET", "/workers/w1", nil).Body, &w))
		return w.Skills
	}
	ninety := 90.0
	steps := []struct {
		name   string
		skills []any
		status int
		code   string
		want   []held
	}{
		{"forklift kept at a new level, crane dropped", []any{map[string]any{"skillId": "forklift", "level": 4}}, 200, "",
			[]held{{lift, 4, 90, &ninety}}},
		{"crane back, without its old override", []any{map[string]any{"skillId": "forklift", "level": 4}, map[string]any{"skillId": crane, "level": 1}}, 200, "",
			[]held{{lift, 4, 90, &ninety}, {crane, 1, 20, nil}}},
		{"unknown skill", []any{map[string]any{"skillId": "nope", "level": 2}}, 400, CodeValidationFailed,
			[]held{{lift, 4, 90, &ninety}, {crane, 1, 20, nil}}},
		{"one skill twice, by id and by key", []any{map[string]any{"skillId": lift, "level": 2}, map[string]any{"skillId": "forklift", "level": 3}}, 400, CodeValidationFailed,
			[]held{{lift, 4, 90, &ninety}, {crane, 1, 20, nil}}},
	}
	for _, st := range steps {
		a := call(t, srv, token, "PUT", "/portal/me/skills", map[string]any{"skills": st.skills})
		if a.Status != st.status || (st.code != "" && a.errCode(t) != st.code) {
			t.Errorf("%s: %d %s, want %d %s", st.name, a.Status, a.Body, st.status, st.code)
		}
		if d := cmp.Diff(st.want, stored()); d != "" {
			t.Errorf("%s: stored skills (-want +got):\n%s", st.name, d)
		}
	}
}
