package match

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// clockRun drives an engine on explicit times and records event kinds with their reasons.
type clockRun struct {
	t      *testing.T
	e      *Engine
	events []string
}

func newClockRun(t *testing.T) *clockRun {
	return &clockRun{t: t, e: New(Config{Rules: RulesEveryTag, OfferTimeout: 10 * time.Second})}
}

func (r *clockRun) ok(res Result, err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatalf("command failed: %v", err)
	}
	r.keep(res)
}

func (r *clockRun) keep(res Result) {
	for _, ev := range res.Events {
		s := string(ev.Kind) + " " + ev.TaskID
		if ev.Reason != "" {
			s += " " + ev.Reason
		}
		if ev.Kind == EventTaskEscalated {
			s += " level=" + strconv.Itoa(ev.Level)
		}
		r.events = append(r.events, s)
	}
}

// at advances to t0+d and returns the events it fired.
func (r *clockRun) at(d time.Duration) []string {
	r.events = nil
	r.keep(r.e.Advance(t0.Add(d)))
	return r.events
}

func (r *clockRun) status(id string) Status {
	r.t.Helper()
	t, err := r.e.Task(id)
	if err != nil {
		r.t.Fatal(err)
	}
	return t.Status
}

func (r *clockRun) create(in TaskInput) {
	r.t.Helper()
	r.ok(r.e.CreateTask(t0, in))
}

// TestSLAExpireAfter crosses the SLA shelf life: a queued task (drop) and an offered one
// (park) leave matching at the boundary exactly, not a nanosecond before.
func TestSLAExpireAfter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		onExpire   ClockAction
		worker     bool
		wantStatus Status
		wantEvents []string
	}{
		{"queued drop", "", false, StatusExpired, []string{"task.dropped t1 sla"}},
		{"offered park", ActionPark, true, StatusParked, []string{"task.released t1 sla", "task.parked t1 sla"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newClockRun(t)
			if tc.worker {
				r.ok(r.e.UpsertWorker(t0, WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)}))
			}
			r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Escalation: &Escalation{RespondWithin: time.Hour},
				Clocks: &Clocks{ExpireAfter: 30 * time.Second, OnExpire: tc.onExpire}})
			before := r.status("t1")
			if evs := r.at(30*time.Second - time.Nanosecond); len(evs) != 0 || r.status("t1") != before {
				t.Fatalf("just before: %v, %s", evs, r.status("t1"))
			}
			if d := cmp.Diff(tc.wantEvents, r.at(30*time.Second)); d != "" {
				t.Errorf("at the boundary (-want +got):\n%s", d)
			}
			if got := r.status("t1"); got != tc.wantStatus {
				t.Errorf("status %s, want %s", got, tc.wantStatus)
			}
			if evs := r.at(time.Hour); len(evs) != 0 {
				t.Errorf("after: %v", evs)
			}
			if _, ok := r.e.NextDeadline(); ok {
				t.Error("a deadline is left")
			}
		})
	}
}

// TestSLAStopsWhenAccepted: the shelf life bounds waiting, not work.
func TestSLAStopsWhenAccepted(t *testing.T) {
	r := newClockRun(t)
	r.ok(r.e.UpsertWorker(t0, WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)}))
	r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: 30 * time.Second}})
	r.ok(r.e.Accept(t0.Add(time.Second), "t1", "w1"))
	if evs := r.at(time.Minute); len(evs) != 0 || r.status("t1") != StatusAccepted {
		t.Fatalf("%v %s", evs, r.status("t1"))
	}
}

// TestMaxRejections spends the rejection budget: the last rejection parks, fails or keeps.
func TestMaxRejections(t *testing.T) {
	for _, tc := range []struct {
		action ClockAction
		want   Status
		last   string
	}{
		{ActionPark, StatusParked, "task.parked t1 maxRejections"},
		{ActionFail, StatusFailed, "task.failed t1 maxRejections"},
		{ActionKeep, StatusPending, "task.matched t1"},
	} {
		t.Run(string(tc.action), func(t *testing.T) {
			r := newClockRun(t)
			for _, w := range []string{"w1", "w2", "w3"} {
				r.ok(r.e.UpsertWorker(t0, WorkerInput{ID: w, Tags: []string{"a"}, Available: ptr(true)}))
			}
			r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{MaxRejections: 2, OnMaxRejections: tc.action}})
			first, _ := r.e.Task("t1")
			r.ok(r.e.Reject(t0, "t1", first.WorkerID)) // one under the budget: queued and matched again
			if got := r.status("t1"); got != StatusPending {
				t.Fatalf("after one rejection: %s", got)
			}
			second, _ := r.e.Task("t1")
			r.events = nil
			r.ok(r.e.Reject(t0, "t1", second.WorkerID)) // at the budget
			if got := r.status("t1"); got != tc.want {
				t.Errorf("status %s, want %s", got, tc.want)
			}
			if got := r.events[len(r.events)-1]; got != tc.last {
				t.Errorf("last event %q, want %q", got, tc.last)
			}
		})
	}
}

// TestEscalationLadder lets offers run out: each is a step (level and priority boost) until
// the last, after which the task parks.
func TestEscalationLadder(t *testing.T) {
	r := newClockRun(t)
	r.ok(r.e.UpsertWorker(t0, WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)}))
	r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Priority: 1, Escalation: &Escalation{RespondWithin: 10 * time.Second},
		Clocks: &Clocks{Ladder: true, MaxEscalations: ptr(2), PriorityBoost: 5}})
	if evs := r.at(10*time.Second - time.Nanosecond); len(evs) != 0 {
		t.Fatalf("just before the first expiry: %v", evs)
	}
	want := []string{"task.expired t1", "task.escalated t1 level=1", "task.matched t1"}
	if d := cmp.Diff(want, r.at(10*time.Second)); d != "" {
		t.Errorf("first step (-want +got):\n%s", d)
	}
	want = []string{"task.expired t1", "task.escalated t1 level=2", "task.matched t1"}
	if d := cmp.Diff(want, r.at(20*time.Second)); d != "" {
		t.Errorf("second step (-want +got):\n%s", d)
	}
	tk, _ := r.e.Task("t1")
	if tk.EscalationLevel != 2 || tk.Priority != 11 {
		t.Errorf("level %d priority %v, want 2 and 11", tk.EscalationLevel, tk.Priority)
	}
	want = []string{"task.expired t1", "task.parked t1 escalation"}
	if d := cmp.Diff(want, r.at(30*time.Second)); d != "" {
		t.Errorf("end of the ladder (-want +got):\n%s", d)
	}
	if r.status("t1") != StatusParked {
		t.Errorf("status %s", r.status("t1"))
	}
	if evs := r.at(time.Hour); len(evs) != 0 {
		t.Errorf("a parked task is never offered: %v", evs)
	}
	// Unpark without a reset: the next expiry parks it straight back.
	r.ok(r.e.Unpark(t0.Add(time.Hour), "t1", UnparkOptions{}))
	if d := cmp.Diff([]string{"task.expired t1", "task.parked t1 escalation"}, r.at(time.Hour+10*time.Second)); d != "" {
		t.Errorf("unpark without reset (-want +got):\n%s", d)
	}
	// With the reset it climbs the ladder again from 0.
	r.ok(r.e.Unpark(t0.Add(2*time.Hour), "t1", UnparkOptions{ResetEscalation: true}))
	if d := cmp.Diff([]string{"task.expired t1", "task.escalated t1 level=1", "task.matched t1"}, r.at(2*time.Hour+10*time.Second)); d != "" {
		t.Errorf("unpark with reset (-want +got):\n%s", d)
	}
}

// TestEscalate is the manual step: a queued task climbs, an offered one is withdrawn first,
// and the end of the ladder parks (escalated false, parked true).
func TestEscalate(t *testing.T) {
	r := newClockRun(t)
	r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{MaxEscalations: ptr(1)}})
	er, err := r.e.Escalate(t0, "t1", "")
	if err != nil || !er.Escalated || er.Parked || er.Level != 1 {
		t.Fatalf("first: %+v %v", er, err)
	}
	if _, err := r.e.Escalate(t0, "t1", "w9"); !errors.Is(err, ErrInvalidState) {
		t.Errorf("a worker the task is not offered to: %v", err)
	}
	er, err = r.e.Escalate(t0, "t1", "")
	if err != nil || er.Escalated || !er.Parked || er.Level != 1 || r.status("t1") != StatusParked {
		t.Fatalf("end: %+v %v %s", er, err, r.status("t1"))
	}
	if _, err := r.e.Escalate(t0, "t1", ""); !errors.Is(err, ErrInvalidState) {
		t.Errorf("a parked task: %v", err)
	}

	r.ok(r.e.UpsertWorker(t0, WorkerInput{ID: "w1", Tags: []string{"b"}, Available: ptr(true)}))
	r.create(TaskInput{ID: "t2", Tags: []string{"b"}})
	r.events = nil
	er, err = r.e.Escalate(t0, "t2", "w1")
	if err != nil {
		t.Fatal(err)
	}
	r.keep(er.Result)
	want := []string{"task.released t2 escalated", "task.escalated t2 level=1", "task.matched t2"}
	if d := cmp.Diff(want, r.events); d != "" {
		t.Errorf("offered (-want +got):\n%s", d)
	}
}

// TestSchedule crosses notBefore (never offered before it) and notAfter (missed: dropped).
func TestSchedule(t *testing.T) {
	r := newClockRun(t)
	hour := &Escalation{RespondWithin: time.Hour}
	r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Escalation: hour, Clocks: &Clocks{NotBefore: t0.Add(time.Minute), NotAfter: t0.Add(2 * time.Minute)}})
	r.create(TaskInput{ID: "t2", Tags: []string{"a"}, Escalation: hour, Clocks: &Clocks{NotBefore: t0.Add(time.Minute)}})
	if r.status("t1") != StatusScheduled {
		t.Fatalf("t1 %s", r.status("t1"))
	}
	if got := len(r.e.TasksWithStatus(StatusScheduled)); got != 2 {
		t.Errorf("scheduled %d", got)
	}
	if evs := r.at(time.Minute - time.Nanosecond); len(evs) != 0 {
		t.Fatalf("just before notBefore: %v", evs)
	}
	// An eligible worker arrives just before: still nothing is offered.
	r.ok(r.e.UpsertWorker(t0.Add(time.Minute-time.Nanosecond), WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true), MaxBacklogSize: ptr(1)}))
	if r.status("t1") != StatusScheduled || r.status("t2") != StatusScheduled {
		t.Fatal("offered before notBefore")
	}
	want := []string{"task.queued t1 schedule", "task.matched t1", "task.queued t2 schedule"}
	if d := cmp.Diff(want, r.at(time.Minute)); d != "" {
		t.Errorf("at notBefore (-want +got):\n%s", d)
	}
	if evs := r.at(2*time.Minute - time.Nanosecond); len(evs) != 0 {
		t.Fatalf("just before notAfter: %v", evs)
	}
	want = []string{"task.released t1 schedule", "task.dropped t1 schedule", "task.matched t2"}
	if d := cmp.Diff(want, r.at(2*time.Minute)); d != "" {
		t.Errorf("at notAfter (-want +got):\n%s", d)
	}
	if r.status("t1") != StatusExpired {
		t.Errorf("t1 %s", r.status("t1"))
	}
}

// TestScheduleMissPark parks a task whose window closed and brings it back with the
// schedule reset.
func TestScheduleMissPark(t *testing.T) {
	r := newClockRun(t)
	r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{NotAfter: t0.Add(time.Minute), OnMiss: ActionPark}})
	if d := cmp.Diff([]string{"task.parked t1 schedule"}, r.at(time.Minute)); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if got := r.e.TasksWithStatus(StatusParked); len(got) != 1 || got[0].ID != "t1" {
		t.Errorf("parked %v", got)
	}
	r.events = nil
	r.ok(r.e.Unpark(t0.Add(2*time.Minute), "t1", UnparkOptions{}))
	if d := cmp.Diff([]string{"task.unparked t1", "task.parked t1 schedule"}, r.events); d != "" {
		t.Errorf("without the reset it parks straight back (-want +got):\n%s", d)
	}
	r.events = nil
	r.ok(r.e.Unpark(t0.Add(2*time.Minute), "t1", UnparkOptions{ResetSchedule: true}))
	if r.status("t1") != StatusQueued {
		t.Errorf("status %s", r.status("t1"))
	}
	if _, err := r.e.Unpark(t0.Add(2*time.Minute), "t1", UnparkOptions{}); !errors.Is(err, ErrInvalidState) {
		t.Errorf("unpark a queued task: %v", err)
	}
}

// TestUnparkResetSLA restarts the shelf life from the unpark.
func TestUnparkResetSLA(t *testing.T) {
	r := newClockRun(t)
	r.create(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{ExpireAfter: time.Minute, OnExpire: ActionPark}})
	r.at(time.Minute)
	r.ok(r.e.Unpark(t0.Add(5*time.Minute), "t1", UnparkOptions{ResetSLA: true}))
	if evs := r.at(6*time.Minute - time.Nanosecond); len(evs) != 0 || r.status("t1") != StatusQueued {
		t.Fatalf("just before the new shelf life ends: %v %s", evs, r.status("t1"))
	}
	if d := cmp.Diff([]string{"task.parked t1 sla"}, r.at(6*time.Minute)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestAckAndFail: ack stops the response clock (the offer never expires); fail ends the
// accepted task.
func TestAckAndFail(t *testing.T) {
	r := newClockRun(t)
	r.ok(r.e.UpsertWorker(t0, WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)}))
	r.create(TaskInput{ID: "t1", Tags: []string{"a"}})
	if _, err := r.e.Ack(t0, "t1", "w2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ack by an unknown worker: %v", err)
	}
	r.events = nil
	r.ok(r.e.Ack(t0, "t1", "w1"))
	if d := cmp.Diff([]string{"task.accepted t1 ack"}, r.events); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if evs := r.at(time.Hour); len(evs) != 0 || r.status("t1") != StatusAccepted {
		t.Errorf("after ack: %v %s", evs, r.status("t1"))
	}
	r.events = nil
	r.ok(r.e.Fail(t0.Add(time.Hour), "t1", "w1", "customer gone"))
	if d := cmp.Diff([]string{"task.failed t1 customer gone"}, r.events); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := r.e.Fail(t0.Add(time.Hour), "t1", "w1", ""); !errors.Is(err, ErrInvalidState) {
		t.Errorf("fail twice: %v", err)
	}
	if _, err := r.e.CancelTask(t0.Add(time.Hour), "t1"); !errors.Is(err, ErrInvalidState) {
		t.Errorf("failed is terminal: %v", err)
	}
}

// TestPropertyReachesClocks guards the property walk itself: it must take every clock
// transition, or its invariants say nothing about them.
func TestPropertyReachesClocks(t *testing.T) {
	p, err := runPropertyLog(Config{Rules: RulesEveryTag}, propSeed(t), 4000)
	if err != nil {
		t.Fatal(err)
	}
	log := p.events.String()
	for _, k := range []EventKind{EventTaskParked, EventTaskUnparked, EventTaskFailed, EventTaskEscalated, EventTaskDropped, EventTaskQueued} {
		if !strings.Contains(log, "Kind:"+string(k)+" ") {
			t.Errorf("the walk never emits %s", k)
		}
	}
	for _, reason := range []string{"sla", "maxRejections", "escalation", "schedule", "ack"} {
		if !strings.Contains(log, "Reason:"+reason+" ") {
			t.Errorf("the walk never emits reason %s", reason)
		}
	}
}
