package match

import (
	"errors"
	"testing"
)

// An assignment is an offer like any other: the rules that keep a worker from a task hold,
// and force stretches only the cap.
func TestAssignKeepsEveryRuleButCapacity(t *testing.T) {
	tests := []struct {
		name  string
		setup func(h *harness)
		rule  ReasonKind // "" when the assignment must succeed
	}{
		{"vetoed by the task", func(h *harness) {
			h.taskIn(TaskInput{ID: "t", Tags: []string{"a"}, VetoedWorkers: []string{"w2"}})
		}, ReasonVetoed},
		{"rejected it before", func(h *harness) {
			h.task("t", "a") // offered to w1, the longest idle
			h.reject("t", "w1")
			// now offered to w2; the test assigns it back to w1
		}, ReasonRejectedPreviously},
		{"on a break", func(h *harness) {
			h.task("t", "a")
			h.ok(h.e.StartBreak(h.step(), "w2", "lunch"))
		}, ReasonOnBreak},
		{"below a skill threshold", func(h *harness) {
			h.taskIn(TaskInput{ID: "t", Tags: []string{"a"}, SkillThresholds: map[string]float64{"a": 5}})
		}, ReasonThreshold},
		{"full, forced", func(h *harness) {
			h.ok(h.e.PatchWorker(h.step(), "w2", WorkerInput{MaxBacklogSize: ptr(0)}))
			h.task("t", "a")
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			h.worker("w1", "a")
			h.worker("w2", "a")
			tc.setup(h)
			target := "w2"
			if tc.rule == ReasonRejectedPreviously {
				target = "w1"
			}
			res, err := h.e.Assign(h.step(), "t", target, true)
			if tc.rule == "" {
				if err != nil {
					t.Fatalf("forced assign to a full worker: %v", err)
				}
				if task, _ := h.e.Task("t"); task.WorkerID != target || task.Status != StatusPending {
					t.Errorf("task after assign: %+v", task)
				}
				return
			}
			var se *StateError
			if !errors.As(err, &se) || se.Reason != StateWorkerNotEligible || se.Rule != tc.rule {
				t.Fatalf("error %v, want a StateError for rule %s", err, tc.rule)
			}
			if len(res.Events) != 0 {
				t.Errorf("refused assign sent events: %+v", res.Events)
			}
		})
	}
}
