package shadow

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// Explanation compares a past choice with a tasks.suggestWorkers ranking: this service's
// choice, the workers tied with it, and where the past choice stands.
type Explanation struct {
	// Choice is this service's first choice, the first eligible candidate; nil when no
	// worker is eligible.
	Choice *taskrouting.Candidate
	// Tie lists the eligible workers whose score equals Choice's, Choice first, when there
	// are several: they rank the same under the platform's rules, so the platform could
	// offer the task to any of them (which one the mock server lists first is its own
	// order, not the platform's).
	Tie []string
	// TieSize is how many workers tie for first: len(Tie), or more where a caller names
	// only some of them.
	TieSize int
	// Worker is the past choice's candidate; nil when the ranking does not list it.
	Worker *taskrouting.Candidate
	// Rank is the past choice's 1-based place among the eligible candidates; 0 when it is
	// not eligible or not listed.
	Rank int
}

// Explain compares worker, the past choice, with cands, a ranking as tasks.suggestWorkers
// returns it: eligible candidates best first, then the others.
func Explain(cands []taskrouting.Candidate, worker string) Explanation {
	var e Explanation
	if len(cands) > 0 && cands[0].Eligible {
		e.Choice = &cands[0]
		for _, c := range cands[1:] {
			if !c.Eligible || c.Score != e.Choice.Score {
				break
			}
			if e.Tie == nil {
				e.Tie = []string{e.Choice.WorkerID}
			}
			e.Tie = append(e.Tie, c.WorkerID)
		}
		e.TieSize = len(e.Tie)
	}
	if i := slices.IndexFunc(cands, func(c taskrouting.Candidate) bool { return c.WorkerID == worker }); i >= 0 {
		e.Worker = &cands[i]
		if cands[i].Eligible {
			e.Rank = i + 1
		}
	}
	return e
}

// Agree reports whether the past choice is this service's first choice, or tied with it.
func (e Explanation) Agree() bool {
	return e.Choice != nil && e.Worker != nil && e.Worker.Eligible && e.Worker.Score == e.Choice.Score
}

// Here describes this service's choice: "alice  score 1  billing x1", with the tie.
func (e Explanation) Here() string {
	if e.Choice == nil {
		return "no eligible worker now"
	}
	s := strings.TrimRight(fmt.Sprintf("%-6s score %s  %s", e.Choice.WorkerID, num(e.Choice.Score), FormatReasons(e.Choice.Reasons)), " ")
	if e.TieSize > 1 {
		s += fmt.Sprintf("  (tie of %d: %s)", e.TieSize, listIDs(e.Tie, 8, e.TieSize))
	}
	return s
}

// There describes the past choice's standing here: "not eligible: unavailable", "ranked 2,
// score 0.5  billing x1", "tied for first, score 1  ...", or why it is not listed.
func (e Explanation) There() string {
	switch {
	case e.Worker == nil:
		return "not a candidate: unknown to the service, carries none of the task's tags, or ranked past the candidates listed"
	case !e.Worker.Eligible:
		return "not eligible: " + FormatReasons(e.Worker.Reasons)
	case e.Agree() && e.TieSize > 1:
		return strings.TrimRight(fmt.Sprintf("tied for first, score %s  %s", num(e.Worker.Score), FormatReasons(e.Worker.Reasons)), " ")
	}
	return strings.TrimRight(fmt.Sprintf("ranked %d, score %s  %s", e.Rank, num(e.Worker.Score), FormatReasons(e.Worker.Reasons)), " ")
}

// FormatReasons prints a candidate's reasons compactly, e.g. "billing x3, missingTag
// spanish". Reason kinds are additive: an unknown kind is printed by name.
func FormatReasons(rs []taskrouting.Reason) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		tag := r.Tag
		if tag == "" && len(r.Raw) > 0 {
			var x struct {
				Tag string `json:"tag"`
			}
			_ = json.Unmarshal(r.Raw, &x) // Kind is decoded; the rest is optional detail
			tag = x.Tag
		}
		switch {
		case r.Kind == taskrouting.ReasonTagWeight && tag != "":
			parts = append(parts, tag+" x"+num(r.Weight))
		case tag != "":
			parts = append(parts, r.Kind+" "+tag)
		default:
			parts = append(parts, r.Kind)
		}
	}
	return strings.Join(parts, ", ")
}

// listIDs names at most n of ids, and says how many of total it leaves out.
func listIDs(ids []string, n, total int) string {
	ids = ids[:min(n, len(ids))]
	if total <= len(ids) {
		return strings.Join(ids, " ")
	}
	return strings.Join(ids, " ") + fmt.Sprintf(" and %d more", total-len(ids))
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
