package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WorkersJSON is the worker upsert file: a JSON array of taskrouting.UpsertWorkerParams,
// one per TaskRouter worker under its sid. examples/shadow-run reads the same format
// (-workers), and each entry is one c.Workers.Upsert call.
func (p *Plan) WorkersJSON() ([]byte, error) {
	return json.MarshalIndent(p.Workers, "", "  ")
}

// Mapping is the mapping file: segments, rules, findings and their summary.
type Mapping struct {
	Segments []Segment     `json:"segments"`
	Rules    []Rule        `json:"rules"`
	Findings []Finding     `json:"findings"`
	Summary  []KindSummary `json:"summary"`
}

// MappingJSON is the mapping file as JSON.
func (p *Plan) MappingJSON() ([]byte, error) {
	return json.MarshalIndent(Mapping{Segments: p.Segments, Rules: p.Rules, Findings: p.Findings, Summary: p.Summary()}, "", "  ")
}

// WriteReport prints the plan for a person: each queue's tags and members, each rule, and
// every finding grouped by kind with the queues and workers it affects.
func (p *Plan) WriteReport(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d workers, %d queues (%d segments), %d workflow rules\n\n", len(p.Workers), p.queueCount(), len(p.Segments), len(p.Rules))
	b.WriteString("queues:\n")
	for _, s := range p.Segments {
		name := s.QueueName
		if s.Narrowing != "" {
			name += " narrowed by " + s.Narrowing
		}
		fmt.Fprintf(&b, "  %-22s %-28s %-8s %3d workers  tags %s\n", s.ID, clip(name, 28), s.Strategy, len(s.Workers), strings.Join(s.Tags, " "))
	}
	b.WriteString("\nrules:\n")
	for _, r := range p.Rules {
		cond := r.Expression
		if r.Index < 0 {
			cond = "(default)"
		}
		fmt.Fprintf(&b, "  %s %q: %s\n", r.WorkflowName, r.Filter, cond)
		for i, t := range r.Tiers {
			prio := "task's own"
			if t.Priority != nil {
				prio = fmt.Sprint(*t.Priority)
			}
			mark := ""
			if t.Untranslated {
				mark = "  (partly untranslated, see findings)"
			}
			fmt.Fprintf(&b, "    tier %d: tags %s, priority %s%s\n", i, strings.Join(t.Tags, " "), prio, mark)
		}
		switch {
		case r.Escalation != nil && len(r.Tiers) == 1:
			fmt.Fprintf(&b, "    offer timeout: %s (task_reservation_timeout)\n", r.Escalation.RespondWithin)
		case r.Escalation != nil:
			fmt.Fprintf(&b, "    escalation: an offer unanswered for %s steps to the next tier (priority +%g)\n", r.Escalation.RespondWithin, r.Escalation.PriorityBoost)
		}
	}
	b.WriteString("\nnot translated:\n")
	if len(p.Findings) == 0 {
		b.WriteString("  nothing\n")
	}
	for _, k := range p.Summary() {
		fmt.Fprintf(&b, "  %s: %d findings, %d queues, %d workers affected\n", k.Kind, k.Findings, k.Queues, k.Workers)
		for _, f := range p.Findings {
			if f.Kind != k.Kind {
				continue
			}
			fmt.Fprintf(&b, "    %s", f.Where)
			if f.Expression != "" {
				fmt.Fprintf(&b, ": %s", f.Expression)
			}
			fmt.Fprintf(&b, "\n      %s\n", f.Detail)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (p *Plan) queueCount() int {
	n := 0
	for _, s := range p.Segments {
		if s.ID == s.Queue {
			n++
		}
	}
	return n
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
