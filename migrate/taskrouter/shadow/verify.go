package shadow

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// Mismatch is a segment whose tags, under the mock server's matching rules, make other
// workers eligible than the TaskRouter expression selects.
type Mismatch struct {
	Segment  string   `json:"segment"`
	Selected int      `json:"selected"` // workers the expression selects
	Eligible int      `json:"eligible"` // workers eligible here for a task with the segment's tags
	Extra    []string `json:"extra,omitempty"`
}

// verifyTime is the mock server's clock during Verify; nothing in it depends on the time:
// the plan's workers carry no schedule and no skill validUntil, all are available, and
// Verify only asks dry runs (tasks.check, suggest-workers).
var verifyTime = time.Date(2000, 1, 3, 12, 0, 0, 0, time.UTC) // mutation:ignore: any other time gives the same answers

// Verify loads the plan's workers into an in-process mock server, all available, and for
// each segment asks it (tasks.check and tasks.suggestWorkers, dry runs) which workers a
// task with the segment's tags could go to. A segment where that is not exactly the
// workers its expression selects is a Mismatch. Both answers stop at 100 workers, so past
// 100 the check is that 100 are eligible and all of the 100 listed are selected.
func Verify(ctx context.Context, p *plan.Plan) ([]Mismatch, error) {
	return verify(ctx, p)
}

func verify(ctx context.Context, p *plan.Plan, server ...mockserver.Option) ([]Mismatch, error) {
	m, err := newMirror(verifyTime, server...)
	if err != nil {
		return nil, err
	}
	defer m.close()
	ws := slices.Clone(p.Workers)
	for i := range ws {
		ws[i].Available = taskrouting.Ptr(true)
		ws[i].MaxBacklogSize = nil
	}
	if err := m.upsert(ctx, ws); err != nil {
		return nil, err
	}
	var out []Mismatch
	for _, s := range p.Segments {
		if len(s.Tags) == 0 {
			continue
		}
		rep, err := m.c.Tasks.Check(ctx, taskrouting.CreateTaskParams{Tags: s.Tags})
		if err != nil {
			return nil, fmt.Errorf("check segment %s: %w", s.ID, err)
		}
		sug, err := m.c.Tasks.SuggestWorkers(ctx, taskrouting.SuggestWorkersParams{Tags: s.Tags, Limit: 100})
		if err != nil {
			return nil, fmt.Errorf("suggest workers for segment %s: %w", s.ID, err)
		}
		selected := map[string]bool{}
		for _, w := range s.Workers {
			selected[w] = true
		}
		mm := Mismatch{Segment: s.ID, Selected: len(s.Workers), Eligible: rep.EligibleWorkerCount}
		for _, c := range sug.Workers {
			if c.Eligible && !selected[c.WorkerID] {
				mm.Extra = append(mm.Extra, c.WorkerID)
			}
		}
		// tasks.check counts at most 100 eligible workers.
		if mm.Eligible != min(mm.Selected, 100) || len(mm.Extra) > 0 {
			out = append(out, mm)
		}
	}
	return out, nil
}

// PlanVerified builds the plan, verifies it, rebuilds the segments that did not verify with
// one queue tag each, and verifies again. What still does not verify is recorded in the plan
// as plan.KindRulesMismatch findings; the segments that fell back are returned.
func PlanVerified(ctx context.Context, ws *taskrouter.Workspace, opts plan.Options) (*plan.Plan, []Mismatch, error) {
	return planVerified(ctx, ws, opts)
}

func planVerified(ctx context.Context, ws *taskrouter.Workspace, opts plan.Options, server ...mockserver.Option) (*plan.Plan, []Mismatch, error) {
	p := plan.Build(ws, opts)
	first, err := verify(ctx, p, server...)
	if err != nil || len(first) == 0 {
		return p, nil, err
	}
	opts.QueueTagOnly = maps.Clone(opts.QueueTagOnly)
	if opts.QueueTagOnly == nil {
		opts.QueueTagOnly = map[string]bool{}
	}
	for _, mm := range first {
		opts.QueueTagOnly[mm.Segment] = true
	}
	p = plan.Build(ws, opts)
	for _, mm := range first {
		s, _ := p.Segment(mm.Segment)
		p.AddFinding(plan.Finding{Kind: plan.KindSkillTermsFallback, Where: "segment " + mm.Segment,
			Detail: fmt.Sprintf("with one tag per skill term the service's matching rules made %d workers eligible where the expression selects %d; the segment uses one queue tag (%s)",
				mm.Eligible, mm.Selected, strings.Join(s.Tags, " ")), Queues: []string{s.Queue}})
	}
	second, err := verify(ctx, p, server...)
	if err != nil {
		return nil, nil, err
	}
	for _, mm := range second {
		s, _ := p.Segment(mm.Segment)
		p.AddFinding(plan.Finding{Kind: plan.KindRulesMismatch, Where: "segment " + mm.Segment,
			Detail: fmt.Sprintf("the service's matching rules make %d workers eligible where the expression selects %d", mm.Eligible, mm.Selected),
			Queues: []string{s.Queue}, WorkerIDs: mm.Extra})
	}
	return p, first, nil
}
