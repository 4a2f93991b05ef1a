package match

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The property test drives an engine with random commands from a seed and checks the
// matcher invariants of docs/contract.md, section 7, after every one. Set TASKROUTING_LONG=1 for the full length and
// TASKROUTING_SEED to replay a printed seed.

var propPool = []string{"x1", "x2", "y1", "y2", "z"}

func propLength() int {
	if os.Getenv("TASKROUTING_LONG") == "1" {
		return 150_000
	}
	if testing.Short() {
		return 2_000
	}
	return 20_000
}

func propSeed(t *testing.T) uint64 {
	if s := os.Getenv("TASKROUTING_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TASKROUTING_SEED: %v", err)
		}
		return v
	}
	return 20260521
}

// propRun is one random walk: the engine, its generator and the model the events build.
type propRun struct {
	e         *Engine
	cfg       Config
	rng       *rand.Rand
	now       time.Time
	nextTask  int
	live      []string             // task ids that are not terminal
	model     map[string]string    // task id -> status[:worker] rebuilt from events only
	notBefore map[string]time.Time // scheduled tasks' notBefore
	terminal  map[string]Status
	lastSeq   uint64
	log       strings.Builder // every event and decision, for the determinism test
	decided   []Decision      // every decision as the engine built it, before the log
	made      []Decision      // the current command's decisions, from Engine.onDecide
	offered   []Decision      // the decisions of the command being checked
	events    strings.Builder // every event alone
	// afterCommand, when set, checks the engine after every command that succeeded.
	afterCommand func() error
	// vetoLifted: by task id, the workers a RemoveWorker made it forget its veto of
	// (RulesPlatform: the engine deletes a removed user's set of vetoing tasks).
	vetoLifted map[string]map[string]bool
}

func newPropRun(cfg Config, seed uint64) *propRun {
	p := &propRun{
		e:         New(cfg),
		cfg:       New(cfg).Config(),
		rng:       rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		now:       t0,
		model:     map[string]string{},
		notBefore: map[string]time.Time{},
		terminal:  map[string]Status{},
	}
	p.e.onDecide = func(d Decision) { p.made = append(p.made, d) }
	return p
}

func (p *propRun) pick(xs []string) string { return xs[p.rng.IntN(len(xs))] }

func (p *propRun) workerID() string { return "w" + strconv.Itoa(p.rng.IntN(8)) }

func (p *propRun) taskID() string {
	if len(p.live) == 0 || p.rng.IntN(20) == 0 {
		return "t" + strconv.Itoa(p.rng.IntN(p.nextTask+1))
	}
	return p.pick(p.live)
}

func (p *propRun) tags(lo, hi int) []string {
	n := lo + p.rng.IntN(hi-lo+1)
	var out []string
	for range n {
		out = append(out, p.pick(propPool))
	}
	return out
}

func (p *propRun) workerInput() WorkerInput {
	in := WorkerInput{ID: p.workerID()}
	if p.rng.IntN(4) != 0 {
		in.Tags = p.tags(0, 4)
	}
	if p.rng.IntN(2) == 0 {
		in.RoutingWeights = map[string]float64{}
		keys := append(slices.Clone(propPool), "x*", "y*", "*")
		for range p.rng.IntN(3) {
			in.RoutingWeights[p.pick(keys)] = []float64{0, 0.5, 1, 2, 5}[p.rng.IntN(5)]
		}
	}
	if p.rng.IntN(3) == 0 {
		in.MaxBacklogSize = ptr(p.rng.IntN(4))
	}
	if p.rng.IntN(3) != 0 {
		in.Available = ptr(p.rng.IntN(4) != 0)
	}
	if p.rng.IntN(3) == 0 {
		in.Routing = p.workerRouting()
	}
	return in
}

func (p *propRun) taskInput() TaskInput {
	p.nextTask++
	in := TaskInput{ID: "t" + strconv.Itoa(p.nextTask), Tags: p.tags(1, 3), Priority: float64(p.rng.IntN(3))}
	if p.rng.IntN(5) == 0 {
		in.VetoedWorkers = []string{p.workerID()}
	}
	if p.rng.IntN(6) == 0 {
		in.SkillThresholds = map[string]float64{p.pick(in.Tags): []float64{0.5, 1, 1.5, 3}[p.rng.IntN(4)]}
	}
	if p.rng.IntN(3) == 0 {
		in.Routing = p.taskRouting()
	}
	if p.rng.IntN(4) == 0 {
		in.Escalation = &Escalation{RespondWithin: time.Duration(5+p.rng.IntN(30)) * time.Second}
		if p.rng.IntN(2) == 0 {
			in.Escalation.OnNoResponse = NoResponseBlock
		}
	}
	if p.rng.IntN(3) == 0 {
		in.Clocks = p.clocks()
	}
	return in
}

// clocks draws task clocks (clocks.go) that run out within the walk's time scale.
func (p *propRun) clocks() *Clocks {
	c := &Clocks{}
	actions := func(xs ...ClockAction) ClockAction { return xs[p.rng.IntN(len(xs))] }
	if p.rng.IntN(2) == 0 {
		c.ExpireAfter = time.Duration(20+p.rng.IntN(200)) * time.Second
		c.OnExpire = actions("", ActionDrop, ActionPark)
	}
	if p.rng.IntN(2) == 0 {
		c.MaxRejections = 1 + p.rng.IntN(2)
		c.OnMaxRejections = actions("", ActionPark, ActionFail, ActionKeep)
	}
	if p.rng.IntN(3) == 0 {
		c.NotBefore = p.now.Add(time.Duration(1+p.rng.IntN(60)) * time.Second)
	}
	if p.rng.IntN(3) == 0 {
		c.NotAfter = p.now.Add(time.Duration(61+p.rng.IntN(300)) * time.Second)
		c.OnMiss = actions("", ActionDrop, ActionPark)
	}
	if p.rng.IntN(2) == 0 {
		c.Ladder = true
		c.MaxEscalations = ptr(p.rng.IntN(3))
		c.OnExhausted = actions("", ActionPark, ActionQueue)
		c.PriorityBoost = float64(p.rng.IntN(2))
	}
	return c
}

// pair returns a task in the wanted state with its worker (as the events say), and
// sometimes random ids so that refusals are exercised too.
func (p *propRun) pair(want Status) (string, string) {
	if p.rng.IntN(8) != 0 {
		var ids []string
		for _, id := range p.live {
			if strings.HasPrefix(p.model[id], string(want)+":") {
				ids = append(ids, id)
			}
		}
		if len(ids) > 0 {
			id := p.pick(ids)
			_, worker, _ := strings.Cut(p.model[id], ":")
			return id, worker
		}
	}
	return p.taskID(), p.workerID()
}

// command runs one random command and returns its name, result and error.
func (p *propRun) command() (string, Result, error) {
	now := p.now
	e := p.e
	// Make the creation rate follow the backlog so queues stay small enough to check.
	createWeight := 6
	if len(p.live) > 60 {
		createWeight = 1
	}
	switch r := p.rng.IntN(47 + createWeight); {
	case r < createWeight:
		in := p.taskInput()
		res, err := e.CreateTask(now, in)
		if err == nil {
			p.live = append(p.live, in.ID)
			p.model[in.ID] = "queued" // creation sends no event
			if in.Clocks != nil && in.Clocks.NotBefore.After(now) {
				p.model[in.ID] = "scheduled"
				p.notBefore[in.ID] = in.Clocks.NotBefore
			}
		}
		return "create " + in.ID + " " + fmt.Sprint(in.Tags), res, err
	case r < createWeight+5:
		in := p.workerInput()
		res, err := e.UpsertWorker(now, in)
		return "upsert " + describeWorker(in), res, err
	case r < createWeight+7:
		in := p.workerInput()
		res, err := e.PatchWorker(now, in.ID, in)
		return "patch " + in.ID, res, err
	case r < createWeight+10:
		id, on := p.workerID(), p.rng.IntN(2) == 0
		rel := !on && p.rng.IntN(2) == 0
		res, err := e.SetAvailability(now, id, on, rel)
		return fmt.Sprintf("availability %s %v %v", id, on, rel), res, err
	case r < createWeight+12:
		id := p.workerID()
		res, err := e.StartBreak(now, id, "lunch")
		return "break start " + id, res, err
	case r < createWeight+14:
		id := p.workerID()
		res, err := e.EndBreak(now, id)
		return "break end " + id, res, err
	case r < createWeight+15:
		id := p.workerID()
		res, err := e.RemoveWorker(now, id)
		if err == nil && p.cfg.Rules == RulesPlatform {
			p.liftVetoes(id)
		}
		return "remove " + id, res, err
	case r < createWeight+18:
		id := p.taskID()
		res, err := e.CancelTask(now, id)
		return "cancel " + id, res, err
	case r < createWeight+25:
		tid, wid := p.pair(StatusPending)
		res, err := e.Accept(now, tid, wid)
		return "accept " + tid + " " + wid, res, err
	case r < createWeight+29:
		tid, wid := p.pair(StatusPending)
		res, err := e.Reject(now, tid, wid)
		return "reject " + tid + " " + wid, res, err
	case r < createWeight+34:
		tid, wid := p.pair(StatusAccepted)
		res, err := e.Complete(now, tid, wid, tid)
		return "complete " + tid + " " + wid, res, err
	case r < createWeight+35:
		tid, wid, force := p.taskID(), p.workerID(), p.rng.IntN(2) == 0
		res, err := e.Assign(now, tid, wid, force)
		return fmt.Sprintf("assign %s %s %v", tid, wid, force), res, err
	case r < createWeight+36:
		tid := p.taskID()
		res, err := e.SetPriority(now, tid, float64(p.rng.IntN(4)))
		return "priority " + tid, res, err
	case r < createWeight+38:
		tid, wid := p.taskID(), ""
		if p.rng.IntN(2) == 0 {
			tid, wid = p.pair(StatusPending)
		}
		er, err := e.Escalate(now, tid, wid)
		return "escalate " + tid + " " + wid, er.Result, err
	case r < createWeight+40:
		tid := p.taskID()
		if ids := p.inModel("parked"); len(ids) > 0 && p.rng.IntN(4) != 0 {
			tid = p.pick(ids)
		}
		opts := UnparkOptions{ResetEscalation: p.rng.IntN(2) == 0, ResetSLA: p.rng.IntN(2) == 0, ResetSchedule: p.rng.IntN(2) == 0}
		res, err := e.Unpark(now, tid, opts)
		return fmt.Sprintf("unpark %s %+v", tid, opts), res, err
	case r < createWeight+42:
		tid, wid := p.pair(StatusPending)
		res, err := e.Ack(now, tid, wid)
		return "ack " + tid + " " + wid, res, err
	case r < createWeight+43:
		tid, wid := p.pair(StatusAccepted)
		res, err := e.Fail(now, tid, wid, "gave up")
		return "fail " + tid + " " + wid, res, err
	case r < createWeight+44:
		id, rt := p.workerID(), p.workerRouting()
		res, err := e.SetWorkerRouting(now, id, rt)
		return "routing " + id, res, err
	default:
		p.now = p.now.Add(time.Duration(p.rng.IntN(90)) * time.Second)
		return "advance", e.Advance(p.now), nil
	}
}

// inModel lists the live tasks the events put in a status.
func (p *propRun) inModel(status string) []string {
	var ids []string
	for _, id := range p.live {
		if p.model[id] == status {
			ids = append(ids, id)
		}
	}
	return ids
}

func describeWorker(in WorkerInput) string {
	s := fmt.Sprintf("%s tags=%v weights=%v", in.ID, in.Tags, in.RoutingWeights)
	if in.MaxBacklogSize != nil {
		s += fmt.Sprintf(" cap=%d", *in.MaxBacklogSize)
	}
	if in.Available != nil {
		s += fmt.Sprintf(" available=%v", *in.Available)
	}
	return s
}

// dump renders the observable state that commands change, to prove a failed command
// changed nothing. It avoids fmt's reflection because it runs before every command.
func (p *propRun) dump() string {
	var b []byte
	for _, id := range p.live {
		t, err := p.e.Task(id)
		if err != nil {
			b = append(b, err.Error()...)
			continue
		}
		b = append(b, t.ID...)
		b = append(b, ' ')
		b = append(b, t.Status...)
		b = append(b, ' ')
		b = append(b, t.WorkerID...)
		b = strconv.AppendFloat(b, t.Priority, 'g', -1, 64)
		b = strconv.AppendInt(b, t.OfferExpiresAt.UnixNano(), 10)
		b = append(b, strings.Join(t.RejectedBy, ",")...)
		b = append(b, '\n')
	}
	for _, id := range p.e.WorkerIDs() {
		w, _ := p.e.Worker(id)
		q, _ := p.e.WorkerQueue(id)
		b = append(b, w.ID...)
		b = strconv.AppendBool(b, w.Available)
		b = strconv.AppendBool(b, w.OnBreak)
		if w.MaxBacklogSize != nil {
			b = strconv.AppendInt(b, int64(*w.MaxBacklogSize), 10)
		}
		b = append(b, strings.Join(w.Tags, ",")...)
		for _, k := range slices.Sorted(maps.Keys(w.RoutingWeights)) {
			b = append(b, k...)
			b = strconv.AppendFloat(b, w.RoutingWeights[k], 'g', -1, 64)
		}
		b = append(b, strings.Join(q, ",")...)
		if w.Routing != nil {
			b = appendRouting(b, w.Routing)
		}
		b = append(b, '\n')
	}
	b = strconv.AppendUint(b, p.e.decSeq, 10)
	b = strconv.AppendUint(b, p.e.seq, 10)
	b = strconv.AppendInt(b, int64(p.e.learnOuts), 10)
	return string(b)
}

// apply replays events into the model, failing on a transition the state machine forbids.
func (p *propRun) apply(evs []Event) error {
	for _, ev := range evs {
		if ev.Seq != p.lastSeq+1 || ev.ID != p.cfg.EventIDPrefix+strconv.FormatUint(ev.Seq, 10) {
			return fmt.Errorf("event %s: sequence %d after %d", ev.ID, ev.Seq, p.lastSeq)
		}
		p.lastSeq = ev.Seq
		if ev.TaskID == "" {
			continue
		}
		cur := p.model[ev.TaskID]
		status, worker, _ := strings.Cut(cur, ":")
		var next string
		switch ev.Kind {
		case EventTaskMatched:
			if status != "" && status != "queued" {
				return fmt.Errorf("%s: matched from %q", ev.TaskID, cur)
			}
			next = "pending:" + ev.WorkerID
		case EventTaskAccepted:
			if status != "pending" || worker != ev.WorkerID {
				return fmt.Errorf("%s: accepted by %s from %q", ev.TaskID, ev.WorkerID, cur)
			}
			next = "accepted:" + ev.WorkerID
		case EventTaskRejected, EventTaskExpired, EventTaskReleased:
			if status != "pending" || worker != ev.WorkerID {
				return fmt.Errorf("%s: %s by %s from %q", ev.TaskID, ev.Kind, ev.WorkerID, cur)
			}
			next = "queued"
			delete(p.vetoLifted, ev.TaskID) // queued again: its vetoes hold again
		case EventTaskCompleted:
			if status != "accepted" || worker != ev.WorkerID {
				return fmt.Errorf("%s: completed by %s from %q", ev.TaskID, ev.WorkerID, cur)
			}
			next = "completed"
		case EventTaskCancelled:
			if Status(status).Terminal() {
				return fmt.Errorf("%s: cancelled from %q", ev.TaskID, cur)
			}
			next = "cancelled"
		case EventTaskParked, EventTaskDropped:
			// A pending task leaves matching through task.released or task.rejected first.
			if status != "queued" && status != "scheduled" {
				return fmt.Errorf("%s: %s from %q", ev.TaskID, ev.Kind, cur)
			}
			next = "parked"
			if ev.Kind == EventTaskDropped {
				next = "expired"
			}
		case EventTaskFailed:
			byWorker := status == "accepted" && worker == ev.WorkerID
			byBudget := status == "queued" && ev.WorkerID == "" && ev.Reason == "maxRejections"
			if !byWorker && !byBudget {
				return fmt.Errorf("%s: failed (%s) from %q", ev.TaskID, ev.Reason, cur)
			}
			next = "failed"
		case EventTaskUnparked:
			if status != "parked" {
				return fmt.Errorf("%s: unparked from %q", ev.TaskID, cur)
			}
			next = "queued"
			delete(p.vetoLifted, ev.TaskID)
		case EventTaskQueued:
			// A scheduled task is never queued (so never offered) before its time.
			if status != "scheduled" || ev.At.Before(p.notBefore[ev.TaskID]) {
				return fmt.Errorf("%s: queued at %v from %q (not before %v)", ev.TaskID, ev.At, cur, p.notBefore[ev.TaskID])
			}
			next = "queued"
		case EventTaskEscalated:
			if status != "queued" && status != "pending" {
				return fmt.Errorf("%s: escalated from %q", ev.TaskID, cur)
			}
			next = cur
		default:
			return fmt.Errorf("unexpected event kind %s", ev.Kind)
		}
		p.model[ev.TaskID] = next
	}
	return nil
}

// logResult appends a deterministic rendering of a result.
func (p *propRun) logResult(name string, res Result, ds []Decision, err error) {
	fmt.Fprintf(&p.log, "%s err=%v created=%v released=%v prev=%q\n", name, err, res.Created, res.ReleasedTaskIDs, res.PreviousWorkerID)
	for _, ev := range res.Events {
		fmt.Fprintf(&p.log, "  %+v\n", ev)
		fmt.Fprintf(&p.events, "%+v\n", ev)
	}
	for _, d := range ds {
		fmt.Fprintf(&p.log, "  %+v\n", d)
	}
	p.decided = append(p.decided, ds...)
}

func TestPropertyInvariants(t *testing.T) {
	configs := []struct {
		name string
		cfg  Config
	}{
		{"platform", Config{Rules: RulesPlatform}},
		{"platform-first-come", Config{Rules: RulesPlatform, Mode: ModeFirstCome, DefaultMaxBacklog: 2}},
		{"platform-balanced", Config{Rules: RulesPlatform, Mode: ModeBalanced}},
		{"platform-spread-work", Config{Rules: RulesPlatform, Mode: ModeSpreadWork}},
		{"platform-small-window", Config{Rules: RulesPlatform, CandidateWindow: 2, OfferTimeout: 10 * time.Second}},
		{"every-tag", Config{Rules: RulesEveryTag}},
		{"any-tag", Config{Rules: RulesEveryTag, AnyTagEligibility: true}},
		{"first-come", Config{Rules: RulesEveryTag, Mode: ModeFirstCome, DefaultMaxBacklog: 2}},
		{"balanced", Config{Rules: RulesEveryTag, Mode: ModeBalanced}},
		{"shadow", Config{Rules: RulesEveryTag, Learning: LearningConfig{ShadowMode: true}}},
		{"learned-veto", Config{Rules: RulesEveryTag, Learning: LearningConfig{LearnedVeto: true, LearnedVetoMinSamples: 2}}},
		{"no-learning", Config{Rules: RulesEveryTag, Learning: LearningConfig{Disabled: true}, OfferTimeout: 10 * time.Second}},
	}
	n := propLength()
	seed := propSeed(t)
	for i, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			s := seed + uint64(i)
			if err := runProperty(c.cfg, s, n/len(configs)+1); err != nil {
				t.Fatalf("seed %d (replay: TASKROUTING_SEED=%d go test -run 'TestPropertyInvariants/%s' ./internal/match/): %v", s, seed, c.name, err)
			}
		})
	}
}

func runProperty(cfg Config, seed uint64, n int) error {
	_, err := runPropertyLog(cfg, seed, n)
	return err
}

// runPropertyLog runs the walk and returns it, with its log, for the determinism test.
func runPropertyLog(cfg Config, seed uint64, n int) (*propRun, error) {
	p := newPropRun(cfg, seed)
	return p, p.run(n)
}

func (p *propRun) run(n int) error {
	for i := range n {
		// Fire due expiries first so a failing command can be checked to change nothing.
		p.now = p.now.Add(time.Duration(p.rng.IntN(3000)) * time.Millisecond)
		adv := p.e.Advance(p.now)
		advDs, err := p.take(adv)
		if err != nil {
			return fmt.Errorf("command %d advance: %w", i, err)
		}
		p.decided = append(p.decided, advDs...)
		if err := p.apply(adv.Events); err != nil {
			return fmt.Errorf("command %d advance: %w", i, err)
		}
		if err := p.checkDecisions(advDs, true); err != nil {
			return fmt.Errorf("command %d advance: %w", i, err)
		}
		before := p.dump()
		name, res, err := p.command()
		ds, takeErr := p.take(res)
		if takeErr != nil {
			return fmt.Errorf("command %d %s: %w", i, name, takeErr)
		}
		p.logResult(name, res, ds, err)
		if err != nil {
			if len(res.Events) > 0 && !strings.HasPrefix(name, "advance") {
				return fmt.Errorf("command %d %s: failed (%v) but sent events", i, name, err)
			}
			if after := p.dump(); after != before {
				return fmt.Errorf("command %d %s: failed (%v) but changed state:\n%s", i, name, err, cmp.Diff(before, after))
			}
			if !knownError(err) {
				return fmt.Errorf("command %d %s: untyped error %v", i, name, err)
			}
			continue
		}
		if err := p.apply(res.Events); err != nil {
			return fmt.Errorf("command %d %s: %w", i, name, err)
		}
		if err := p.checkDecisions(ds, name == "advance"); err != nil {
			return fmt.Errorf("command %d %s: %w", i, name, err)
		}
		p.offered = ds
		if err := p.checkState(); err != nil {
			return fmt.Errorf("command %d %s: %w", i, name, err)
		}
		if p.afterCommand != nil {
			if err := p.afterCommand(); err != nil {
				return fmt.Errorf("command %d %s: %w", i, name, err)
			}
		}
	}
	return nil
}

func knownError(err error) bool {
	for _, s := range []error{ErrNotFound, ErrInvalidState, ErrTaskExists, ErrBacklogFull, ErrInvalidInput, ErrBreakAlreadyOpen, ErrNoOpenBreak} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// liftVetoes records that the live tasks vetoing a removed worker no longer exclude it.
func (p *propRun) liftVetoes(workerID string) {
	for _, id := range p.live {
		t, err := p.e.Task(id)
		if err != nil || !slices.Contains(t.VetoedWorkers, workerID) {
			continue
		}
		if p.vetoLifted == nil {
			p.vetoLifted = map[string]map[string]bool{}
		}
		if p.vetoLifted[id] == nil {
			p.vetoLifted[id] = map[string]bool{}
		}
		p.vetoLifted[id][workerID] = true
	}
}
