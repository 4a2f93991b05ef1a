package shadow

import (
	"fmt"
	"io"
	"strings"
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
	Reservations int `json:"reservations"`
	EligibleHere int `json:"eligibleHere"`
	FirstChoice  int `json:"firstChoice"`
	Unknown      int `json:"unknown"`
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
	MockRequests int      `json:"mockRequests"`
	Notes        []string `json:"notes,omitempty"`
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
	fmt.Fprintf(&b, "%-24s %6s %9s %9s %15s %15s %7s\n", "queue", "resv", "eligible", "first", "accepted there", "accepted here", "nobody")
	row := func(name string, s Stats) {
		fmt.Fprintf(&b, "%-24s %6d %9s %9s %15s %15s %7d\n", clip(name, 24), s.Reservations,
			pct(s.EligibleHere, s.Reservations), pct(s.FirstChoice, s.Reservations), rate(s.There), rate(s.FirstChoiceOutcomes), s.NobodyHere)
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
	fmt.Fprintf(&b, "first: that worker is this service's first choice. accepted here: how often TaskRouter's reservations\n")
	fmt.Fprintf(&b, "were accepted where they went to this service's first choice. nobody: tasks no worker here could take.\n")
	if r.Overall.Unknown > 0 {
		fmt.Fprintf(&b, "%d reservations went to a worker ranked past what suggest-workers lists: counted neither eligible nor first.\n", r.Overall.Unknown)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "skipped %d events: %s\n", s.Events, s.Reason)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "summary: eligible %s, first choice %s, acceptance there %s, here %s, tasks nobody here could take %d of %d\n",
		strings.TrimSpace(pct(r.Overall.EligibleHere, r.Overall.Reservations)), strings.TrimSpace(pct(r.Overall.FirstChoice, r.Overall.Reservations)),
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
