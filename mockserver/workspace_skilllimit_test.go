package mockserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSkillLimitCountsDistinctTagsAfterTheChange: the skills plan limit counts the distinct
// tags workers carry once a worker's tags change: a tag the worker alone carried and keeps
// is not new, and a tag the worker alone carried and drops frees its place.
func TestSkillLimitCountsDistinctTagsAfterTheChange(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)), WithLimits(Limits{Skills: 3}))
	type outcome struct {
		Status int
		Code   string
	}
	steps := []struct {
		name string
		body map[string]any
		want outcome
	}{
		{"w1 takes a and b", map[string]any{"id": "w1", "tags": []string{"a", "b"}}, outcome{200, ""}},
		{"w1 keeps a and b and adds c: three", map[string]any{"id": "w1", "tags": []string{"a", "b", "c"}}, outcome{200, ""}},
		{"w1 keeps all and adds d: four", map[string]any{"id": "w1", "tags": []string{"a", "b", "c", "d"}}, outcome{402, CodePlanLimitExceeded}},
		{"w1 drops a for d: three", map[string]any{"id": "w1", "tags": []string{"b", "c", "d"}}, outcome{200, ""}},
		{"w2 takes a again: four", map[string]any{"id": "w2", "tags": []string{"c", "a"}}, outcome{402, CodePlanLimitExceeded}},
		{"w2 takes tags w1 carries: three", map[string]any{"id": "w2", "tags": []string{"c", "b"}}, outcome{200, ""}},
	}
	for _, st := range steps {
		a := api(t, srv, "POST", "/workers", st.body)
		got := outcome{Status: a.Status}
		if a.Status != 200 {
			got.Code = a.errCode(t)
		}
		if d := cmp.Diff(st.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s\n%s", st.name, d, a.Body)
		}
	}
}
