package mockserver

import "testing"

// TestSummarizeSaysWhatToFixFirst: the one-line summary of why a task waits names the tags no
// worker carries (one, or several in order), else says no worker carries any of its tags,
// else lists the nearest workers with what each lacks or that it is eligible.
func TestSummarizeSaysWhatToFixFirst(t *testing.T) {
	for _, tc := range []struct {
		in   Unmatched
		want string
	}{
		{Unmatched{UncarriedTags: []string{"a"}}, "no worker carries tag a"},
		{Unmatched{UncarriedTags: []string{"a", "b"}}, "no worker carries tags a, b"},
		{Unmatched{UncarriedTags: []string{"a", "b", "c"}}, "no worker carries tags a, b, c"},
		{Unmatched{}, "no worker carries its tags"},
		{Unmatched{NearestWorkers: []NearestWorker{{WorkerID: "w1"}}}, "nearest workers: w1 eligible, other tasks first"},
		{Unmatched{NearestWorkers: []NearestWorker{
			{WorkerID: "w1", Lacks: []MatchReason{{Kind: "missingTag", Tag: "b"}}},
			{WorkerID: "w2"},
		}}, "nearest workers: w1 missingTag b; w2 eligible, other tasks first"},
	} {
		if got := summarize(&tc.in); got != tc.want {
			t.Errorf("summarize(%+v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
