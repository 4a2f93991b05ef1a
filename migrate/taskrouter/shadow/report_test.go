package shadow

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRatesAreSharesOfReservations: the eligible and first-choice rates are shares of the
// reservations, and 0 (not NaN, which JSON cannot carry) for a queue with none.
func TestRatesAreSharesOfReservations(t *testing.T) {
	for _, tc := range []struct {
		name              string
		s                 Stats
		eligible, firstCh float64
	}{
		{"some reservations", Stats{Reservations: 4, EligibleHere: 3, FirstChoice: 1}, 0.75, 0.25},
		{"no reservation", Stats{}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			s.rates()
			if diff := cmp.Diff([2]float64{tc.eligible, tc.firstCh}, [2]float64{s.EligibleRate, s.FirstRate}); diff != "" {
				t.Errorf("[eligible, first] rates (-want +got):\n%s", diff)
			}
			if _, err := json.Marshal(s); err != nil {
				t.Errorf("stats do not encode: %v", err)
			}
		})
	}
}

// TestSummaryTellsOfUnknownStandings: the summary says how many reservations went to a
// worker ranked past what suggest-workers lists, and says nothing of it when none did.
func TestSummaryTellsOfUnknownStandings(t *testing.T) {
	for _, tc := range []struct {
		unknown int
		want    bool
	}{{0, false}, {3, true}} {
		rep := &Report{Rules: RulesName, Overall: Stats{Reservations: 5, Unknown: tc.unknown}}
		var out bytes.Buffer
		if err := rep.WriteSummary(&out); err != nil {
			t.Fatal(err)
		}
		line := "3 reservations went to a worker ranked past what suggest-workers lists"
		if got := strings.Contains(out.String(), "ranked past what suggest-workers lists"); got != tc.want {
			t.Errorf("unknown %d: line %q printed %v, want %v:\n%s", tc.unknown, line, got, tc.want, out.String())
		}
		if tc.want && !strings.Contains(out.String(), line) {
			t.Errorf("unknown %d: want %q in:\n%s", tc.unknown, line, out.String())
		}
	}
}
