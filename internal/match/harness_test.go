package match

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// harness drives an engine in tests: commands must succeed and advance its clock by one
// second each, so task creation order is also queue order.
type harness struct {
	t         *testing.T
	e         *Engine
	now       time.Time
	events    []Event
	decisions []Decision
}

// newHarness starts an engine with cfg. The tests written against the every-tag rules get
// them when cfg names no rule set; the platform's rules are asked for explicitly.
func newHarness(t *testing.T, cfg Config) *harness {
	return &harness{t: t, e: New(everyTagUnlessSet(cfg)), now: t0}
}

// everyTagUnlessSet returns cfg with RulesEveryTag when it names no rule set.
func everyTagUnlessSet(cfg Config) Config {
	if cfg.Rules == "" {
		cfg.Rules = RulesEveryTag
	}
	return cfg
}

func (h *harness) step() time.Time {
	h.now = h.now.Add(time.Second)
	return h.now
}

func (h *harness) ok(res Result, err error) Result {
	h.t.Helper()
	if err != nil {
		h.t.Fatalf("command failed: %v", err)
	}
	h.collect(res)
	return res
}

// collect keeps a result's events and its decisions, read back through Engine.Decision.
func (h *harness) collect(res Result) {
	h.t.Helper()
	h.events = append(h.events, res.Events...)
	for _, id := range res.DecisionIDs {
		d, ok := h.e.Decision(id)
		if !ok {
			h.t.Fatalf("decision %s of the last command is not retained", id)
		}
		h.decisions = append(h.decisions, d)
	}
}

// worker upserts an available worker with the default cap.
func (h *harness) worker(id string, tags ...string) {
	h.t.Helper()
	h.ok(h.e.UpsertWorker(h.step(), WorkerInput{ID: id, Tags: tags, Available: ptr(true)}))
}

func (h *harness) workerIn(in WorkerInput) {
	h.t.Helper()
	h.ok(h.e.UpsertWorker(h.step(), in))
}

func (h *harness) task(id string, tags ...string) {
	h.t.Helper()
	h.ok(h.e.CreateTask(h.step(), TaskInput{ID: id, Tags: tags}))
}

func (h *harness) taskIn(in TaskInput) {
	h.t.Helper()
	h.ok(h.e.CreateTask(h.step(), in))
}

func (h *harness) accept(task, worker string) {
	h.t.Helper()
	h.ok(h.e.Accept(h.step(), task, worker))
}

func (h *harness) reject(task, worker string) {
	h.t.Helper()
	h.ok(h.e.Reject(h.step(), task, worker))
}

func (h *harness) complete(task, worker string) {
	h.t.Helper()
	h.ok(h.e.Complete(h.step(), task, worker, map[string]any{"ok": true}))
}

func (h *harness) available(worker string, on bool) {
	h.t.Helper()
	h.ok(h.e.SetAvailability(h.step(), worker, on, false))
}

func (h *harness) advance(d time.Duration) {
	h.now = h.now.Add(d)
	h.t.Helper()
	h.collect(h.e.Advance(h.now))
}

// state maps every task to "status" or "status:worker".
func (h *harness) state() map[string]string {
	h.t.Helper()
	out := map[string]string{}
	page, err := h.e.Tasks(TaskQuery{Limit: 1000})
	if err != nil {
		h.t.Fatal(err)
	}
	for _, t := range page.Tasks {
		s := string(t.Status)
		if t.WorkerID != "" {
			s += ":" + t.WorkerID
		}
		out[t.ID] = s
	}
	return out
}

// kinds lists the event kinds with task and worker, to compare event streams compactly.
func (h *harness) kinds() []string {
	out := []string{}
	for _, ev := range h.events {
		s := string(ev.Kind)
		if ev.TaskID != "" {
			s += " " + ev.TaskID
		}
		if ev.WorkerID != "" {
			s += " " + ev.WorkerID
		}
		out = append(out, s)
	}
	return out
}

// candidateIDs lists a decision's candidates by worker id, in order.
func candidateIDs(d Decision) []string {
	var ids []string
	for _, c := range d.Candidates {
		ids = append(ids, c.WorkerID)
	}
	return ids
}
