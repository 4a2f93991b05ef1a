package shadow

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
)

func TestExplain(t *testing.T) {
	cand := func(id string, eligible bool, score float64, reasons ...taskrouting.Reason) taskrouting.Candidate {
		return taskrouting.Candidate{WorkerID: id, Eligible: eligible, Score: score, Reasons: reasons}
	}
	weight := func(tag string, w float64) taskrouting.Reason {
		return taskrouting.Reason{Kind: taskrouting.ReasonTagWeight, Tag: tag, Weight: w}
	}
	unavailable := taskrouting.Reason{Kind: taskrouting.ReasonUnavailable}
	tests := []struct {
		name        string
		cands       []taskrouting.Candidate
		worker      string
		agree       bool
		tie         []string
		rank        int
		here, there string
	}{
		{"first alone", []taskrouting.Candidate{cand("amy", true, 3, weight("billing", 3)), cand("bo", true, 2)}, "amy", true, nil, 1,
			"amy    score 3  billing x3", "ranked 1, score 3  billing x3"},
		{"ranked lower", []taskrouting.Candidate{cand("amy", true, 3, weight("billing", 3)), cand("bo", true, 2, weight("billing", 2))}, "bo", false, nil, 2,
			"amy    score 3  billing x3", "ranked 2, score 2  billing x2"},
		{"tied, listed second", []taskrouting.Candidate{cand("amy", true, 1, weight("a", 1)), cand("bo", true, 1, weight("a", 1)), cand("cy", true, 0.5)}, "bo", true, []string{"amy", "bo"}, 2,
			"amy    score 1  a x1  (tie of 2: amy bo)", "tied for first, score 1  a x1"},
		{"below a tie", []taskrouting.Candidate{cand("amy", true, 1), cand("bo", true, 1), cand("cy", true, 0.5)}, "cy", false, []string{"amy", "bo"}, 3,
			"amy    score 1  (tie of 2: amy bo)", "ranked 3, score 0.5"},
		{"not eligible", []taskrouting.Candidate{cand("amy", true, 1), cand("finn", false, 0, unavailable)}, "finn", false, nil, 0,
			"amy    score 1", "not eligible: unavailable"},
		{"not listed", []taskrouting.Candidate{cand("amy", true, 1)}, "zed", false, nil, 0,
			"amy    score 1", "not a candidate: unknown to the service, carries none of the task's tags, or ranked past the candidates listed"},
		{"nobody eligible", []taskrouting.Candidate{cand("finn", false, 0, unavailable)}, "finn", false, nil, 0,
			"no eligible worker now", "not eligible: unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Explain(tt.cands, tt.worker)
			got := []any{e.Agree(), e.Tie, e.Rank, e.Here(), e.There()}
			if diff := cmp.Diff([]any{tt.agree, tt.tie, tt.rank, tt.here, tt.there}, got); diff != "" {
				t.Errorf("agree, tie, rank, here, there (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHereNamesAtMostEightOfATie: this service's choice names at most 8 workers of a tie
// for first and says how many more tie (TieSize counts them all, also past those a caller
// listed).
func TestHereNamesAtMostEightOfATie(t *testing.T) {
	tied := func(n int) []taskrouting.Candidate {
		var cs []taskrouting.Candidate
		for i := range n {
			cs = append(cs, taskrouting.Candidate{WorkerID: fmt.Sprintf("w%d", i), Eligible: true, Score: 1})
		}
		return cs
	}
	listed10of12 := Explain(tied(10), "w0")
	listed10of12.TieSize = 12
	for _, tc := range []struct {
		name string
		e    Explanation
		want string
	}{
		{"a tie of 8", Explain(tied(8), "w0"), "w0     score 1  (tie of 8: w0 w1 w2 w3 w4 w5 w6 w7)"},
		{"a tie of 9", Explain(tied(9), "w0"), "w0     score 1  (tie of 9: w0 w1 w2 w3 w4 w5 w6 w7 and 1 more)"},
		{"10 listed of a tie of 12", listed10of12, "w0     score 1  (tie of 12: w0 w1 w2 w3 w4 w5 w6 w7 and 4 more)"},
	} {
		if diff := cmp.Diff(tc.want, tc.e.Here()); diff != "" {
			t.Errorf("%s: Here (-want +got):\n%s", tc.name, diff)
		}
	}
}
