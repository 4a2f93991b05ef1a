package mockserver

import (
	"encoding/json"
	"testing"
)

// TestTeamScopeHoldsTasksOfItsTeamOnly: a team-scoped supervisor's task is one carrying the
// team's routing tag or naming the team in teamId (compared decoded); a task naming another
// team, carrying another tag, or naming nothing is outside.
func TestTeamScopeHoldsTasksOfItsTeamOnly(t *testing.T) {
	key := "a"
	sc := scope{teamKey: &key, teamTag: "team:a", teamID: "team_a"}
	named := func(raw string) any {
		return &taskExtra{others: map[string]json.RawMessage{"teamId": json.RawMessage(raw)}}
	}
	tests := []struct {
		name  string
		tags  []string
		extra any
		want  bool
	}{
		{"the team's tag", []string{"en", "team:a"}, &taskExtra{}, true},
		{"the team's id", []string{"en"}, named(`"team_a"`), true},
		{"the team's id, escaped", []string{"en"}, named(`"team\u005fa"`), true},
		{"another team's id", []string{"en"}, named(`"team_b"`), false},
		{"a teamId that is not a string", []string{"en"}, named(`5`), false},
		{"another team's tag", []string{"team:b"}, &taskExtra{}, false},
		{"nothing", []string{"en"}, &taskExtra{}, false},
		{"no extra", []string{"en"}, nil, false},
	}
	for _, tc := range tests {
		if got := sc.hasTask(tc.tags, tc.extra); got != tc.want {
			t.Errorf("%s: hasTask = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !(scope{whole: true}).hasTask(nil, nil) {
		t.Error("a whole-workspace scope holds every task")
	}
}
