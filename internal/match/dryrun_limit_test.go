package match

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDryRunLimitCountsEveryCandidate: the limit of SuggestWorkers and BookingCandidates
// bounds the whole answer: the eligible workers come first, and the ineligible ones only
// fill what the eligible leave. With 0 the defaults apply (10 and 25).
func TestDryRunLimitCountsEveryCandidate(t *testing.T) {
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		t.Run(string(rules), func(t *testing.T) {
			h := newHarness(t, Config{Rules: rules})
			h.workerIn(WorkerInput{ID: "e1", Tags: []string{"a"}, Available: ptr(true)})
			h.workerIn(WorkerInput{ID: "e2", Tags: []string{"a"}, Available: ptr(true)})
			h.workerIn(WorkerInput{ID: "e3", Tags: []string{"a"}, Available: ptr(true)})
			for _, id := range []string{"v1", "v2", "v3"} {
				h.workerIn(WorkerInput{ID: id, Tags: []string{"a"}, Available: ptr(true)})
			}
			h.taskIn(TaskInput{ID: "t", Tags: []string{"a"}, VetoedWorkers: []string{"v1", "v2", "v3"}})
			ids := func(cs []Candidate) []string {
				out := []string{}
				for _, c := range cs {
					if c.Eligible {
						out = append(out, c.WorkerID[:1])
					} else {
						out = append(out, "-"+c.WorkerID[:1])
					}
				}
				return out
			}
			got := map[string][]string{}
			for _, limit := range []int{2, 3, 4} {
				sug, err := h.e.SuggestWorkers(SuggestInput{Tags: []string{"a"}, VetoedWorkers: []string{"v1", "v2", "v3"}, Limit: limit})
				if err != nil {
					t.Fatal(err)
				}
				got["suggest "+strconv.Itoa(limit)] = ids(sug)
				book, err := h.e.BookingCandidates("t", limit)
				if err != nil {
					t.Fatal(err)
				}
				got["book "+strconv.Itoa(limit)] = ids(book)
			}
			want := map[string][]string{
				"suggest 2": {"e", "e"}, "book 2": {"e", "e"},
				"suggest 3": {"e", "e", "e"}, "book 3": {"e", "e", "e"},
				"suggest 4": {"e", "e", "e", "-v"}, "book 4": {"e", "e", "e", "-v"},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("eligible (e) and vetoed (-v) candidates (-want +got):\n%s", diff)
			}
		})
	}
}
