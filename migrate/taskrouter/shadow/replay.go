package shadow

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

// Options steer Replay.
type Options struct {
	// Progress, when set, is called every ProgressEvery events (default 10,000) while the
	// export is read, then every ProgressEvery/10 reservations compared.
	Progress      func(Progress)
	ProgressEvery int
	// Shards is how many mock servers compare reservations side by side, each a stretch of
	// the history; 0 means one per CPU (at most 8, and none for fewer than 2,000
	// reservations each). The result does not depend on it. Each shard is a mock server
	// holding every worker, so shards past the CPUs only add that setup: a value above
	// MaxShards counts as MaxShards, and there are never more shards than reservations.
	Shards int
}

// MaxShards bounds Options.Shards: past the CPUs more shards never help, and without a
// bound a typo costs a mock server per shard (5,000 shards took 155 s and 1.3 GB where
// one per CPU took 4.4 s). The command bounds -shards by the CPU count.
const MaxShards = 64

// Progress is a replay's progress report.
type Progress struct {
	Events       int       // events read
	At           time.Time // time of the last event read
	Reservations int       // reservations to compare (known once the export is read)
	Compared     int       // reservations compared so far
}

// RulesName says in reports which rules decided eligibility: the mock server's defaults.
const RulesName = "the mock server's default rules"

// Replay reads a TaskRouter event export (taskrouter.ReadEvents) and replays it against
// in-process mock servers holding the plan's workers. Worker activity updates set the
// workers' availability; each task.created is routed by the plan's rules; at each
// reservation.created the mock server is asked, as of that moment, whom it would offer the
// task with the tags of the tier the reservation's queue belongs to (tasks.suggestWorkers, a
// dry run: no task is created here, so a worker's load shows only through its activity);
// reservation.accepted, rejected and timeout count the outcomes on both sides. A worker
// who rejected a reservation is left out of the task's later reservations here, as the
// platform vetoes it for the task; workers tied for first (the same score, so the same rank
// under the platform's rules) are all first choices, and the report counts and names the
// ties. Report.Reservations lists every reservation with its standing and the reasons on
// both sides (Explain, as examples/shadow-run explains its past tasks).
//
// The export is read once, keeping for each reservation the question to ask and the
// availability changes before it; the questions are then put to Options.Shards mock
// servers, each starting from the availability at the start of its stretch of history.
func Replay(ctx context.Context, ws *taskrouter.Workspace, p *plan.Plan, events io.Reader, opts Options) (*Report, error) {
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 10_000
	}
	sc := newScan(ws, p)
	err := taskrouter.ReadEvents(events, func(ev taskrouter.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		sc.event(ev)
		if opts.Progress != nil && sc.events%opts.ProgressEvery == 0 {
			opts.Progress(Progress{Events: sc.events, At: ev.At})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := compare(ctx, sc, opts); err != nil {
		return nil, err
	}
	return sc.report(), nil
}

// job is one reservation to compare: the question, and the answer once compared.
type job struct {
	at      time.Time
	task    string
	resv    string
	tags    []string
	prio    float64
	worker  string
	queue   string
	vetoed  []string // workers who rejected the task before this reservation
	changes int      // availability changes (scan.log) before it
	result  standing
	anyone  bool
	tieOpen bool
	// What answer.detail keeps: the tie for first (at most maxTieListed), the worker's
	// candidate, the tie's size and the worker's rank.
	top       []candidate
	self      *candidate
	tie, rank int
	ended     string // how TaskRouter's reservation ended: accepted, rejected, timedOut
}

// change is one worker's availability changing.
type change struct {
	worker string
	avail  bool
}

type taskState struct {
	rule     *plan.Rule
	priority float64
	tier     int
	jobs     []int    // its reservations
	rejected []string // workers who rejected it: vetoed for its later reservations
}

type outcome struct {
	job int
	o   Outcomes
}

// scan is the first, cheap pass over the export.
type scan struct {
	ws            *taskrouter.Workspace
	p             *plan.Plan
	events        int
	ntasks        int
	activities    map[string]bool
	activityNames map[string]bool
	initial       map[string]bool // availability at the start, from the plan
	avail         map[string]bool // availability now
	log           []change
	jobs          []job
	tasks         map[string]*taskState
	done          []*taskState
	resv          map[string]int // reservation key -> job
	outcomes      []outcome
	skipped       map[string]int
	requests      int // put to the mock servers
	shards        int // mock servers the comparison used
}

func newScan(ws *taskrouter.Workspace, p *plan.Plan) *scan {
	sc := &scan{ws: ws, p: p, activities: map[string]bool{}, activityNames: map[string]bool{}, initial: map[string]bool{},
		avail: map[string]bool{}, tasks: map[string]*taskState{}, resv: map[string]int{}, skipped: map[string]int{}}
	for _, a := range ws.Activities {
		sc.activities[a.Sid] = a.Available
		sc.activityNames[a.FriendlyName] = a.Available
	}
	for _, w := range p.Workers {
		sc.initial[w.ID] = w.Available != nil && *w.Available
		sc.avail[w.ID] = sc.initial[w.ID]
	}
	return sc
}

func (sc *scan) event(ev taskrouter.Event) {
	sc.events++
	switch ev.Type {
	case taskrouter.EventWorkerActivityUpdate:
		sc.activity(ev)
	case taskrouter.EventTaskCreated:
		sc.created(ev)
	case taskrouter.EventReservationCreated:
		sc.reserved(ev)
	case taskrouter.EventReservationAccepted, taskrouter.EventReservationRejected, taskrouter.EventReservationTimeout:
		sc.answered(ev)
	case taskrouter.EventTaskCompleted, taskrouter.EventTaskCanceled:
		if st, ok := sc.tasks[ev.TaskSid]; ok {
			sc.done = append(sc.done, st)
			delete(sc.tasks, ev.TaskSid)
		}
	}
}

func (sc *scan) activity(ev taskrouter.Event) {
	was, known := sc.avail[ev.WorkerSid]
	if !known {
		sc.skipped["activity update of a worker not in the workspace"]++
		return
	}
	now, ok := false, false
	switch {
	case ev.WorkerAvailable != nil:
		now, ok = *ev.WorkerAvailable, true
	case ev.ActivitySid != "":
		now, ok = sc.activities[ev.ActivitySid]
	}
	if !ok && ev.ActivityName != "" {
		now, ok = sc.activityNames[ev.ActivityName]
	}
	if !ok {
		sc.skipped["activity update naming an activity not in the workspace"]++
		return
	}
	if now != was {
		sc.avail[ev.WorkerSid] = now
		sc.log = append(sc.log, change{ev.WorkerSid, now})
	}
}

func (sc *scan) created(ev taskrouter.Event) {
	var attrs any = map[string]any{}
	if ev.TaskAttributes != "" {
		if err := json.Unmarshal([]byte(ev.TaskAttributes), &attrs); err != nil {
			sc.skipped["task.created with attributes that are not JSON"]++
			return
		}
	}
	rule, ok := sc.p.Route(ev.WorkflowSid, attrs, ev.At)
	if !ok {
		sc.skipped["task.created of a workflow not in the workspace"]++
		return
	}
	st := &taskState{rule: rule}
	if ev.TaskPriority != nil {
		st.priority = *ev.TaskPriority
	}
	sc.ntasks++
	sc.tasks[ev.TaskSid] = st
}

// tierFor finds the tier of the reservation's queue: the first at or after the task's
// current tier, else any; it moves the task's tier there.
func (sc *scan) tierFor(st *taskState, queue string) (plan.Tier, bool) {
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
	if seg, ok := sc.p.Segment(queue); ok {
		return plan.Tier{Segment: seg.ID, TaskQueue: queue, Tags: seg.Tags}, true
	}
	return plan.Tier{}, false
}

func resvKey(ev taskrouter.Event) string {
	if ev.ReservationSid != "" {
		return ev.ReservationSid
	}
	return ev.TaskSid + "/" + ev.WorkerSid
}

func (sc *scan) reserved(ev taskrouter.Event) {
	st, ok := sc.tasks[ev.TaskSid]
	if !ok {
		sc.skipped["reservation of a task created before the export, or not routed"]++
		return
	}
	tier, ok := sc.tierFor(st, ev.QueueSid)
	if !ok || len(tier.Tags) == 0 {
		sc.skipped["reservation from a queue not in the workspace"]++
		return
	}
	prio := st.priority
	if tier.Priority != nil {
		prio = *tier.Priority
	}
	st.jobs = append(st.jobs, len(sc.jobs))
	sc.resv[resvKey(ev)] = len(sc.jobs)
	sc.jobs = append(sc.jobs, job{at: ev.At, task: ev.TaskSid, resv: ev.ReservationSid, tags: tier.Tags, prio: prio, worker: ev.WorkerSid,
		queue: ev.QueueSid, vetoed: slices.Clip(st.rejected), changes: len(sc.log)})
}

func (sc *scan) answered(ev taskrouter.Event) {
	key := resvKey(ev)
	j, ok := sc.resv[key]
	if !ok {
		sc.skipped["reservation outcome without its reservation.created"]++
		return
	}
	delete(sc.resv, key)
	var o Outcomes
	switch ev.Type {
	case taskrouter.EventReservationAccepted:
		o.Accepted = 1
		sc.jobs[j].ended = "accepted"
	case taskrouter.EventReservationRejected:
		o.Rejected = 1
		sc.jobs[j].ended = "rejected"
		// The platform vetoes a worker who rejects a task for the rest of the task's life
		// (docs/contract.md, "How the platform matches": Exclusions). A timeout does not:
		// the plan's offers keep onNoResponse at its default, allow.
		if st, ok := sc.tasks[ev.TaskSid]; ok && !slices.Contains(st.rejected, ev.WorkerSid) {
			st.rejected = append(st.rejected, ev.WorkerSid)
		}
	default:
		o.TimedOut = 1
		sc.jobs[j].ended = "timedOut"
	}
	sc.outcomes = append(sc.outcomes, outcome{j, o})
}

// defaultShards is Options.Shards 0 for cpus CPUs and jobs reservations: one shard a CPU,
// at most 8, and at least 2,000 reservations a shard (one shard for fewer).
func defaultShards(cpus, jobs int) int {
	return min(cpus, 8, max(1, jobs/2000))
}

// shardCount is how many shards compare jobs reservations when Options.Shards is asked
// on cpus CPUs: asked, at most MaxShards, or defaultShards when asked is 0 or less; never
// more than the reservations.
func shardCount(asked, cpus, jobs int) int {
	shards := min(asked, MaxShards)
	if shards <= 0 {
		shards = defaultShards(cpus, jobs)
	}
	return min(shards, jobs)
}

// compare answers every job, in shards side by side.
func compare(ctx context.Context, sc *scan, opts Options) error {
	n := len(sc.jobs)
	if n == 0 {
		return nil
	}
	shards := shardCount(opts.Shards, runtime.GOMAXPROCS(0), n)
	sc.shards = shards
	var (
		mu       sync.Mutex
		compared int
		wg       sync.WaitGroup
		errs     = make([]error, shards)
	)
	every := max(opts.ProgressEvery/10, 1)
	tick := func() {
		mu.Lock()
		defer mu.Unlock()
		compared++
		if opts.Progress != nil && compared%every == 0 {
			opts.Progress(Progress{Events: sc.events, Reservations: n, Compared: compared})
		}
	}
	for s := range shards {
		from, to := s*n/shards, (s+1)*n/shards
		wg.Add(1)
		go func() {
			defer wg.Done()
			var asked int
			asked, errs[s] = sc.compareShard(ctx, from, to, tick)
			mu.Lock()
			sc.requests += asked
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// compareShard answers jobs[from:to] on a mock server of its own; it returns how many
// requests it made.
func (sc *scan) compareShard(ctx context.Context, from, to int, tick func()) (int, error) {
	start := sc.jobs[from]
	avail := make(map[string]bool, len(sc.initial))
	for w, a := range sc.initial {
		avail[w] = a
	}
	for _, c := range sc.log[:start.changes] {
		avail[c.worker] = c.avail
	}
	a, err := newAsker(ctx, start.at, sc.p, avail)
	if err != nil {
		return 0, err // mutation:ignore: with an error Replay returns no report, so the count is never read
	}
	defer a.close()
	pos := start.changes
	for i := from; i < to; i++ {
		if err := ctx.Err(); err != nil {
			return a.requests, err
		}
		j := &sc.jobs[i]
		for _, c := range sc.log[pos:j.changes] {
			a.change(c.worker, c.avail)
		}
		pos = j.changes
		a.m.at(j.at)
		ans, err := a.rank(ctx, j.tags, j.prio, j.worker, j.vetoed)
		j.result, j.anyone, j.tieOpen = ans.standing, ans.anyone, ans.tieOpen
		j.top, j.self, j.tie, j.rank = ans.detail(j.worker)
		if err != nil {
			return a.requests, fmt.Errorf("reservation at %s of %s: %w", j.at.Format(time.RFC3339), j.worker, err)
		}
		tick()
	}
	return a.requests, nil
}

func (sc *scan) report() *Report {
	stats := map[string]*Stats{}
	get := func(q string) *Stats {
		s := stats[q]
		if s == nil {
			s = &Stats{Queue: q}
			stats[q] = s
		}
		return s
	}
	details := make([]Reservation, 0, len(sc.jobs))
	for i := range sc.jobs {
		j := &sc.jobs[i]
		s := get(j.queue)
		s.Reservations++
		if j.tie > 1 {
			s.Ties++
		}
		switch j.result {
		case standingFirst:
			s.FirstChoice++
			s.EligibleHere++
			if j.tie > 1 {
				s.TiedFirst++
			}
		case standingEligible:
			s.EligibleHere++
		case standingUnknown:
			s.Unknown++
		}
		details = append(details, j.detail())
	}
	for _, o := range sc.outcomes {
		j := sc.jobs[o.job]
		s := get(j.queue)
		s.There.add(o.o)
		if j.result == standingFirst {
			s.FirstChoiceOutcomes.add(o.o)
		} else {
			s.OtherOutcomes.add(o.o)
		}
	}
	tasks := sc.done
	for _, st := range sc.tasks {
		tasks = append(tasks, st)
	}
	for _, st := range tasks {
		if len(st.jobs) == 0 {
			continue
		}
		s := get(sc.jobs[st.jobs[0]].queue)
		s.Tasks++
		anyone := false
		for _, j := range st.jobs {
			anyone = anyone || sc.jobs[j].anyone
		}
		if !anyone {
			s.NobodyHere++
		}
	}
	names := map[string]string{}
	for _, q := range sc.ws.Queues {
		names[q.Sid] = q.FriendlyName
	}
	rep := &Report{Events: sc.events, Tasks: sc.ntasks, Rules: RulesName, Findings: len(sc.p.Findings), MockRequests: sc.requests, Shards: sc.shards, Reservations: details}
	for _, s := range stats {
		s.Name = names[s.Queue]
		s.rates()
		rep.Overall.add(s)
		rep.Queues = append(rep.Queues, *s)
	}
	rep.Overall.rates()
	sort.Slice(rep.Queues, func(i, j int) bool { return rep.Queues[i].Queue < rep.Queues[j].Queue })
	for reason, n := range sc.skipped {
		rep.Skipped = append(rep.Skipped, Skip{Reason: reason, Events: n})
	}
	sort.Slice(rep.Skipped, func(i, j int) bool { return rep.Skipped[i].Reason < rep.Skipped[j].Reason })
	if len(sc.p.Findings) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the plan has %d findings (constructs not translated); see the plan report", len(sc.p.Findings)))
	}
	return rep
}

// detail is the job's entry of Report.Reservations, explained by Explain as
// examples/shadow-run explains its past tasks.
func (j *job) detail() Reservation {
	r := Reservation{At: j.at, Task: j.task, Reservation: j.resv, Queue: j.queue, Tags: j.tags, Priority: j.prio,
		Worker: j.worker, Ended: j.ended, Vetoed: j.vetoed, Rank: j.rank}
	cands := make([]taskrouting.Candidate, 0, len(j.top)+1)
	for i, c := range j.top {
		if i == 0 || c.WorkerID == j.worker {
			cands = append(cands, c.full())
		} else {
			cands = append(cands, taskrouting.Candidate{WorkerID: c.WorkerID, Eligible: c.Eligible, Score: c.Score})
		}
	}
	if j.self != nil && !slices.ContainsFunc(j.top, func(c candidate) bool { return c.WorkerID == j.worker }) {
		cands = append(cands, j.self.full())
	}
	e := Explain(cands, j.worker)
	e.Rank, e.TieSize = j.rank, j.tie
	r.Here, r.There, r.Tie, r.TieSize, r.TieOpen = e.Choice, e.Worker, e.Tie, j.tie, j.tieOpen
	if j.tie < 2 {
		r.Tie, r.TieSize = nil, 0
	}
	r.WhyHere, r.WhyThere = e.Here(), e.There()
	switch {
	case j.result == standingFirst && j.tie > 1:
		r.Standing = StandingTie
	case j.result == standingFirst:
		r.Standing = StandingFirst
	case j.result == standingEligible:
		r.Standing = StandingEligible
	case j.result == standingUnknown:
		r.Standing = StandingUnknown
		r.WhyThere = "ranked past the candidates suggest-workers lists: counted neither eligible nor first"
	default:
		r.Standing = StandingNotEligible
	}
	return r
}
