// Package plan turns a TaskRouter workspace into this service's terms: the tags each queue
// becomes, the workers to upsert with those tags (under their TaskRouter sids), the rule
// that turns a task's attributes into tags, priority and an escalation ladder for each
// workflow filter, and the findings: every construct that could not be translated, with the
// queues and workers it affects.
//
// Build is pure: it evaluates the expressions itself and assumes nothing about how the
// service matches. Whether the tags select the same workers under the service's rules is
// checked against the mock server by shadow.Verify, whose mismatches come back to Build as
// Options.QueueTagOnly.
package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/expr"
)

// Strategy is how a queue's membership is expressed as tags.
type Strategy string

const (
	// StrategySkills: the queue's expression is a conjunction of HAS (or ==) terms; each
	// term is a tag ("skills:billing", "team=tier2") that every worker satisfying the term
	// carries, and a task for the queue carries all of them.
	StrategySkills Strategy = "skills"
	// StrategyQueueTag: one tag for the queue ("queue:billing-en"), carried by the workers
	// its expression selects.
	StrategyQueueTag Strategy = "queueTag"
)

// Options steer Build.
type Options struct {
	// Now is the time queue expressions that read taskrouter.* are evaluated at (they
	// cannot be expressed as tags; see KindTimeOfDay). Build never reads the wall clock.
	Now time.Time
	// QueueTagOnly lists segment ids (Segment.ID) to express with one queue tag even when
	// skill terms would do: those the service's matching rules did not select exactly
	// (shadow.Verify).
	QueueTagOnly map[string]bool
	// MaxBacklog is each worker's cap of pending offers; 0 means 1, TaskRouter's one
	// reservation at a time on a channel of capacity one.
	MaxBacklog int
}

// Plan is Build's result.
type Plan struct {
	// Segments are the worker sets tasks are routed to: one per task queue, plus one per
	// distinct (queue, target expression) pair that narrows a queue.
	Segments []Segment `json:"segments"`
	Rules    []Rule    `json:"rules"`
	// Workers are the upserts, in workspace order, ids kept.
	Workers  []taskrouting.UpsertWorkerParams `json:"-"`
	Findings []Finding                        `json:"findings"`

	segIndex map[string]int
	// ruleIndex lists each workflow's rules (indexes in Rules) as Build made them;
	// indexedRules is len(Rules) then.
	ruleIndex    map[string][]int
	indexedRules int
}

// Segment is a set of workers and the tags that select it here.
type Segment struct {
	ID            string   `json:"id"` // the queue sid, or sid~n for a narrowed queue
	Queue         string   `json:"queue"`
	QueueName     string   `json:"queueName"`
	TargetWorkers string   `json:"targetWorkers"`
	Narrowing     string   `json:"targetExpression,omitempty"` // the target expression, for a narrowed queue
	Strategy      Strategy `json:"strategy"`
	Tags          []string `json:"tags"`
	Workers       []string `json:"workers"` // sids the expression selects
	terms         []expr.Term
}

// Segment returns the segment with the given id.
func (p *Plan) Segment(id string) (*Segment, bool) {
	i, ok := p.segIndex[id]
	if !ok {
		return nil, false
	}
	return &p.Segments[i], true
}

// Build plans the migration of ws.
func Build(ws *taskrouter.Workspace, opts Options) *Plan {
	b := &builder{ws: ws, opts: opts, plan: &Plan{segIndex: map[string]int{}}, tagsUsed: map[string]bool{},
		activities: map[string]bool{}, narrowedIDs: map[string]string{}}
	if b.opts.MaxBacklog <= 0 {
		b.opts.MaxBacklog = 1
	}
	// Every queue and term is evaluated against every worker: the environments are made
	// once, not once per evaluation.
	b.envs = make([]*expr.Env, len(ws.Workers))
	for i, w := range ws.Workers {
		b.envs[i] = &expr.Env{Default: expr.ScopeWorker, Worker: w.Attributes, WorkerProps: w.Props(), Now: b.opts.Now}
	}
	for _, a := range ws.Activities {
		b.activities[a.Sid] = a.Available
	}
	for _, q := range ws.Queues {
		b.queue(q)
	}
	for _, wf := range ws.Workflows {
		b.workflow(wf)
	}
	b.workers()
	b.plan.ruleIndex = map[string][]int{}
	for i, r := range b.plan.Rules {
		b.plan.ruleIndex[r.Workflow] = append(b.plan.ruleIndex[r.Workflow], i)
	}
	b.plan.indexedRules = len(b.plan.Rules)
	return b.plan
}

type builder struct {
	ws         *taskrouter.Workspace
	opts       Options
	plan       *Plan
	tagsUsed   map[string]bool // the tags of queue-tag segments so far
	activities map[string]bool
	narrowed   map[string]int // queue sid -> narrowed segments so far
	// narrowedIDs finds the narrowed segment of a queue and a target expression
	// (keyed by the queue sid and the expression) without a pass over the segments for each
	// target.
	narrowedIDs map[string]string
	envs        []*expr.Env // each worker's, in workspace order
}

// maxTagLen is the longest tag a worker or a task carries (api/openapi.json: 64 characters;
// tags are cut in bytes, which never count fewer than characters).
const maxTagLen = 64

// queueTag is the single tag of a queue: "queue:" and its name in lower case with anything
// but letters and digits turned into "-", cut to 64 bytes; its sid instead when the name
// gives none or another queue's tag (two queues of one name, or names alike in their first
// 58 characters); and a "-2", "-3"... after it should that be taken too.
func (b *builder) queueTag(q taskrouter.TaskQueue) string {
	tag := withSuffix("queue:"+slug(q.FriendlyName), "")
	if tag == "queue:" || b.tagsUsed[tag] {
		tag = withSuffix("queue:"+q.Sid, "")
	}
	return b.claim(tag)
}

// claim returns tag, or tag with the first free "-n" suffix when another segment has it,
// and marks it taken: no two segments share a tag of their own.
func (b *builder) claim(tag string) string {
	base := tag
	for n := 2; b.tagsUsed[tag]; n++ {
		tag = withSuffix(base, "-"+strconv.Itoa(n))
	}
	b.tagsUsed[tag] = true
	return tag
}

func slug(s string) string {
	var out strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			out.WriteRune(r)
			dash = false
		} else if !dash && out.Len() > 0 {
			out.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(out.String(), "-")
}

// withSuffix is base cut to leave room for suffix within maxTagLen bytes, at a character
// boundary, then suffix: the suffix always survives, so a suffixed tag never equals its
// base, and the cut never leaves half a character.
func withSuffix(base, suffix string) string {
	n := maxTagLen - len(suffix)
	if len(base) > n {
		for n > 0 && !utf8.RuneStart(base[n]) {
			n--
		}
		base = base[:n]
	}
	return base + suffix
}

// queue plans one task queue's segment.
func (b *builder) queue(q taskrouter.TaskQueue) {
	where := "task queue " + q.Sid + " (" + q.FriendlyName + ")"
	src := q.TargetWorkers
	if strings.TrimSpace(src) == "" {
		src = "1==1" // TaskRouter's default
	}
	seg := Segment{ID: q.Sid, Queue: q.Sid, QueueName: q.FriendlyName, TargetWorkers: src}
	n, err := expr.Parse(src)
	if err != nil {
		b.find(Finding{Kind: KindUnparsable, Where: where, Expression: src, Detail: err.Error(), Queues: []string{q.Sid}})
		seg.Strategy, seg.Tags = StrategyQueueTag, []string{b.queueTag(q)}
		b.addSegment(seg)
		return
	}
	b.checkWorkerExpr(n, src, where, q.Sid)
	if q.TaskOrder == "LIFO" {
		b.find(Finding{Kind: KindTaskOrder, Where: where, Detail: "LIFO: this service serves equal priorities oldest first", Queues: []string{q.Sid}})
	}
	if q.MaxReservedWorkers > 1 {
		b.find(Finding{Kind: KindMaxReserved, Where: where,
			Detail: fmt.Sprintf("max_reserved_workers %d: a task is offered to one worker at a time here", q.MaxReservedWorkers), Queues: []string{q.Sid}})
	}
	b.fillSegment(&seg, n, func() string { return b.queueTag(q) })
	b.addSegment(seg)
}

// fillSegment chooses the strategy and selects the workers of n.
func (b *builder) fillSegment(seg *Segment, n expr.Node, queueTag func() string) {
	if n != nil {
		for i, w := range b.ws.Workers {
			if expr.Eval(n, b.envs[i]) {
				seg.Workers = append(seg.Workers, w.Sid)
			}
		}
	}
	terms, ok := expr.SkillTerms(n, expr.ScopeWorker)
	if n != nil && ok && !b.opts.QueueTagOnly[seg.ID] && termsFit(terms) {
		seg.Strategy, seg.terms = StrategySkills, terms
		for _, t := range terms {
			if !slices.Contains(seg.Tags, t.Tag()) {
				seg.Tags = append(seg.Tags, t.Tag())
			}
		}
	} else {
		seg.Strategy, seg.Tags = StrategyQueueTag, []string{queueTag()}
	}
	if len(seg.Workers) == 0 {
		b.find(Finding{Kind: KindEmptyQueue, Where: "segment " + seg.ID, Expression: seg.TargetWorkers + narrowText(seg.Narrowing),
			Detail: "no worker of the export is selected", Queues: []string{seg.Queue}})
	}
}

func narrowText(s string) string {
	if s == "" {
		return ""
	}
	return " / target: " + s
}

// termsFit: at most 32 tags (a task's limit), each at most 64 characters.
func termsFit(terms []expr.Term) bool {
	if len(terms) == 0 || len(terms) > 32 {
		return false
	}
	for _, t := range terms {
		if len(t.Tag()) > 64 || t.Value == "" {
			return false
		}
	}
	return true
}

func (b *builder) addSegment(seg Segment) {
	b.plan.segIndex[seg.ID] = len(b.plan.Segments)
	b.plan.Segments = append(b.plan.Segments, seg)
}

// checkWorkerExpr reports what a worker-selecting expression reads that tags cannot hold.
func (b *builder) checkWorkerExpr(n expr.Node, src, where, queue string) (ok bool) {
	u := expr.Analyze(n, expr.ScopeWorker)
	ok = true
	if u.Time {
		b.find(Finding{Kind: KindTimeOfDay, Where: where, Expression: src,
			Detail: "membership changes with the time of day; tags are static, so the plan uses the members at " + b.opts.Now.UTC().Format(time.RFC3339), Queues: []string{queue}})
	}
	if u.KnownWorker {
		b.find(Finding{Kind: KindKnownWorker, Where: where, Expression: src,
			Detail: "names workers; here use tasks.assign or a personal tag", Queues: []string{queue}})
		ok = false
	}
	if u.CrossScope {
		b.find(Finding{Kind: KindTaskVsWorker, Where: where, Expression: src,
			Detail: "compares task and worker attributes; tags cannot carry the comparison", Queues: []string{queue}})
		ok = false
	}
	if readsActivity(src) {
		b.find(Finding{Kind: KindActivity, Where: where, Expression: src,
			Detail: "reads the worker's activity; here availability alone decides, so the plan uses the activity at export", Queues: []string{queue}})
	}
	return ok
}

func readsActivity(src string) bool {
	l := strings.ToLower(src)
	return strings.Contains(l, "activity_name") || strings.Contains(l, "activity_sid")
}

// workers builds the upserts: every tag of every segment that selects the worker, and for
// skill segments every term the worker satisfies on its own (workers carry skills).
func (b *builder) workers() {
	// Tags are gathered with repeats and made a set once per worker: a worker in every one
	// of n segments would otherwise cost n² comparisons.
	tagsOf := map[string][]string{}
	termNodes := map[string]expr.Node{}
	for _, seg := range b.plan.Segments {
		for _, sid := range seg.Workers {
			tagsOf[sid] = append(tagsOf[sid], seg.Tags...)
		}
		for _, t := range seg.terms {
			if _, ok := termNodes[t.Tag()]; !ok {
				termNodes[t.Tag()] = t.Source
			}
		}
	}
	termTags := slices.Sorted(func(yield func(string) bool) {
		for k := range termNodes {
			if !yield(k) {
				return
			}
		}
	})
	var overLimit []string
	for i, w := range b.ws.Workers {
		tags := tagsOf[w.Sid]
		for _, tag := range termTags {
			if expr.Eval(termNodes[tag], b.envs[i]) {
				tags = append(tags, tag)
			}
		}
		slices.Sort(tags)
		tags = slices.Clip(slices.Compact(tags))
		if len(tags) > 64 {
			overLimit = append(overLimit, w.Sid)
			tags = tags[:64]
		}
		available := w.Available
		if a, ok := b.activities[w.ActivitySid]; ok {
			available = a
		}
		b.plan.Workers = append(b.plan.Workers, taskrouting.UpsertWorkerParams{
			ID: w.Sid, Tags: tags, Available: taskrouting.Ptr(available), MaxBacklogSize: taskrouting.Ptr(b.opts.MaxBacklog)})
	}
	if len(overLimit) > 0 {
		b.find(Finding{Kind: KindWorkerTagLimit, Where: "workers",
			Detail: fmt.Sprintf("%d workers would carry more than 64 tags; the upserts keep the first 64 in order", len(overLimit)), WorkerIDs: overLimit})
	}
}

func (b *builder) find(f Finding) { b.plan.Findings = append(b.plan.Findings, f) }
