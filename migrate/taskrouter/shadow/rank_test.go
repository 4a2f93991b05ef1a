package shadow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

// TestRankingAnswer: where TaskRouter's worker stands in a ranking: first alone, tied for
// first (the same score), eligible below the first (never counted first), vetoed, not
// eligible, or unknown past a listing that is not complete.
func TestRankingAnswer(t *testing.T) {
	c := func(id string, score float64) candidate { return candidate{WorkerID: id, Eligible: true, Score: score} }
	tests := []struct {
		name     string
		eligible []candidate
		others   []string
		complete bool
		worker   string
		vetoed   []string
		want     standing
		more     bool
		ranked   []string
		tie      int // answer.detail's
		rank     int
	}{
		{"first alone", []candidate{c("A", 1), c("B", 0.5)}, nil, true, "A", nil, standingFirst, false, []string{"A"}, 1, 1},
		{"second, ranked lower", []candidate{c("A", 1), c("B", 0.5)}, nil, true, "B", nil, standingEligible, false, []string{"A", "B"}, 1, 2},
		{"second of a tie", []candidate{c("A", 1), c("B", 1), c("C", 0.5)}, nil, true, "B", nil, standingFirst, false, []string{"A", "B"}, 2, 2},
		{"below a tie", []candidate{c("A", 1), c("B", 1), c("C", 0.5)}, nil, true, "C", nil, standingEligible, false, []string{"A", "B", "C"}, 2, 3},
		{"first once the first is vetoed", []candidate{c("A", 1), c("B", 0.5), c("C", 0.25)}, nil, true, "B", []string{"A"}, standingFirst, false, []string{"B"}, 1, 1},
		{"third, second once the first is vetoed", []candidate{c("A", 1), c("B", 0.5), c("C", 0.25)}, nil, true, "C", []string{"A"}, standingEligible, false, []string{"B", "C"}, 1, 2},
		{"vetoed", []candidate{c("A", 1)}, nil, true, "B", []string{"B"}, standingNot, false, []string{"A", "B"}, 1, 0},
		{"listed, not eligible", []candidate{c("A", 1)}, []string{"B"}, true, "B", nil, standingNot, false, []string{"A", "B"}, 1, 0},
		{"not listed, listing complete", []candidate{c("A", 1)}, nil, true, "B", nil, standingNot, false, []string{"A"}, 1, 0},
		{"not listed, listing not complete", []candidate{c("A", 1), c("B", 0.5)}, nil, false, "Z", nil, standingUnknown, true, []string{"A", "B"}, 1, 0},
		{"a tie the listing may not end", []candidate{c("A", 1), c("B", 1)}, nil, false, "A", nil, standingFirst, true, []string{"A", "B"}, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rk := &ranking{eligible: tt.eligible, complete: tt.complete, others: map[string]candidate{}}
			for _, id := range tt.others {
				rk.others[id] = candidate{WorkerID: id}
			}
			ans, more := rk.answer(tt.worker, tt.vetoed)
			_, _, tie, rank := ans.detail(tt.worker)
			got := []any{ans.standing, more, ids(ans.ranked), tie, rank}
			if diff := cmp.Diff([]any{tt.want, tt.more, tt.ranked, tt.tie, tt.rank}, got); diff != "" {
				t.Errorf("standing, more, ranked, tie, rank (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVerifyPast100Workers: tasks.check and suggest-workers stop at 100 workers, so a
// segment of more than 100 is verified as far as they reach: 150 workers all selected
// verify; 150 eligible where the expression selects 75 do not.
func TestVerifyPast100Workers(t *testing.T) {
	var workers []string
	for i := range 150 {
		workers = append(workers, fmt.Sprintf(`{"sid":"WK%03d","attributes":"{\"skills\":[\"a\"]}","available":true}`, i))
	}
	ws, err := taskrouter.ParseWorkspace([]byte(`{"workers":[` + strings.Join(workers, ",") + `],
	 "task_queues":[{"sid":"WQa","friendly_name":"A","target_workers":"skills HAS 'a'"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Build(ws, plan.Options{Now: t0})
	mm, err := Verify(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(mm) != 0 {
		t.Errorf("150 workers, all selected: %+v", mm)
	}
	s, _ := p.Segment("WQa")
	var half []string
	for i, w := range s.Workers {
		if i%2 == 0 {
			half = append(half, w)
		}
	}
	s.Workers = half
	mm, err = Verify(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(mm) != 1 || mm[0].Selected != 75 || mm[0].Eligible != 100 || len(mm[0].Extra) == 0 {
		t.Errorf("150 eligible, 75 selected: %+v", mm)
	}
	// 120 selected (all but the first 30, which tie with them): both answers reach 100 as
	// they should, and the workers listed that the expression does not select are the
	// mismatch.
	s.Workers = nil
	for _, w := range p.Workers[30:] {
		s.Workers = append(s.Workers, w.ID)
	}
	mm, err = Verify(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(mm) != 1 || mm[0].Selected != 120 || mm[0].Eligible != 100 || len(mm[0].Extra) == 0 {
		t.Errorf("150 eligible, 120 selected: %+v", mm)
	}
}

// TestDetailNamesAtMostTenOfATie: a reservation's detail names the first 10 workers of the
// tie for first and counts them all (Reservation.Tie and TieSize); the worker's own
// candidate is kept beside them when it is past the tenth.
func TestDetailNamesAtMostTenOfATie(t *testing.T) {
	tied := func(n int) []candidate {
		var cs []candidate
		for i := range n {
			cs = append(cs, candidate{WorkerID: fmt.Sprintf("W%02d", i), Eligible: true, Score: 1})
		}
		return append(cs, candidate{WorkerID: "LOW", Eligible: true, Score: 0.5})
	}
	names := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("W%02d", i))
		}
		return out
	}
	tests := []struct {
		name      string
		ranked    []candidate
		worker    string
		top       []string
		self      string
		tie, rank int
	}{
		{"a tie of 9", tied(9), "W08", names(0, 9), "W08", 9, 9},
		{"a tie of 10", tied(10), "W09", names(0, 10), "W09", 10, 10},
		{"a tie of 11: the eleventh is not named", tied(11), "W10", names(0, 10), "W10", 11, 11},
		{"a tie of 12, the worker below it", tied(12), "LOW", names(0, 10), "LOW", 12, 13},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top, self, tie, rank := answer{ranked: tt.ranked}.detail(tt.worker)
			selfID := ""
			if self != nil {
				selfID = self.WorkerID
			}
			got := []any{ids(top), selfID, tie, rank}
			if diff := cmp.Diff([]any{tt.top, tt.self, tt.tie, tt.rank}, got); diff != "" {
				t.Errorf("top, self, tie, rank (-want +got):\n%s", diff)
			}
		})
	}
}
