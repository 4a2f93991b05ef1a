package match

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRefusedCommands checks that every refused command returns the right typed error and
// changes nothing.
func TestRefusedCommands(t *testing.T) {
	setup := func(t *testing.T) *harness {
		h := newHarness(t, Config{})
		h.worker("w1", "a")
		h.worker("w2", "a")
		h.task("pending", "a")  // offered to w1
		h.task("accepted", "a") // offered to w2, accepted below
		h.accept("accepted", "w2")
		h.task("done", "a")
		h.accept("done", "w2") // w2 holds no offer, w1 holds "pending"
		h.complete("done", "w2")
		h.workerIn(WorkerInput{ID: "full", Tags: []string{"a", "z"}, MaxBacklogSize: ptr(0), Available: ptr(true)})
		h.workerIn(WorkerInput{ID: "zonly", Tags: []string{"z"}, Available: ptr(true)})
		h.workerIn(WorkerInput{ID: "off", Tags: []string{"a"}}) // new workers start unavailable
		h.workerIn(WorkerInput{ID: "noA", Tags: []string{"a"}, RoutingWeights: map[string]float64{"a": 0}, Available: ptr(true)})
		return h
	}
	tests := []struct {
		name    string
		call    func(e *Engine, now time.Time) (Result, error)
		target  error
		reason  StateReason // for *StateError
		notFind string      // for *NotFoundError: "task" or "worker"
	}{
		{"accept unknown task", func(e *Engine, n time.Time) (Result, error) { return e.Accept(n, "nope", "w1") }, ErrNotFound, "", "task"},
		{"accept by unknown worker", func(e *Engine, n time.Time) (Result, error) { return e.Accept(n, "pending", "ghost") }, ErrNotFound, "", "worker"},
		{"accept by another worker", func(e *Engine, n time.Time) (Result, error) { return e.Accept(n, "pending", "w2") }, ErrInvalidState, StateNotOfferedWorker, ""},
		{"accept twice", func(e *Engine, n time.Time) (Result, error) { return e.Accept(n, "accepted", "w2") }, ErrInvalidState, StateWrongStatus, ""},
		{"reject accepted", func(e *Engine, n time.Time) (Result, error) { return e.Reject(n, "accepted", "w2") }, ErrInvalidState, StateWrongStatus, ""},
		{"reject by another worker", func(e *Engine, n time.Time) (Result, error) { return e.Reject(n, "pending", "w2") }, ErrInvalidState, StateNotOfferedWorker, ""},
		{"complete pending", func(e *Engine, n time.Time) (Result, error) { return e.Complete(n, "pending", "w1", nil) }, ErrInvalidState, StateWrongStatus, ""},
		{"complete by another worker", func(e *Engine, n time.Time) (Result, error) { return e.Complete(n, "accepted", "w1", nil) }, ErrInvalidState, StateNotAcceptingWorker, ""},
		{"complete twice", func(e *Engine, n time.Time) (Result, error) { return e.Complete(n, "done", "w2", nil) }, ErrInvalidState, StateWrongStatus, ""},
		{"cancel completed", func(e *Engine, n time.Time) (Result, error) { return e.CancelTask(n, "done") }, ErrInvalidState, StateWrongStatus, ""},
		{"cancel unknown", func(e *Engine, n time.Time) (Result, error) { return e.CancelTask(n, "nope") }, ErrNotFound, "", "task"},
		{"assign accepted", func(e *Engine, n time.Time) (Result, error) { return e.Assign(n, "accepted", "w1", true) }, ErrInvalidState, StateWrongStatus, ""},
		{"assign to full worker", func(e *Engine, n time.Time) (Result, error) { return e.Assign(n, "pending", "full", false) }, ErrBacklogFull, "", ""},
		{"assign to unavailable worker", func(e *Engine, n time.Time) (Result, error) { return e.Assign(n, "pending", "off", false) }, ErrInvalidState, StateWorkerNotEligible, ""},
		{"assign to unknown worker", func(e *Engine, n time.Time) (Result, error) { return e.Assign(n, "pending", "ghost", false) }, ErrNotFound, "", "worker"},
		{"priority of completed", func(e *Engine, n time.Time) (Result, error) { return e.SetPriority(n, "done", 3) }, ErrInvalidState, StateWrongStatus, ""},
		{"duplicate task id", func(e *Engine, n time.Time) (Result, error) {
			return e.CreateTask(n, TaskInput{ID: "done", Tags: []string{"a"}})
		}, ErrTaskExists, "", ""},
		{"task without tags", func(e *Engine, n time.Time) (Result, error) { return e.CreateTask(n, TaskInput{ID: "x"}) }, ErrInvalidInput, "", ""},
		{"task without id", func(e *Engine, n time.Time) (Result, error) { return e.CreateTask(n, TaskInput{Tags: []string{"a"}}) }, ErrInvalidInput, "", ""},
		{"bad escalation", func(e *Engine, n time.Time) (Result, error) {
			return e.CreateTask(n, TaskInput{ID: "x", Tags: []string{"a"}, Escalation: &Escalation{OnNoResponse: "maybe"}})
		}, ErrInvalidInput, "", ""},
		{"negative weight", func(e *Engine, n time.Time) (Result, error) {
			return e.UpsertWorker(n, WorkerInput{ID: "w9", RoutingWeights: map[string]float64{"a": -1}})
		}, ErrInvalidInput, "", ""},
		{"negative cap", func(e *Engine, n time.Time) (Result, error) {
			return e.PatchWorker(n, "w1", WorkerInput{MaxBacklogSize: ptr(-1)})
		}, ErrInvalidInput, "", ""},
		{"patch unknown worker", func(e *Engine, n time.Time) (Result, error) { return e.PatchWorker(n, "ghost", WorkerInput{}) }, ErrNotFound, "", "worker"},
		{"release backlog while available", func(e *Engine, n time.Time) (Result, error) { return e.SetAvailability(n, "w1", true, true) }, ErrInvalidInput, "", ""},
		{"end break with none open", func(e *Engine, n time.Time) (Result, error) { return e.EndBreak(n, "w1") }, ErrNoOpenBreak, "", ""},
		{"remove unknown worker", func(e *Engine, n time.Time) (Result, error) { return e.RemoveWorker(n, "ghost") }, ErrNotFound, "", "worker"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := setup(t)
			before := h.state()
			beforeSeq := h.e.seq
			res, err := tc.call(h.e, h.step())
			if !errors.Is(err, tc.target) {
				t.Fatalf("error %v, want %v", err, tc.target)
			}
			if len(res.Events) != 0 || h.e.seq != beforeSeq {
				t.Errorf("refused command sent events: %+v", res.Events)
			}
			if diff := cmp.Diff(before, h.state()); diff != "" {
				t.Errorf("refused command changed tasks (-before +after):\n%s", diff)
			}
			var se *StateError
			if tc.reason != "" && (!errors.As(err, &se) || se.Reason != tc.reason) {
				t.Errorf("error %v: want *StateError with reason %s", err, tc.reason)
			}
			var nf *NotFoundError
			if tc.notFind != "" && (!errors.As(err, &nf) || nf.Kind != tc.notFind) {
				t.Errorf("error %v: want *NotFoundError for a %s", err, tc.notFind)
			}
		})
	}
}

func TestBreakTwiceIsRefused(t *testing.T) {
	h := newHarness(t, Config{})
	h.worker("w1", "a")
	h.ok(h.e.StartBreak(h.step(), "w1", "coffee"))
	if _, err := h.e.StartBreak(h.step(), "w1", "again"); !errors.Is(err, ErrBreakAlreadyOpen) {
		t.Fatalf("second break: %v, want ErrBreakAlreadyOpen", err)
	}
	w, err := h.e.Worker("w1")
	if err != nil {
		t.Fatal(err)
	}
	if !w.OnBreak || w.BreakReason != "coffee" || !w.BreakSince.Equal(t0.Add(2*time.Second)) {
		t.Errorf("worker after break start: %+v", w)
	}
}

// TestRefusalStillReportsDueExpiries: a command that fails still fires the expiries that
// were due before it, and hands their events back with the error.
func TestRefusalStillReportsDueExpiries(t *testing.T) {
	h := newHarness(t, Config{})
	h.worker("w1", "a")
	h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, Escalation: &Escalation{OnNoResponse: NoResponseBlock}})
	res, err := h.e.Accept(h.now.Add(time.Hour), "t1", "w1")
	if !errors.Is(err, ErrInvalidState) {
		t.Fatalf("late accept: %v, want ErrInvalidState", err)
	}
	var kinds []EventKind
	for _, ev := range res.Events {
		kinds = append(kinds, ev.Kind)
	}
	if diff := cmp.Diff([]EventKind{EventTaskExpired}, kinds); diff != "" {
		t.Errorf("events returned with the refusal (-want +got):\n%s", diff)
	}
}
