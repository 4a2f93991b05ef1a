package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIneligibleCandidateShowsItsWholeScore: an explanation scores a worker it rules out as
// it would score it eligible: its tag score plus its routing bonus (a required skill held at
// level 2 adds 2 × SkillLevelWeight), under either rule set.
func TestIneligibleCandidateShowsItsWholeScore(t *testing.T) {
	for _, rules := range []Rules{RulesEveryTag, RulesPlatform} {
		t.Run(string(rules), func(t *testing.T) {
			h := newHarness(t, Config{Rules: rules})
			h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(false),
				Routing: &WorkerRouting{Skills: []WorkerSkill{{ID: "s", Level: 2}}}})
			u, err := h.e.NearestWorkers(SuggestInput{Tags: []string{"a"}, Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s", MinLevel: 1}}}}, 5)
			if err != nil {
				t.Fatal(err)
			}
			type line struct {
				Worker   string
				Eligible bool
				Score    float64
			}
			var got []line
			for _, n := range u.Nearest {
				got = append(got, line{Worker: n.WorkerID, Eligible: n.Eligible, Score: n.Score})
			}
			want := []line{{Worker: "w1", Score: 1 + 2*SkillLevelWeight}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
