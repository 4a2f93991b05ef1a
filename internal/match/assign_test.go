package match

import (
	"errors"
	"testing"
)

// An assignment is the operator's override of matching. Without force it makes the
// platform's four checks (paused, backlog, veto, earlier rejection) and nothing else; force
// skips all four. Rows with rule "" must succeed.
func TestAssignChecksThePlatformsFourAndForceSkipsThem(t *testing.T) {
	paused := func(h *harness) {
		h.task("t", "a")
		h.available("w2", false)
	}
	full := func(h *harness) {
		h.ok(h.e.PatchWorker(h.step(), "w2", WorkerInput{MaxBacklogSize: ptr(0)}))
		h.task("t", "a")
	}
	vetoed := func(h *harness) {
		h.taskIn(TaskInput{ID: "t", Tags: []string{"a"}, VetoedWorkers: []string{"w2"}})
	}
	rejected := func(h *harness) {
		h.task("t", "a")    // offered to w1, the longest idle
		h.reject("t", "w1") // now offered to w2; the test assigns it back to w1
	}
	lacksTag := func(h *harness) {
		h.task("t", "b") // w2 carries only "a"; w3 takes "b"
	}
	onBreak := func(h *harness) {
		h.task("t", "a")
		h.ok(h.e.StartBreak(h.step(), "w2", "lunch"))
	}
	threshold := func(h *harness) {
		h.taskIn(TaskInput{ID: "t", Tags: []string{"a"}, SkillThresholds: map[string]float64{"a": 5}})
	}
	tests := []struct {
		name   string
		setup  func(h *harness)
		target string
		force  bool
		rule   ReasonKind // "" when the assignment must succeed
		full   bool       // the refusal is ErrBacklogFull
	}{
		{"paused", paused, "w2", false, ReasonUnavailable, false},
		{"paused, forced", paused, "w2", true, "", false},
		{"full", full, "w2", false, "", true},
		{"full, forced", full, "w2", true, "", false},
		{"vetoed by the task", vetoed, "w2", false, ReasonVetoed, false},
		{"vetoed, forced", vetoed, "w2", true, "", false},
		{"rejected it before", rejected, "w1", false, ReasonRejectedPreviously, false},
		{"rejected it before, forced", rejected, "w1", true, "", false},
		{"lacks a task tag", lacksTag, "w2", false, "", false},
		{"on a break", onBreak, "w2", false, "", false},
		{"below a skill threshold", threshold, "w2", false, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			h.worker("w1", "a")
			h.worker("w2", "a")
			h.worker("w3", "b")
			tc.setup(h)
			res, err := h.e.Assign(h.step(), "t", tc.target, tc.force)
			switch {
			case tc.full:
				if !errors.Is(err, ErrBacklogFull) {
					t.Fatalf("error %v, want ErrBacklogFull", err)
				}
			case tc.rule != "":
				var se *StateError
				if !errors.As(err, &se) || se.Reason != StateWorkerNotEligible || se.Rule != tc.rule {
					t.Fatalf("error %v, want a StateError for rule %s", err, tc.rule)
				}
			default:
				if err != nil {
					t.Fatalf("assign: %v", err)
				}
				if task, _ := h.e.Task("t"); task.WorkerID != tc.target || task.Status != StatusPending {
					t.Errorf("task after assign: %+v", task)
				}
				return
			}
			if len(res.Events) != 0 {
				t.Errorf("refused assign sent events: %+v", res.Events)
			}
		})
	}
}
