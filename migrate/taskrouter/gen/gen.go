// Package gen makes a synthetic TaskRouter workspace and event history, seeded and
// deterministic, for the migration's tests, benchmark and a first try of the command
// (taskrouter-migrate generate). The workspace has skill-based queues (conjunctions of HAS
// terms), queues with level thresholds, OR and IN expressions, a time-of-day queue, and
// workflows with escalating targets, a narrowing target expression, one comparing task and
// worker attributes and one known-worker target, so every path of the planner is used. The
// history is a simple simulation of TaskRouter: tasks arrive, a free member of the target
// queue is reserved, accepts, rejects or lets the reservation time out, and works the task;
// workers go on and off shift.
package gen

import (
	"bufio"
	"container/heap"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

// Config sizes the workspace and history.
type Config struct {
	Seed    uint64
	Workers int // at least 40; default 240
	// Queues is at least 30, the default: the workflows route to the first 30; the rest are
	// more skill queues (two or three HAS terms, some with a level threshold) for planning
	// at scale.
	Queues int
	Events int // default 100,000
	// Start is the time of the first event; default 2026-11-02 08:00 UTC (a Monday).
	Start time.Time
}

func (c Config) withDefaults() Config {
	if c.Workers <= 0 {
		c.Workers = 240
	}
	c.Workers = max(c.Workers, 40)
	c.Queues = max(c.Queues, 30)
	if c.Events <= 0 {
		c.Events = 100_000
	}
	if c.Start.IsZero() {
		c.Start = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	}
	return c
}

var (
	skills    = []string{"billing", "refunds", "tech", "network", "sales", "retention", "fraud", "shipping", "returns", "accounts", "mobile", "hardware"}
	languages = []string{"en", "es", "fr", "de", "pt", "it"}
	teams     = []string{"north", "south", "east", "west"}
)

// activities of the generated workspace.
var activities = []taskrouter.Activity{
	{Sid: "WAidle", FriendlyName: "Idle", Available: true},
	{Sid: "WAbusy", FriendlyName: "Busy", Available: false},
	{Sid: "WAbreak", FriendlyName: "Break", Available: false},
	{Sid: "WAoffline", FriendlyName: "Offline", Available: false},
}

// Workspace makes the workspace as a TaskRouter export would hold it (the combined form
// taskrouter.ParseWorkspace reads): cfg.Workers workers, cfg.Queues queues, 5 workflows.
func Workspace(cfg Config) []byte {
	cfg = cfg.withDefaults()
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	type worker struct {
		Sid          string `json:"sid"`
		FriendlyName string `json:"friendly_name"`
		Attributes   string `json:"attributes"`
		ActivitySid  string `json:"activity_sid"`
		ActivityName string `json:"activity_name"`
		Available    bool   `json:"available"`
	}
	var workers []worker
	for i := range cfg.Workers {
		attrs, act := agentProfile(rng, i)
		b, _ := json.Marshal(attrs)
		workers = append(workers, worker{Sid: fmt.Sprintf("WK%032d", i), FriendlyName: fmt.Sprintf("agent%03d", i),
			Attributes: string(b), ActivitySid: act.Sid, ActivityName: act.FriendlyName, Available: act.Available})
	}
	queues, workflows := queuesAndWorkflows()
	queues = append(queues, moreQueues(len(queues), cfg.Queues)...)
	b, _ := json.MarshalIndent(map[string]any{"workers": workers, "task_queues": queues, "workflows": workflows, "activities": activities}, "", " ")
	return b
}

// agentProfile draws the attributes and the starting activity of worker i.
//
// mutation:ignore: free data. How many skills, which languages, levels and teams, and which
// share starts offline are the generator's choices; its tests check what it promises (seeded
// output, the sizes asked for, every path of the planner used), which any other draw keeps.
func agentProfile(rng *rand.Rand, i int) (map[string]any, taskrouter.Activity) {
	attrs := map[string]any{
		"skills":    pick(rng, skills, 2+rng.IntN(3)),
		"languages": append([]string{"en"}, pick(rng, languages[1:], rng.IntN(3))...),
		"level":     1 + rng.IntN(5),
		"team":      teams[rng.IntN(len(teams))],
		"email":     fmt.Sprintf("agent%03d@example.com", i),
	}
	if i%2 == 1 { // half the agents speak no English: the language queues mean something
		attrs["languages"] = pick(rng, languages[1:], 1+rng.IntN(2))
	}
	act := activities[0]
	if rng.IntN(3) == 0 {
		act = activities[3]
	}
	return attrs, act
}

// pick returns n distinct items of from.
func pick(rng *rand.Rand, from []string, n int) []string {
	p := rng.Perm(len(from))[:min(n, len(from))]
	out := make([]string, len(p))
	for i, j := range p {
		out[i] = from[j]
	}
	return out
}

func qsid(i int) string { return fmt.Sprintf("WQ%032d", i) }

// queuesAndWorkflows are fixed: 30 queues and 5 workflows over them.
func queuesAndWorkflows() ([]taskrouter.TaskQueue, []map[string]any) {
	var qs []taskrouter.TaskQueue
	add := func(name, target string) int {
		qs = append(qs, taskrouter.TaskQueue{Sid: qsid(len(qs)), FriendlyName: name, TargetWorkers: target, TaskOrder: "FIFO", MaxReservedWorkers: 1})
		return len(qs) - 1
	}
	// 0-17: skill and language (a conjunction of HAS terms).
	for i := range 18 {
		s, l := skills[i%len(skills)], languages[(i/len(skills)+i)%len(languages)]
		add(s+" "+l, fmt.Sprintf("skills HAS '%s' AND languages HAS '%s'", s, l))
	}
	// 18-23: one skill.
	for i := range 6 {
		add(skills[i*2]+" any language", fmt.Sprintf("skills HAS '%s'", skills[i*2]))
	}
	add("senior tech", "skills HAS 'tech' AND level >= 4")                       // 24
	add("senior billing", "skills HAS 'billing' AND level >= 3")                 // 25
	add("billing or refunds", "skills HAS 'billing' OR skills HAS 'refunds'")    // 26
	add("north and south", "team IN ['north', 'south']")                         // 27
	add("day shift sales", "skills HAS 'sales' AND taskrouter.currentHour < 20") // 28
	add("everyone", "1==1")                                                      // 29
	names := []string{"support", "sales", "logistics", "risk", "general"}
	var wfs []map[string]any
	for i, filters := range workflowFilters() {
		cfg, _ := json.Marshal(map[string]any{"task_routing": map[string]any{"filters": filters, "default_filter": map[string]any{"queue": qsid(29)}}})               // mutation:ignore: free data (the default queue)
		wfs = append(wfs, map[string]any{"sid": fmt.Sprintf("WW%032d", i), "friendly_name": names[i], "configuration": string(cfg), "task_reservation_timeout": 120}) // mutation:ignore: free data (the reservation timeout)
	}
	return qs, wfs
}

// workflowFilters are the filters of the 5 workflows: which task attributes each matches, and
// the queues, priorities, timeouts and target expressions of its targets.
//
// mutation:ignore: free data. Which queue a filter targets and with what priority and timeout
// are the generator's choices; its tests check what it promises (seeded output, the sizes
// asked for, every path of the planner used: escalation, a narrowing target expression, one
// comparing task and worker, a known worker), which the strings of this table carry.
func workflowFilters() [][]map[string]any {
	q := func(i int) string { return qsid(i) }
	target := func(queue int, prio, timeout float64) map[string]any {
		t := map[string]any{"queue": q(queue), "priority": prio}
		if timeout > 0 {
			t["timeout"] = timeout
		}
		return t
	}
	filter := func(name, expression string, targets ...map[string]any) map[string]any {
		return map[string]any{"filter_friendly_name": name, "expression": expression, "targets": targets}
	}
	return [][]map[string]any{
		{ // support
			filter("billing es", "type == 'billing' AND language == 'es'", target(1, 10, 60), target(25, 10, 60), target(26, 15, 0)),
			filter("billing", "type == 'billing'", target(0, 5, 120), target(26, 5, 0)),
			filter("tech vip", "type == 'tech' AND vip == true",
				map[string]any{"queue": q(2), "priority": 50, "timeout": 30, "expression": "worker.level >= task.min_level"}, target(24, 50, 0)),
			filter("tech", "type == 'tech'", map[string]any{"queue": q(2), "priority": 20, "timeout": 45, "expression": "level > 2"}, target(20, 20, 0)),
		},
		{ // sales
			filter("sales fr", "type == 'sales' AND language == 'fr'", target(16, 8, 60), target(28, 8, 0)),
			filter("sales", "type == 'sales'", target(4, 5, 90), target(28, 5, 0)),
			filter("callback", "type == 'callback'", map[string]any{"queue": q(28), "known_worker_sid": "task.owner", "timeout": 120}, target(28, 3, 0)),
		},
		{ // logistics
			filter("shipping", "type IN ['shipping', 'delivery']", target(7, 4, 60), target(19, 4, 0)),
			filter("returns", "type == 'returns'", target(8, 4, 60), target(27, 4, 0)),
			filter("hardware", "type == 'hardware' AND tier != 'basic'", target(11, 6, 0)),
		},
		{ // risk
			filter("fraud", "type == 'fraud' AND amount > 500", target(6, 90, 30), target(22, 90, 0)),
			filter("fraud small", "type == 'fraud'", target(18, 40, 0)),
			filter("accounts", "type == 'accounts'", target(9, 10, 0)),
		},
		{ // general
			filter("network", "type == 'network'", target(3, 7, 60), target(21, 7, 0)),
			filter("mobile", "type == 'mobile'", target(10, 6, 0)),
			filter("retention", "type == 'retention'", target(5, 12, 60), target(23, 12, 0)),
			filter("language desks", "language IN ['de', 'pt', 'it']", target(12, 2, 60), target(13, 2, 60), target(14, 2, 0)),
			filter("refunds", "type == 'refunds'", target(15, 3, 60), target(17, 3, 0)),
		},
	}
}

// moreQueues makes queues from to n-1: each pair of skills with one language, then with
// a level threshold, then with a second language, in a fixed order.
func moreQueues(from, n int) []taskrouter.TaskQueue {
	var qs []taskrouter.TaskQueue
	for i := from; i < n; i++ {
		k := i - from
		a, b := skills[k%len(skills)], skills[(k/len(skills)+k+1)%len(skills)]
		l := languages[(k/3)%len(languages)]
		target := fmt.Sprintf("skills HAS '%s' AND skills HAS '%s' AND languages HAS '%s'", a, b, l)
		name := fmt.Sprintf("%s %s %s", a, b, l)
		switch k % 3 {
		case 1:
			lvl := 2 + k%4
			target += fmt.Sprintf(" AND level >= %d", lvl)
			name += fmt.Sprintf(" level %d", lvl)
		case 2:
			l2 := languages[(k/3+1)%len(languages)]
			target += fmt.Sprintf(" AND languages HAS '%s'", l2)
			name += " " + l2
		}
		qs = append(qs, taskrouter.TaskQueue{Sid: qsid(i), FriendlyName: fmt.Sprintf("%s #%d", name, i), TargetWorkers: target, TaskOrder: "FIFO", MaxReservedWorkers: 1})
	}
	return qs
}

// taskTypes are the task types the history draws from, with a workflow each.
var taskTypes = []struct {
	typ string
	wf  int
}{
	// mutation:ignore: free data (which workflow each type enters), here and on the next line
	{"billing", 0}, {"tech", 0}, {"sales", 1}, {"callback", 1}, {"shipping", 2}, {"delivery", 2}, {"returns", 2},
	{"hardware", 2}, {"fraud", 3}, {"accounts", 3}, {"network", 4}, {"mobile", 4}, {"retention", 4}, {"refunds", 4}, {"other", 4}, // mutation:ignore
}

// Events writes cfg.Events events of a simulated history of the workspace Workspace(cfg)
// makes, as JSON lines of TaskRouter Event resources, in time order.
func Events(cfg Config, w io.Writer) error {
	cfg = cfg.withDefaults()
	ws, err := taskrouter.ParseWorkspace(Workspace(cfg))
	if err != nil {
		return err
	}
	// The planner's own evaluation says who is in each queue and which filter a task takes;
	// the history only needs TaskRouter's routing, which that reproduces.
	p := plan.Build(ws, plan.Options{Now: cfg.Start})
	s := &sim{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 2)), p: p, out: bufio.NewWriterSize(w, 1<<16),
		now: cfg.Start, state: map[string]*agent{}}
	for _, wk := range ws.Workers {
		a := &agent{sid: wk.Sid, available: wk.Available}
		s.agents = append(s.agents, a)
		s.state[wk.Sid] = a
	}
	for _, wf := range ws.Workflows {
		s.workflows = append(s.workflows, wf.Sid)
	}
	return s.run()
}

type agent struct {
	sid       string
	available bool // activity Idle
	busy      bool // holds a reservation or a task
}

type sim struct {
	cfg       Config
	rng       *rand.Rand
	p         *plan.Plan
	out       *bufio.Writer
	now       time.Time
	n         int
	seq       int
	agents    []*agent
	state     map[string]*agent
	workflows []string
	pending   pendingHeap
	err       error
}

// pending is an event due later (an answer, a completion, the end of a break).
type pending struct {
	at  time.Time
	seq int
	fn  func()
}

type pendingHeap []pending

func (h pendingHeap) Len() int { return len(h) }
func (h pendingHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h pendingHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pendingHeap) Push(x any)   { *h = append(*h, x.(pending)) }
func (h *pendingHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (s *sim) later(d time.Duration, fn func()) {
	s.seq++
	heap.Push(&s.pending, pending{at: s.now.Add(d), seq: s.seq, fn: fn})
}

func (s *sim) emit(typ string, data map[string]any) {
	if s.n >= s.cfg.Events || s.err != nil {
		return
	}
	s.n++
	b, _ := json.Marshal(map[string]any{"sid": fmt.Sprintf("EV%032d", s.n), "event_type": typ,
		"event_date_ms": s.now.UnixMilli(), "event_data": data})
	b = append(b, '\n')
	_, s.err = s.out.Write(b)
}

func (s *sim) setActivity(a *agent, act taskrouter.Activity) {
	a.available = act.Available
	s.emit(taskrouter.EventWorkerActivityUpdate, map[string]any{"worker_sid": a.sid, "worker_activity_sid": act.Sid, "worker_activity_name": act.FriendlyName})
}

func (s *sim) run() error {
	task := 0
	for s.n < s.cfg.Events && s.err == nil {
		// A new task every 2-8 seconds; first whatever is due before it.
		next := s.now.Add(time.Duration(2000+s.rng.IntN(6000)) * time.Millisecond) // mutation:ignore: free data (arrival gaps)
		for s.pending.Len() > 0 && !s.pending[0].at.After(next) {
			p := heap.Pop(&s.pending).(pending)
			s.now = p.at
			p.fn()
		}
		s.now = next
		if s.rng.IntN(4) == 0 { // mutation:ignore: free data (how often shifts change)
			s.shiftChange()
		}
		task++
		s.task(fmt.Sprintf("WT%032d", task))
	}
	if s.err != nil {
		return s.err
	}
	return s.out.Flush()
}

// shiftChange takes an idle worker off (a break or the end of a shift) or brings one back.
func (s *sim) shiftChange() {
	a := s.agents[s.rng.IntN(len(s.agents))]
	if a.busy {
		return
	}
	if a.available {
		act := activities[2]
		if s.rng.IntN(3) == 0 { // mutation:ignore: free data (offline or on a break)
			act = activities[3]
		}
		s.setActivity(a, act)
		s.later(time.Duration(5+s.rng.IntN(40))*time.Minute, func() { // mutation:ignore: free data (break lengths)
			if !a.available && !a.busy {
				s.setActivity(a, activities[0])
			}
		})
		return
	}
	s.setActivity(a, activities[0])
}

func (s *sim) task(sid string) {
	tt := taskTypes[s.rng.IntN(len(taskTypes))]
	attrs := map[string]any{"type": tt.typ, "language": languages[s.rng.IntN(len(languages))],
		// mutation:ignore: free data (the odds and ranges of task attributes)
		"vip": s.rng.IntN(5) == 0, "amount": s.rng.IntN(1000), "tier": []string{"basic", "plus", "pro"}[s.rng.IntN(3)], "min_level": 1 + s.rng.IntN(5)}
	if tt.typ == "callback" {
		attrs["owner"] = s.agents[s.rng.IntN(len(s.agents))].sid
	}
	b, _ := json.Marshal(attrs)
	wf := s.workflows[tt.wf]
	s.emit(taskrouter.EventTaskCreated, map[string]any{"task_sid": sid, "workflow_sid": wf, "task_attributes": string(b), "task_priority": 0})
	var decoded any
	_ = json.Unmarshal(b, &decoded)
	rule, ok := s.p.Route(wf, decoded, s.now)
	if !ok {
		return
	}
	s.reserve(sid, rule, 0, 0, nil)
}

// reserve offers the task to a free member of the tier's queue, longest idle first being
// approximated by a random pick; with nobody free it moves to the next tier after a while,
// and past the last tier the task is canceled.
func (s *sim) reserve(task string, rule *plan.Rule, tier, attempt int, tried []string) {
	if tier >= len(rule.Tiers) || attempt > 6 {
		s.emit(taskrouter.EventTaskCanceled, map[string]any{"task_sid": task})
		return
	}
	t := rule.Tiers[tier]
	// The target's own workers: its queue, narrowed by its expression where the plan could.
	seg, ok := s.p.Segment(t.Segment)
	var free []*agent
	if ok {
		for _, sid := range seg.Workers {
			if a := s.state[sid]; a.available && !a.busy && !slices.Contains(tried, sid) {
				free = append(free, a)
			}
		}
	}
	if len(free) == 0 {
		wait := time.Duration(20+s.rng.IntN(40)) * time.Second // mutation:ignore: free data (the wait for a free worker)
		s.later(wait, func() { s.reserve(task, rule, tier+1, attempt+1, tried) })
		return
	}
	a := free[s.rng.IntN(len(free))]
	a.busy = true
	resv := fmt.Sprintf("WR%s%02d", task[2:], attempt)
	data := map[string]any{"task_sid": task, "worker_sid": a.sid, "task_queue_sid": t.TaskQueue, "reservation_sid": resv}
	s.emit(taskrouter.EventReservationCreated, data)
	// The odds of accept, reject and time out, and the delays, are free data of the history.
	roll := s.rng.IntN(100)                                       // mutation:ignore: free data
	s.later(time.Duration(3+s.rng.IntN(25))*time.Second, func() { // mutation:ignore: free data
		switch {
		case roll < 80: // mutation:ignore: free data
			s.emit(taskrouter.EventReservationAccepted, data)
			s.setActivity(a, activities[1])
			s.later(time.Duration(60+s.rng.IntN(600))*time.Second, func() { // mutation:ignore: free data (handling times)
				s.emit(taskrouter.EventTaskCompleted, map[string]any{"task_sid": task, "worker_sid": a.sid})
				a.busy = false
				s.setActivity(a, activities[0])
			})
		case roll < 92: // mutation:ignore: free data
			s.emit(taskrouter.EventReservationRejected, data)
			a.busy = false
			s.reserve(task, rule, tier, attempt+1, append(tried, a.sid))
		default:
			s.emit(taskrouter.EventReservationTimeout, data)
			a.busy = false
			s.reserve(task, rule, tier+1, attempt+1, append(tried, a.sid))
		}
	})
}
