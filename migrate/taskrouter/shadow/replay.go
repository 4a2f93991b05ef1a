package shadow

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

// Options steer Replay.
type Options struct {
	// Progress, when set, is called every ProgressEvery events (default 10,000) with the
	// events read so far and the time of the last one.
	Progress      func(events int, at time.Time)
	ProgressEvery int
}

// RulesName says in reports which rules decided eligibility: the mock server's defaults.
const RulesName = "the mock server's default rules"

// Replay reads a TaskRouter event export (taskrouter.ReadEvents) and replays it through an
// in-process mock server holding the plan's workers. Worker activity updates set the
// workers' availability; each task.created is routed by the plan's rules; at each
// reservation.created the mock server is asked, as of that moment, whom it would offer the
// task with the tags of the tier the reservation's queue belongs to (tasks.suggestWorkers, a
// dry run: no task is created here, so a worker's load shows only through its activity);
// reservation.accepted/rejected/timeout count the outcomes on both sides.
func Replay(ctx context.Context, ws *taskrouter.Workspace, p *plan.Plan, events io.Reader, opts Options) (*Report, error) {
	r := &replay{ws: ws, p: p, opts: opts, tasks: map[string]*taskState{}, resv: map[string]*resvState{},
		queues: map[string]*Stats{}, avail: map[string]bool{}, activities: map[string]bool{}, activityNames: map[string]bool{},
		skipped: map[string]int{}}
	if r.opts.ProgressEvery <= 0 {
		r.opts.ProgressEvery = 10_000
	}
	for _, a := range ws.Activities {
		r.activities[a.Sid] = a.Available
		r.activityNames[a.FriendlyName] = a.Available
	}
	for _, w := range p.Workers {
		r.avail[w.ID] = w.Available != nil && *w.Available
	}
	defer func() {
		if r.m != nil {
			r.m.close()
		}
	}()
	err := taskrouter.ReadEvents(events, func(ev taskrouter.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.events++
		if err := r.event(ctx, ev); err != nil {
			return fmt.Errorf("event %d (%s %s): %w", r.events, ev.Type, ev.Sid, err)
		}
		if r.opts.Progress != nil && r.events%r.opts.ProgressEvery == 0 {
			r.opts.Progress(r.events, ev.At)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r.report(), nil
}

type taskState struct {
	rule     *plan.Rule
	priority float64
	tier     int
	queue    string // queue of the first reservation
	checked  bool   // at least one reservation was compared
	anyone   bool   // some worker here was eligible at one of them
}

type resvState struct {
	queue string
	first bool
}

type replay struct {
	ws     *taskrouter.Workspace
	p      *plan.Plan
	opts   Options
	m      *mirror
	events int
	ntasks int

	tasks         map[string]*taskState
	resv          map[string]*resvState
	queues        map[string]*Stats
	avail         map[string]bool
	activities    map[string]bool
	activityNames map[string]bool
	skipped       map[string]int
	finished      []*taskState
}

func (r *replay) stats(queue string) *Stats {
	s := r.queues[queue]
	if s == nil {
		s = &Stats{Queue: queue}
		r.queues[queue] = s
	}
	return s
}

func (r *replay) start(ctx context.Context, at time.Time) error {
	m, err := newMirror(at)
	if err != nil {
		return err
	}
	r.m = m
	return m.upsert(ctx, r.p.Workers)
}

func (r *replay) event(ctx context.Context, ev taskrouter.Event) error {
	if r.m == nil {
		if err := r.start(ctx, ev.At); err != nil {
			return err
		}
	}
	r.m.at(ev.At)
	switch ev.Type {
	case taskrouter.EventWorkerActivityUpdate:
		return r.activity(ctx, ev)
	case taskrouter.EventTaskCreated:
		r.created(ev)
	case taskrouter.EventReservationCreated:
		return r.reserved(ctx, ev)
	case taskrouter.EventReservationAccepted, taskrouter.EventReservationRejected, taskrouter.EventReservationTimeout:
		r.answered(ev)
	case taskrouter.EventTaskCompleted, taskrouter.EventTaskCanceled:
		if st, ok := r.tasks[ev.TaskSid]; ok {
			r.finished = append(r.finished, st)
			delete(r.tasks, ev.TaskSid)
		}
	}
	return nil
}

func (r *replay) activity(ctx context.Context, ev taskrouter.Event) error {
	was, known := r.avail[ev.WorkerSid]
	if !known {
		r.skipped["activity update of a worker not in the workspace"]++
		return nil
	}
	now, ok := false, false
	switch {
	case ev.WorkerAvailable != nil:
		now, ok = *ev.WorkerAvailable, true
	case ev.ActivitySid != "":
		now, ok = r.activities[ev.ActivitySid]
	}
	if !ok && ev.ActivityName != "" {
		now, ok = r.activityNames[ev.ActivityName]
	}
	if !ok {
		r.skipped["activity update naming an activity not in the workspace"]++
		return nil
	}
	if now == was {
		return nil
	}
	r.avail[ev.WorkerSid] = now
	_, err := r.m.c.Workers.SetAvailability(ctx, ev.WorkerSid, taskrouting.SetAvailabilityParams{Available: now})
	return err
}

func (r *replay) created(ev taskrouter.Event) {
	attrs, err := taskrouterAttributes(ev.TaskAttributes)
	if err != nil {
		r.skipped["task.created with attributes that are not JSON"]++
		return
	}
	rule, ok := r.p.Route(ev.WorkflowSid, attrs, ev.At)
	if !ok {
		r.skipped["task.created of a workflow not in the workspace"]++
		return
	}
	st := &taskState{rule: rule}
	if ev.TaskPriority != nil {
		st.priority = *ev.TaskPriority
	}
	r.ntasks++
	r.tasks[ev.TaskSid] = st
}

func taskrouterAttributes(s string) (any, error) {
	if s == "" {
		return map[string]any{}, nil
	}
	var v any
	err := json.Unmarshal([]byte(s), &v)
	return v, err
}

// tierFor finds the tier of the reservation's queue: the first at or after the task's
// current tier, else any; it moves the task's tier there.
func (r *replay) tierFor(st *taskState, queue string) (plan.Tier, bool) {
	for i := st.tier; i < len(st.rule.Tiers); i++ {
		if st.rule.Tiers[i].TaskQueue == queue {
			st.tier = i
			return st.rule.Tiers[i], true
		}
	}
	for _, t := range st.rule.Tiers {
		if t.TaskQueue == queue {
			return t, true
		}
	}
	// Reserved from a queue the rule does not name (a transfer, a changed workflow): the
	// queue's own tags.
	if seg, ok := r.p.Segment(queue); ok {
		return plan.Tier{Segment: seg.ID, TaskQueue: queue, Tags: seg.Tags}, true
	}
	return plan.Tier{}, false
}

func (r *replay) reserved(ctx context.Context, ev taskrouter.Event) error {
	st, ok := r.tasks[ev.TaskSid]
	if !ok {
		r.skipped["reservation of a task created before the export, or not routed"]++
		return nil
	}
	tier, ok := r.tierFor(st, ev.QueueSid)
	if !ok || len(tier.Tags) == 0 {
		r.skipped["reservation from a queue not in the workspace"]++
		return nil
	}
	prio := st.priority
	if tier.Priority != nil {
		prio = *tier.Priority
	}
	standing, anyone, err := r.rank(ctx, tier.Tags, prio, ev.WorkerSid)
	if err != nil {
		return err
	}
	s := r.stats(ev.QueueSid)
	s.Reservations++
	switch standing {
	case standingFirst:
		s.FirstChoice++
		s.EligibleHere++
	case standingEligible:
		s.EligibleHere++
	case standingUnknown:
		s.Unknown++
	}
	if st.queue == "" {
		st.queue = ev.QueueSid
	}
	st.checked = true
	st.anyone = st.anyone || anyone
	key := ev.ReservationSid
	if key == "" {
		key = ev.TaskSid + "/" + ev.WorkerSid
	}
	r.resv[key] = &resvState{queue: ev.QueueSid, first: standing == standingFirst}
	return nil
}

type standing int

const (
	standingNot standing = iota
	standingEligible
	standingFirst
	standingUnknown
)

// rank asks the mock server whom it would offer a task with these tags now, and where
// worker stands: first choice, eligible, not eligible, or unknown. anyone reports whether
// any worker is eligible. It asks for 10 candidates first and looks further only when the
// worker is not among them and all of them are eligible: 100, then past 100 by vetoing 64
// of those (suggest-workers lists at most 100 and takes at most 64 vetoes).
func (r *replay) rank(ctx context.Context, tags []string, prio float64, worker string) (standing, bool, error) {
	var vetoed []string
	for round, limit := range []int{10, 100, 100} {
		sug, err := r.m.c.Tasks.SuggestWorkers(ctx, taskrouting.SuggestWorkersParams{
			Tags: tags, Priority: taskrouting.Ptr(prio), Limit: limit, VetoedWorkers: vetoed})
		if err != nil {
			return standingNot, false, fmt.Errorf("suggest workers: %w", err)
		}
		eligible := 0
		for i, c := range sug.Workers {
			if !c.Eligible {
				continue
			}
			eligible++
			if c.WorkerID == worker {
				if i == 0 && round == 0 {
					return standingFirst, true, nil
				}
				return standingEligible, true, nil
			}
		}
		if eligible < limit {
			// Every eligible worker was listed (besides those vetoed, who are eligible).
			return standingNot, eligible > 0 || len(vetoed) > 0, nil
		}
		if round == 1 {
			for _, c := range sug.Workers[:64] {
				vetoed = append(vetoed, c.WorkerID)
			}
		}
	}
	return standingUnknown, true, nil
}

func (r *replay) answered(ev taskrouter.Event) {
	key := ev.ReservationSid
	if key == "" {
		key = ev.TaskSid + "/" + ev.WorkerSid
	}
	rs, ok := r.resv[key]
	if !ok {
		r.skipped["reservation outcome without its reservation.created"]++
		return
	}
	delete(r.resv, key)
	s := r.stats(rs.queue)
	var o Outcomes
	switch ev.Type {
	case taskrouter.EventReservationAccepted:
		o.Accepted = 1
	case taskrouter.EventReservationRejected:
		o.Rejected = 1
	default:
		o.TimedOut = 1
	}
	s.There.add(o)
	if rs.first {
		s.FirstChoiceOutcomes.add(o)
	} else {
		s.OtherOutcomes.add(o)
	}
}

func (r *replay) report() *Report {
	for _, st := range r.tasks {
		r.finished = append(r.finished, st)
	}
	for _, st := range r.finished {
		if !st.checked {
			continue
		}
		s := r.stats(st.queue)
		s.Tasks++
		if !st.anyone {
			s.NobodyHere++
		}
	}
	names := map[string]string{}
	for _, q := range r.ws.Queues {
		names[q.Sid] = q.FriendlyName
	}
	rep := &Report{Events: r.events, Tasks: r.ntasks, Rules: RulesName, Findings: len(r.p.Findings)}
	for _, s := range r.queues {
		s.Name = names[s.Queue]
		s.rates()
		rep.Overall.add(s)
		rep.Queues = append(rep.Queues, *s)
	}
	rep.Overall.rates()
	sort.Slice(rep.Queues, func(i, j int) bool { return rep.Queues[i].Queue < rep.Queues[j].Queue })
	for reason, n := range r.skipped {
		rep.Skipped = append(rep.Skipped, Skip{Reason: reason, Events: n})
	}
	sort.Slice(rep.Skipped, func(i, j int) bool { return rep.Skipped[i].Reason < rep.Skipped[j].Reason })
	if len(r.p.Findings) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the plan has %d findings (constructs not translated); see the plan report", len(r.p.Findings)))
	}
	return rep
}
