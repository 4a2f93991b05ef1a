package shadow

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

// TestWriteSummaryLayout: the whole summary of a report built by hand, every figure worked
// out from the counts: the header row and its columns; one row per queue in the report's
// order (the name, or the sid when the queue has none; a name longer than 24 characters
// clipped to 24 with an ellipsis; rates over no reservation n/a); the overall row; the
// explanation with the count of first choices by a tie; the reservations of unknown
// standing; the skipped events; the notes; the summary line.
func TestWriteSummaryLayout(t *testing.T) {
	a := Stats{Queue: "WQ1", Name: "Billing and refunds, Spanish desk", Reservations: 8, EligibleHere: 6, FirstChoice: 4,
		Unknown: 2, Ties: 2, TiedFirst: 1, There: Outcomes{Accepted: 5, Rejected: 2, TimedOut: 1},
		FirstChoiceOutcomes: Outcomes{Accepted: 3, Rejected: 1}, Tasks: 5, NobodyHere: 1}
	b := Stats{Queue: "WQ2", Reservations: 3, EligibleHere: 1, There: Outcomes{Accepted: 1, TimedOut: 2}, Tasks: 4, NobodyHere: 2}
	c := Stats{Queue: "WQ3", Name: "Retention and win-back 2"} // 24 characters: not clipped
	all := Stats{Reservations: 11, EligibleHere: 7, FirstChoice: 4, Unknown: 2, Ties: 2, TiedFirst: 1,
		There: Outcomes{Accepted: 6, Rejected: 2, TimedOut: 3}, FirstChoiceOutcomes: Outcomes{Accepted: 3, Rejected: 1}, Tasks: 9, NobodyHere: 3}
	rep := &Report{Events: 120, Tasks: 9, Rules: RulesName, Overall: all, Queues: []Stats{a, b, c},
		Skipped: []Skip{{Reason: "activity update of a worker not in the workspace", Events: 2}},
		Notes:   []string{"the plan has 3 findings (constructs not translated); see the plan report"}}
	var out bytes.Buffer
	if err := rep.WriteSummary(&out); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"replayed 120 events, 9 tasks, 11 reservations (matching: the mock server's default rules)",
		"",
		"queue                      resv  eligible     first   ties  accepted there   accepted here  nobody",
		"Billing and refunds, Sp…      8     75.0%     50.0%      2      62.5% of 8      75.0% of 4       1",
		"WQ2                           3     33.3%      0.0%      0      33.3% of 3             n/a       2",
		"Retention and win-back 2      0       n/a       n/a      0             n/a             n/a       0",
		"overall                      11     63.6%     36.4%      2     54.5% of 11      75.0% of 4       3",
		"",
		"eligible: the worker TaskRouter reserved could have been offered the task here.",
		"first: that worker is this service's first choice (alone or tied). accepted here: how often TaskRouter's reservations",
		"were accepted where they went to this service's first choice. nobody: tasks no worker here could take.",
		"ties: reservations for which several workers tie for first here (the same score, so the platform could offer",
		"the task to any of them); TaskRouter's worker among them counts as first (1 reservations). A worker who",
		"rejected a task is not offered it again here, as on the platform.",
		"2 reservations went to a worker ranked past what suggest-workers lists: counted neither eligible nor first.",
		"skipped 2 events: activity update of a worker not in the workspace",
		"note: the plan has 3 findings (constructs not translated); see the plan report",
		"summary: eligible 63.6%, first choice 36.4% (1 by a tie), ties 2, acceptance there 54.5% of 11, here 75.0% of 4, tasks nobody here could take 3 of 9",
		"",
	}, "\n")
	if diff := cmp.Diff(strings.Split(want, "\n"), strings.Split(out.String(), "\n")); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// TestReplayNotesThePlansFindings: a replay of a plan with findings carries a note that says
// how many (the plan report lists them); one of a plan without findings carries none.
func TestReplayNotesThePlansFindings(t *testing.T) {
	ws := workspace(t)
	p, _, err := PlanVerified(t.Context(), ws, plan.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	clean := *p
	clean.Findings = nil
	withFindings := *p
	withFindings.Findings = slices.Clone(p.Findings)
	for len(withFindings.Findings) < 2 {
		withFindings.Findings = append(withFindings.Findings, plan.Finding{Kind: plan.KindUnparsable, Where: "a test's filter"})
	}
	n := len(withFindings.Findings)
	for _, tc := range []struct {
		name  string
		p     *plan.Plan
		notes []string
	}{
		{"no findings", &clean, nil},
		{"findings", &withFindings, []string{fmt.Sprintf("the plan has %d findings (constructs not translated); see the plan report", n)}},
	} {
		rep, err := Replay(t.Context(), ws, tc.p, strings.NewReader(scenario), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.notes, rep.Notes); diff != "" {
			t.Errorf("%s: notes (-want +got):\n%s", tc.name, diff)
		}
		if rep.Findings != len(tc.p.Findings) {
			t.Errorf("%s: report counts %d findings, the plan has %d", tc.name, rep.Findings, len(tc.p.Findings))
		}
	}
}
