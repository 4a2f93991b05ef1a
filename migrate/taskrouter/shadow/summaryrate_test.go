package shadow

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSummaryRateWithNothingAnsweredIsNA: an acceptance rate over no answered reservation
// is "n/a" in the summary and in the queue rows, never "0.0% of 0"; a rate over some
// answered reservations says how many.
func TestSummaryRateWithNothingAnsweredIsNA(t *testing.T) {
	q := Stats{Queue: "WQ1", Name: "Sales", Reservations: 2, EligibleHere: 1,
		There: Outcomes{Accepted: 1, Rejected: 1}}
	rep := &Report{Events: 4, Tasks: 2, Rules: RulesName, Overall: q, Queues: []Stats{q}}
	rep.Overall.Queue, rep.Overall.Name = "", ""
	var out bytes.Buffer
	if err := rep.WriteSummary(&out); err != nil {
		t.Fatal(err)
	}
	var summary, row string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "summary: ") {
			summary = l
		}
		if strings.HasPrefix(l, "Sales ") {
			row = strings.Join(strings.Fields(l), " ")
		}
	}
	want := "summary: eligible 50.0%, first choice 0.0% (0 by a tie), ties 0, acceptance there 50.0% of 2, here n/a, tasks nobody here could take 0 of 0"
	if diff := cmp.Diff(want, summary); diff != "" {
		t.Errorf("summary line (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("Sales 2 50.0% 0.0% 0 50.0% of 2 n/a 0", row); diff != "" {
		t.Errorf("queue row, spaces folded (-want +got):\n%s", diff)
	}
	if strings.Contains(out.String(), "% of 0") {
		t.Errorf("a rate over nothing printed as a share of 0:\n%s", out.String())
	}
}
