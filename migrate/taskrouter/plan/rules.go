package plan

import (
	"fmt"
	"strconv"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/expr"
)

// Rule is one workflow filter (or a workflow's default filter) in this service's terms:
// the tasks its expression matches get the first tier's tags and priority, and the later
// tiers as an escalation ladder.
type Rule struct {
	Workflow     string `json:"workflow"`
	WorkflowName string `json:"workflowName"`
	Filter       string `json:"filter"`
	// Index is the filter's position in the workflow; -1 for the default filter.
	Index      int    `json:"index"`
	Expression string `json:"expression"`
	Tiers      []Tier `json:"tiers"`
	// Escalation is the task's escalation for tasks.create: with several tiers the ladder;
	// with one, only the offer timeout (RespondWithin), the workflow's
	// task_reservation_timeout. Nil for a rule without tiers.
	Escalation *taskrouting.Escalation `json:"escalation,omitempty"`
	node       expr.Node
}

// Tier is one workflow target.
type Tier struct {
	Segment   string   `json:"segment"` // Segment.ID; "" for a known-worker target without a queue
	TaskQueue string   `json:"taskQueue"`
	Tags      []string `json:"tags"`
	// Priority is the target's priority; nil leaves the task's own.
	Priority *float64 `json:"priority,omitempty"`
	// TimeoutSeconds is how long TaskRouter kept the task at this target.
	TimeoutSeconds *float64 `json:"timeoutSeconds,omitempty"`
	Expression     string   `json:"expression,omitempty"`
	// Untranslated: part of this target (its expression, a known worker) is not in the tags.
	Untranslated bool `json:"untranslated,omitempty"`
}

// Matches reports whether a task with these attributes, created at now, takes this rule's
// filter (the default filter matches everything).
func (r *Rule) Matches(attrs any, now time.Time) bool {
	if r.node == nil {
		return r.Index < 0
	}
	return expr.Eval(r.node, &expr.Env{Default: expr.ScopeTask, Task: attrs, Now: now})
}

// Route finds the rule for a task of workflow wf: the first filter in order whose expression
// the attributes match, else the default filter. ok is false when none applies.
func (p *Plan) Route(wf string, attrs any, now time.Time) (*Rule, bool) {
	var def *Rule
	for _, i := range p.rulesOf(wf) {
		r := &p.Rules[i]
		if r.Workflow != wf {
			continue
		}
		if r.Index < 0 {
			def = r
			continue
		}
		if r.Matches(attrs, now) {
			return r, true
		}
	}
	return def, def != nil
}

// rulesOf is the indexes in Rules of workflow wf's rules, in order: from the index Build
// made, so routing a task reads its workflow's rules only; every index when the plan has
// no index (decoded from JSON) or Rules has grown or shrunk since.
func (p *Plan) rulesOf(wf string) []int {
	if p.ruleIndex != nil && p.indexedRules == len(p.Rules) {
		return p.ruleIndex[wf]
	}
	all := make([]int, len(p.Rules))
	for i := range all {
		all[i] = i
	}
	return all
}

// CreateParams is what the rule makes of a task: the first tier's tags and priority (else
// the task's own priority), and the escalation ladder.
func (r *Rule) CreateParams(taskPriority float64) taskrouting.CreateTaskParams {
	p := taskrouting.CreateTaskParams{Priority: taskPriority}
	if len(r.Tiers) > 0 {
		p.Tags = r.Tiers[0].Tags
		if r.Tiers[0].Priority != nil {
			p.Priority = *r.Tiers[0].Priority
		}
	}
	if r.Escalation != nil {
		p.Escalation = taskrouting.Some(*r.Escalation)
	}
	return p
}

// workflow plans every filter of one workflow.
func (b *builder) workflow(wf taskrouter.Workflow) {
	tr := wf.Config.TaskRouting
	for i, f := range tr.Filters {
		b.rule(wf, i, f.Name, f.Expression, f.Targets)
	}
	if tr.DefaultFilter != nil {
		b.rule(wf, -1, "default_filter", "", []taskrouter.Target{*tr.DefaultFilter})
	}
}

func (b *builder) rule(wf taskrouter.Workflow, index int, name, src string, targets []taskrouter.Target) {
	where := fmt.Sprintf("workflow %s (%s) filter %q", wf.Sid, wf.FriendlyName, name)
	r := Rule{Workflow: wf.Sid, WorkflowName: wf.FriendlyName, Filter: name, Index: index, Expression: src}
	if index >= 0 {
		n, err := expr.Parse(src)
		if err != nil {
			b.find(Finding{Kind: KindUnparsable, Where: where, Expression: src, Detail: err.Error() + "; the filter never matches"})
			n = &expr.Compare{Op: expr.OpEq, L: &expr.Const{Value: 1.0}, R: &expr.Const{Value: 0.0}}
		}
		r.node = n
		if u := expr.Analyze(n, expr.ScopeTask); u.Time {
			b.find(Finding{Kind: KindTimeOfDay, Where: where, Expression: src,
				Detail: "the filter reads the time of day: the rule evaluates it when the task is created (Rule.Matches with the creation time); TaskRouter also re-evaluates it when a task's attributes change",
				Queues: targetQueues(targets)})
		}
	}
	for ti, t := range targets {
		r.Tiers = append(r.Tiers, b.tier(where+" target "+strconv.Itoa(ti), t))
	}
	r.Escalation = b.ladder(where, wf, r.Tiers)
	b.plan.Rules = append(b.plan.Rules, r)
}

func targetQueues(ts []taskrouter.Target) []string {
	var out []string
	for _, t := range ts {
		if t.Queue != "" {
			out = append(out, t.Queue)
		}
	}
	return out
}

func (b *builder) tier(where string, t taskrouter.Target) Tier {
	tier := Tier{TaskQueue: t.Queue, TimeoutSeconds: t.Timeout, Expression: t.Expression}
	if p, ok := t.Priority(); ok {
		tier.Priority = &p
	} else if len(t.RawPriority) > 0 && string(t.RawPriority) != "null" {
		b.find(Finding{Kind: KindPriorityExpr, Where: where, Expression: string(t.RawPriority),
			Detail: "a priority that is not a number; the task keeps its own", Queues: []string{t.Queue}})
	}
	if t.KnownWorkerSid != "" || t.KnownWorkerFriendlyName != "" {
		ref := t.KnownWorkerSid
		if ref == "" {
			ref = t.KnownWorkerFriendlyName
		}
		b.find(Finding{Kind: KindKnownWorker, Where: where, Expression: ref,
			Detail: "known-worker routing: here tasks.assign to that worker (it must be eligible), or a personal tag", Queues: []string{t.Queue}})
		tier.Untranslated = true
	}
	if t.SkipIf != "" {
		b.find(Finding{Kind: KindSkipIf, Where: where, Expression: t.SkipIf,
			Detail: "skip_if is not translated: the tier waits for its offer to expire", Queues: []string{t.Queue}})
	}
	if t.OrderBy != "" {
		b.find(Finding{Kind: KindOrderBy, Where: where, Expression: t.OrderBy,
			Detail: "order_by is not translated: here routingWeights and learning order workers", Queues: []string{t.Queue}})
	}
	seg, ok := b.plan.Segment(t.Queue)
	if !ok {
		return tier // a known-worker target without a queue
	}
	tier.Segment, tier.Tags = seg.ID, seg.Tags
	if t.Expression == "" || tier.Untranslated {
		return tier
	}
	n, err := expr.Parse(t.Expression)
	if err != nil {
		b.find(Finding{Kind: KindUnparsable, Where: where, Expression: t.Expression, Detail: err.Error() + "; the tier uses its whole queue", Queues: []string{t.Queue}})
		tier.Untranslated = true
		return tier
	}
	if expr.IsTrue(n) {
		return tier
	}
	if !b.checkWorkerExpr(n, t.Expression, where, t.Queue) {
		tier.Untranslated = true // the tier uses the whole queue
		return tier
	}
	id := b.narrowedSegment(seg, t.Expression, n)
	narrowed, _ := b.plan.Segment(id)
	tier.Segment, tier.Tags = narrowed.ID, narrowed.Tags
	return tier
}

// narrowedSegment returns the segment of queue seg narrowed by a target expression, made
// once per distinct expression.
func (b *builder) narrowedSegment(seg *Segment, src string, n expr.Node) string {
	key := seg.Queue + "\x00" + src // a sid holds no NUL
	if id, ok := b.narrowedIDs[key]; ok {
		return id
	}
	if b.narrowed == nil {
		b.narrowed = map[string]int{}
	}
	b.narrowed[seg.Queue]++
	id := seg.Queue + "~" + strconv.Itoa(b.narrowed[seg.Queue])
	queueSrc, _ := expr.Parse(seg.TargetWorkers) // parsed before: a queue that did not parse has no narrowing
	both := expr.Node(&expr.And{L: queueSrc, R: n})
	if queueSrc == nil {
		both = n
	}
	ns := Segment{ID: id, Queue: seg.Queue, QueueName: seg.QueueName, TargetWorkers: seg.TargetWorkers, Narrowing: src}
	b.fillSegment(&ns, both, func() string {
		return b.claim(withSuffix(seg.Tags[0], "~"+strconv.Itoa(b.narrowed[seg.Queue])))
	})
	b.addSegment(ns)
	b.narrowedIDs[key] = id
	return id
}

// ladder turns the tiers into an escalation policy: each later tier's tags, stepped to when
// an offer goes unanswered for the first target's timeout (else the workflow's
// task_reservation_timeout, else 120 s); the priority steps by the tiers' common difference.
//
// A single tier keeps the workflow's task_reservation_timeout (else TaskRouter's default
// 120 s) as the offer timeout, so the platform's default 60 s does not replace it silently.
func (b *builder) ladder(where string, wf taskrouter.Workflow, tiers []Tier) *taskrouting.Escalation {
	if len(tiers) == 0 {
		return nil
	}
	wait := reservationTimeout(wf)
	if len(tiers) == 1 {
		return &taskrouting.Escalation{RespondWithin: wait}
	}
	if t := tiers[0].TimeoutSeconds; t != nil {
		if d, ok := offerTimeout(*t); ok {
			wait = d
		}
	}
	e := &taskrouting.Escalation{RespondWithin: wait, MaxEscalations: taskrouting.Ptr(min(len(tiers)-1, 8)), OnExhausted: "queue"}
	for _, t := range tiers {
		if len(t.Tags) > 0 && len(e.Tiers) < 8 {
			e.Tiers = append(e.Tiers, t.Tags)
		}
	}
	var step *float64
	uneven := false
	for i := 1; i < len(tiers); i++ {
		a, c := tiers[i-1].Priority, tiers[i].Priority
		if (a == nil) != (c == nil) {
			b.find(Finding{Kind: KindUnevenPriority, Where: where,
				Detail: "one target sets a priority and another keeps the task's own; the ladder keeps the first tier's priority", Queues: tierQueues(tiers)})
			uneven = true
			step = nil
			break
		}
		d := 0.0
		if a != nil {
			d = *c - *a
		}
		if step == nil {
			step = &d
		} else if *step != d {
			b.find(Finding{Kind: KindUnevenPriority, Where: where,
				Detail: "the targets' priorities do not change by a constant step; the ladder keeps the first step", Queues: tierQueues(tiers)})
			uneven = true
			break
		}
	}
	switch {
	case step != nil && *step > 0:
		e.PriorityBoost = *step
	case step != nil && *step < 0 && !uneven:
		b.find(Finding{Kind: KindUnevenPriority, Where: where,
			Detail: "a later target has a lower priority; the ladder can only raise it, so later tiers keep the first tier's priority", Queues: tierQueues(tiers)})
	}
	return e
}

// reservationTimeout is how long TaskRouter let a worker answer a reservation of wf's
// tasks: its task_reservation_timeout, else TaskRouter's default of 120 s, within the
// bounds of escalation.respondWithinMs.
func reservationTimeout(wf taskrouter.Workflow) time.Duration {
	if d, ok := offerTimeout(float64(wf.TaskReservationTimeout)); ok {
		return d
	}
	return 120 * time.Second
}

// The bounds of escalation.respondWithinMs.
const (
	minRespondWithin = time.Second
	maxRespondWithin = 24 * time.Hour
)

// offerTimeout turns a TaskRouter timeout in seconds into an offer timeout within the bounds
// of escalation.respondWithinMs. The seconds are clamped before they become a Duration: a
// Duration holds at most about 292 years, and a larger product wraps around to a small or
// negative one (1e300 s, or 9223372037 s, would become the 1 s floor). ok is false for a
// timeout that sets none: zero, negative or NaN; +Inf is the cap.
func offerTimeout(seconds float64) (d time.Duration, ok bool) {
	if !(seconds > 0) { // NaN too
		return 0, false
	}
	if seconds >= maxRespondWithin.Seconds() {
		return maxRespondWithin, true
	}
	return max(time.Duration(seconds*float64(time.Second)), minRespondWithin), true
}

func tierQueues(ts []Tier) []string {
	var out []string
	for _, t := range ts {
		if t.TaskQueue != "" {
			out = append(out, t.TaskQueue)
		}
	}
	return out
}
