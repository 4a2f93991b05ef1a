package shadow

import (
	"fmt"
	"io"
	"strings"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// Outcomes counts how reservations ended.
type Outcomes struct {
	Accepted int `json:"accepted"`
	Rejected int `json:"rejected"`
	TimedOut int `json:"timedOut"`
}

// Answered is the reservations that ended in accept, reject or timeout.
func (o Outcomes) Answered() int { return o.Accepted + o.Rejected + o.TimedOut }

// Rate is the share accepted of those answered; 0 when none was.
func (o Outcomes) Rate() float64 {
	if o.Answered() == 0 {
		return 0
	}
	return float64(o.Accepted) / float64(o.Answered())
}

func (o *Outcomes) add(b Outcomes) {
	o.Accepted += b.Accepted
	o.Rejected += b.Rejected
	o.TimedOut += b.TimedOut
}

// Stats compare one queue's reservations (or all of them) with this service's choices.
type Stats struct {
	Queue string `json:"queue,omitempty"` // the TaskRouter queue sid; "" for the total
	Name  string `json:"name,omitempty"`
	// Reservations TaskRouter made from this queue, and of them: those whose worker was
	// eligible here at that moment, those whose worker was this service's first choice,
	// and those where the worker's standing here is unknown (ranked past what
	// suggest-workers lists).
	//
	// A worker tied for first (see Ties) counts as first choice: the platform could offer
	// the task to any worker of the tie.
	Reservations int `json:"reservations"`
	EligibleHere int `json:"eligibleHere"`
	FirstChoice  int `json:"firstChoice"`
	Unknown      int `json:"unknown"`
	// Ties: reservations for which several workers tie for first here (the same score:
	// the same rank under the platform's rules). TiedFirst: those of FirstChoice whose
	// worker is one of such a tie.
	Ties      int `json:"ties"`
	TiedFirst int `json:"tiedFirst"`
	// There: how TaskRouter's reservations ended. FirstChoiceOutcomes: how those ended
	// whose worker is also this service's first choice, the observed acceptance rate of
	// the choices this service would have made. OtherOutcomes: the rest.
	There               Outcomes `json:"there"`
	FirstChoiceOutcomes Outcomes `json:"firstChoiceOutcomes"`
	OtherOutcomes       Outcomes `json:"otherOutcomes"`
	// Tasks whose first reservation came from this queue, and of them those for which no
	// worker here was eligible at any of their reservations.
	Tasks        int     `json:"tasks"`
	NobodyHere   int     `json:"nobodyHere"`
	EligibleRate float64 `json:"eligibleRate"`
	FirstRate    float64 `json:"firstChoiceRate"`
	AcceptThere  float64 `json:"acceptanceThere"`
	AcceptHere   float64 `json:"acceptanceHere"`
}

func (s *Stats) add(b *Stats) {
	s.Reservations += b.Reservations
	s.EligibleHere += b.EligibleHere
	s.FirstChoice += b.FirstChoice
	s.Unknown += b.Unknown
	s.Ties += b.Ties
	s.TiedFirst += b.TiedFirst
	s.There.add(b.There)
	s.FirstChoiceOutcomes.add(b.FirstChoiceOutcomes)
	s.OtherOutcomes.add(b.OtherOutcomes)
	s.Tasks += b.Tasks
	s.NobodyHere += b.NobodyHere
}

func (s *Stats) rates() {
	if s.Reservations > 0 {
		s.EligibleRate = float64(s.EligibleHere) / float64(s.Reservations)
		s.FirstRate = float64(s.FirstChoice) / float64(s.Reservations)
	}
	s.AcceptThere = s.There.Rate()
	s.AcceptHere = s.FirstChoiceOutcomes.Rate()
}

// Report is the result of a replay.
type Report struct {
	Events   int     `json:"events"`
	Tasks    int     `json:"tasks"`
	Overall  Stats   `json:"overall"`
	Queues   []Stats `json:"queues"`
	Skipped  []Skip  `json:"skipped,omitempty"`
	Rules    string  `json:"rules"`
	Findings int     `json:"planFindings"`
	// MockRequests counts the questions put to the mock server (suggest-workers and
	// availability changes); answers still valid are reused (see Replay).
	MockRequests int `json:"mockRequests"`
	// Shards is how many mock servers compared the reservations side by side (Options.Shards
	// within its bounds); the other members do not depend on it.
	Shards int      `json:"shards"`
	Notes  []string `json:"notes,omitempty"`
	// Reservations is every reservation compared, in the export's order; Standing other
	// than first or tie is a disagreement.
	Reservations []Reservation `json:"reservations"`
}

// Standings of a reservation's worker here.
const (
	StandingFirst       = "first"       // this service's only first choice
	StandingTie         = "tie"         // tied for first: the platform could offer it the task
	StandingEligible    = "eligible"    // eligible, ranked below the first
	StandingNotEligible = "notEligible" // excluded (the reasons say why) or not a candidate
	StandingUnknown     = "unknown"     // ranked past what suggest-workers lists
)

// Reservation is one TaskRouter reservation compared with this service's ranking at its
// moment.
type Reservation struct {
	At          time.Time `json:"at"`
	Task        string    `json:"task"`
	Reservation string    `json:"reservation,omitempty"`
	Queue       string    `json:"queue"`
	Tags        []string  `json:"tags"`
	Priority    float64   `json:"priority"`
	// Worker is TaskRouter's choice; Ended how its reservation ended (accepted, rejected,
	// timedOut; "" when the export does not say).
	Worker   string `json:"worker"`
	Ended    string `json:"ended,omitempty"`
	Standing string `json:"standing"`
	// Vetoed are the workers who rejected the task before: the platform offers them the
	// task no more, so the ranking here leaves them out.
	Vetoed []string `json:"vetoed,omitempty"`
	// Here is this service's first choice (nil: nobody eligible); Tie the workers tied
	// with it (at most 10 named, TieSize counts them all; TieOpen: the listing ended
	// inside the tie, so it may be larger); There is TaskRouter's worker as a candidate
	// here (nil: not listed) and Rank its place among the eligible.
	Here    *taskrouting.Candidate `json:"here,omitempty"`
	Tie     []string               `json:"tie,omitempty"`
	TieSize int                    `json:"tieSize,omitempty"`
	TieOpen bool                   `json:"tieOpen,omitempty"`
	There   *taskrouting.Candidate `json:"there,omitempty"`
	Rank    int                    `json:"rank,omitempty"`
	// WhyHere and WhyThere are the reasons on both sides as the text report prints them.
	WhyHere  string `json:"whyHere"`
	WhyThere string `json:"whyThere"`
}

// Disagrees reports whether TaskRouter's worker is not this service's first choice (nor
// tied for it).
func (r *Reservation) Disagrees() bool {
	return r.Standing != StandingFirst && r.Standing != StandingTie
}

// Skip counts events the replay could not use, by reason.
type Skip struct {
	Reason string `json:"reason"`
	Events int    `json:"events"`
}

func pct(n, of int) string {
	if of == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%5.1f%%", 100*float64(n)/float64(of))
}

func rate(o Outcomes) string {
	if o.Answered() == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%5.1f%% of %d", 100*o.Rate(), o.Answered())
}

// WriteSummary prints the report for a person.
func (r *Report) WriteSummary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "replayed %d events, %d tasks, %d reservations (matching: %s)\n\n", r.Events, r.Tasks, r.Overall.Reservations, r.Rules)
	fmt.Fprintf(&b, "%-24s %6s %9s %9s %6s %15s %15s %7s\n", "queue", "resv", "eligible", "first", "ties", "accepted there", "accepted here", "nobody")
	row := func(name string, s Stats) {
		fmt.Fprintf(&b, "%-24s %6d %9s %9s %6d %15s %15s %7d\n", clip(name, 24), s.Reservations,
			pct(s.EligibleHere, s.Reservations), pct(s.FirstChoice, s.Reservations), s.Ties, rate(s.There), rate(s.FirstChoiceOutcomes), s.NobodyHere)
	}
	for _, q := range r.Queues {
		name := q.Name
		if name == "" {
			name = q.Queue
		}
		row(name, q)
	}
	row("overall", r.Overall)
	fmt.Fprintf(&b, "\neligible: the worker TaskRouter reserved could have been offered the task here.\n")
	fmt.Fprintf(&b, "first: that worker is this service's first choice (alone or tied). accepted here: how often TaskRouter's reservations\n")
	fmt.Fprintf(&b, "were accepted where they went to this service's first choice. nobody: tasks no worker here could take.\n")
	fmt.Fprintf(&b, "ties: reservations for which several workers tie for first here (the same score, so the platform could offer\n")
	fmt.Fprintf(&b, "the task to any of them); TaskRouter's worker among them counts as first (%d reservations). A worker who\n", r.Overall.TiedFirst)
	fmt.Fprintf(&b, "rejected a task is not offered it again here, as on the platform.\n")
	if r.Overall.Unknown > 0 {
		fmt.Fprintf(&b, "%d reservations went to a worker ranked past what suggest-workers lists: counted neither eligible nor first.\n", r.Overall.Unknown)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "skipped %d events: %s\n", s.Events, s.Reason)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "summary: eligible %s, first choice %s (%d by a tie), ties %d, acceptance there %s, here %s, tasks nobody here could take %d of %d\n",
		strings.TrimSpace(pct(r.Overall.EligibleHere, r.Overall.Reservations)), strings.TrimSpace(pct(r.Overall.FirstChoice, r.Overall.Reservations)),
		r.Overall.TiedFirst, r.Overall.Ties,
		strings.TrimSpace(rate(r.Overall.There)), strings.TrimSpace(rate(r.Overall.FirstChoiceOutcomes)), r.Overall.NobodyHere, r.Overall.Tasks)
	_, err := io.WriteString(w, b.String())
	return err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// WriteDisagreements lists the reservations whose worker is not this service's first choice
// (nor tied for it), at most limit of them (all when limit < 0), with the reasons on both
// sides: this service's choice and its reasons, and why TaskRouter's worker ranks lower or
// is not eligible here.
func (r *Report) WriteDisagreements(w io.Writer, limit int) error {
	var b strings.Builder
	n := 0
	for i := range r.Reservations {
		if r.Reservations[i].Disagrees() {
			n++
		}
	}
	fmt.Fprintf(&b, "disagreements: %d of %d reservations\n", n, len(r.Reservations))
	shown := 0
	for i := range r.Reservations {
		v := &r.Reservations[i]
		if !v.Disagrees() {
			continue
		}
		if limit >= 0 && shown == limit {
			fmt.Fprintf(&b, "  ... %d more (-list sets how many; -json lists every reservation)\n", n-shown)
			break
		}
		shown++
		fmt.Fprintf(&b, "  %s %s %s [%s] priority %s\n", v.At.Format(time.RFC3339), v.Task, v.Queue, strings.Join(v.Tags, " "), num(v.Priority))
		fmt.Fprintf(&b, "    here:  %s\n", v.WhyHere)
		ended := v.Ended
		if ended == "" {
			ended = "no outcome"
		}
		fmt.Fprintf(&b, "    there: %-6s (%s)  %s\n", v.Worker, ended, v.WhyThere)
		if len(v.Vetoed) > 0 {
			fmt.Fprintf(&b, "    rejected before, not offered it here: %s\n", strings.Join(v.Vetoed, " "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
