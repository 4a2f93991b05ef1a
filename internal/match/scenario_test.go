package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestScenarios runs one small story per matching rule and compares the final task states
// (and, where the order matters, the events).
func TestScenarios(t *testing.T) {
	tests := []struct {
		name       string
		cfg        Config
		run        func(h *harness)
		want       map[string]string
		wantEvents []string // nil: not compared
	}{
		{
			name: "priority first, then first queued, then creation order",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
				h.taskIn(TaskInput{ID: "low", Tags: []string{"a"}, Priority: 0})
				h.taskIn(TaskInput{ID: "high-late", Tags: []string{"a"}, Priority: 5})
				h.available("w1", true)
			},
			want: map[string]string{"low": "queued", "high-late": "pending:w1"},
		},
		{
			name: "FIFO within a priority",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
				h.task("first", "a")
				h.task("second", "a")
				h.available("w1", true)
				h.accept("first", "w1")
			},
			want: map[string]string{"first": "accepted:w1", "second": "pending:w1"},
		},
		{
			name: "same priority and time keeps creation order",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
				h.ok(h.e.CreateTask(h.now, TaskInput{ID: "b", Tags: []string{"a"}}))
				h.ok(h.e.CreateTask(h.now, TaskInput{ID: "a", Tags: []string{"a"}}))
				h.available("w1", true)
			},
			want: map[string]string{"b": "pending:w1", "a": "queued"},
		},
		{
			name: "a requeued task keeps its place",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1), Available: ptr(true)})
				h.workerIn(WorkerInput{ID: "w2", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
				h.task("old", "a")  // offered to w1
				h.task("next", "a") // queued
				h.reject("old", "w1")
				// w1 may not get "old" again, so it takes "next"; "old" waits ahead of "new".
				h.task("new", "a")
				h.available("w2", true)
			},
			want: map[string]string{"old": "pending:w2", "next": "pending:w1", "new": "queued"},
		},
		{
			name: "every task tag must be carried",
			run: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a", "b")
				h.worker("w2", "a", "b")
			},
			want: map[string]string{"t1": "pending:w2"},
		},
		{
			name: "any-tag switch matches on one shared tag",
			cfg:  Config{AnyTagEligibility: true},
			run: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a", "b")
				h.task("t2", "c")
			},
			want: map[string]string{"t1": "pending:w1", "t2": "queued"},
		},
		{
			name: "weight 0 vetoes a tag even when listed in tags",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a", "b"}, RoutingWeights: map[string]float64{"b": 0}, Available: ptr(true)})
				h.task("needs-b", "a", "b")
				h.task("needs-a", "a")
			},
			want: map[string]string{"needs-b": "queued", "needs-a": "pending:w1"},
		},
		{
			name: "prefix* weights carry tags, the exact entry wins over the pattern",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", RoutingWeights: map[string]float64{"lang_*": 2, "lang_fr": 0}, Available: ptr(true)})
				h.task("en", "lang_en")
				h.task("fr", "lang_fr")
				h.task("other", "billing")
			},
			want: map[string]string{"en": "pending:w1", "fr": "queued", "other": "queued"},
		},
		{
			name: "a 0 pattern vetoes tags the worker lists",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"voice_us"}, RoutingWeights: map[string]float64{"voice_*": 0}, Available: ptr(true)})
				h.task("t1", "voice_us")
			},
			want: map[string]string{"t1": "queued"},
		},
		{
			name: "skill thresholds need the weight",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)})
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, SkillThresholds: map[string]float64{"a": 50}})
				h.workerIn(WorkerInput{ID: "w2", RoutingWeights: map[string]float64{"a": 50}, Available: ptr(true)})
			},
			want: map[string]string{"t1": "pending:w2"},
		},
		{
			name: "task vetoes",
			run: func(h *harness) {
				h.worker("w1", "a")
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, VetoedWorkers: []string{"w1"}})
				h.worker("w2", "a")
			},
			want: map[string]string{"t1": "pending:w2"},
		},
		{
			name: "a rejection vetoes the worker for that task for good",
			run: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a")
				h.reject("t1", "w1")
				h.available("w1", false)
				h.available("w1", true)
			},
			want:       map[string]string{"t1": "queued"},
			wantEvents: []string{"task.matched t1 w1", "task.rejected t1 w1"},
		},
		{
			name: "expiry requeues and may offer the same worker again",
			run: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a")
				h.advance(60 * time.Second)
			},
			want:       map[string]string{"t1": "pending:w1"},
			wantEvents: []string{"task.matched t1 w1", "task.expired t1 w1", "task.matched t1 w1"},
		},
		{
			name: "expiry just before the deadline does nothing",
			run: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a")
				h.advance(59 * time.Second)
			},
			want:       map[string]string{"t1": "pending:w1"},
			wantEvents: []string{"task.matched t1 w1"},
		},
		{
			name: "expiry with onNoResponse block vetoes the silent worker",
			run: func(h *harness) {
				h.worker("w1", "a")
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, Escalation: &Escalation{RespondWithin: 5 * time.Second, OnNoResponse: NoResponseBlock}})
				h.advance(5 * time.Second)
				h.worker("w2", "a")
			},
			want:       map[string]string{"t1": "pending:w2"},
			wantEvents: []string{"task.matched t1 w1", "task.expired t1 w1", "task.matched t1 w2"},
		},
		{
			name: "cap reached, then freed by accept",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(2), Available: ptr(true)})
				h.task("t1", "a")
				h.task("t2", "a")
				h.task("t3", "a")
				h.accept("t1", "w1")
			},
			want: map[string]string{"t1": "accepted:w1", "t2": "pending:w1", "t3": "pending:w1"},
		},
		{
			name: "cap 0 receives nothing",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(0), Available: ptr(true)})
				h.task("t1", "a")
			},
			want: map[string]string{"t1": "queued"},
		},
		{
			name: "a new worker is unavailable unless told otherwise",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}})
				h.task("t1", "a")
			},
			want: map[string]string{"t1": "queued"},
		},
		{
			name: "on a break: no new offers, backlog kept, offers still expire",
			run: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a")
				h.ok(h.e.StartBreak(h.step(), "w1", "lunch"))
				h.task("t2", "a")
				h.advance(60 * time.Second) // t1 expires; w1 is on a break, so it waits
				h.ok(h.e.EndBreak(h.step(), "w1"))
			},
			want: map[string]string{"t1": "pending:w1", "t2": "pending:w1"},
			wantEvents: []string{
				"task.matched t1 w1", "worker.break_started w1", "task.expired t1 w1",
				"worker.break_ended w1", "task.matched t1 w1", "task.matched t2 w1",
			},
		},
		{
			name: "release backlog requeues pending offers to others",
			run: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a")
				h.task("t2", "a")
				h.accept("t1", "w1")
				h.worker("w2", "a")
				res := h.ok(h.e.SetAvailability(h.step(), "w1", false, true))
				if diff := cmp.Diff([]string{"t2"}, res.ReleasedTaskIDs); diff != "" {
					h.t.Errorf("released (-want +got):\n%s", diff)
				}
			},
			want: map[string]string{"t1": "accepted:w1", "t2": "pending:w2"},
		},
		{
			name: "best match: higher weight wins",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", RoutingWeights: map[string]float64{"a": 10}, Available: ptr(true)})
				h.workerIn(WorkerInput{ID: "w2", RoutingWeights: map[string]float64{"a": 90}, Available: ptr(true)})
				h.task("t1", "a")
			},
			want: map[string]string{"t1": "pending:w2"},
		},
		{
			name: "best match ties: fewer pending, then longest idle, then id",
			run: func(h *harness) {
				h.worker("w2", "a")
				h.worker("w1", "a")
				h.task("t1", "a") // equal: both never matched, w1 created later but idle since creation
				h.task("t2", "a") // w1 holds one, so w2
				h.task("t3", "a") // both hold one; w2 was matched later, so w1
			},
			want: map[string]string{"t1": "pending:w2", "t2": "pending:w1", "t3": "pending:w2"},
		},
		{
			name: "first-come picks the longest idle even with a lower score",
			cfg:  Config{Mode: ModeFirstCome},
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "idle", Tags: []string{"a"}, Available: ptr(true)})
				h.workerIn(WorkerInput{ID: "expert", RoutingWeights: map[string]float64{"a": 90}, Available: ptr(true)})
				h.task("t1", "a")
				h.task("t2", "a")
			},
			want: map[string]string{"t1": "pending:idle", "t2": "pending:expert"},
		},
		{
			name: "balanced subtracts a penalty per pending offer",
			cfg:  Config{Mode: ModeBalanced},
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", RoutingWeights: map[string]float64{"a": 2.5}, Available: ptr(true)})
				h.workerIn(WorkerInput{ID: "w2", RoutingWeights: map[string]float64{"a": 1}, Available: ptr(true)})
				h.task("t1", "a") // 2.5 vs 1
				h.task("t2", "a") // 1.5 vs 1
				h.task("t3", "a") // 0.5 vs 1
			},
			want: map[string]string{"t1": "pending:w1", "t2": "pending:w1", "t3": "pending:w2"},
		},
		{
			name: "learning moves a reliable worker ahead",
			run:  learningStory,
			want: map[string]string{"warm1": "completed:reliable", "warm2": "cancelled", "next": "pending:reliable"},
		},
		{
			name: "shadow mode records but does not reorder",
			cfg:  Config{Learning: LearningConfig{ShadowMode: true}},
			run:  learningStory,
			want: map[string]string{"warm1": "completed:reliable", "warm2": "cancelled", "next": "pending:flaky"},
		},
		{
			name: "learning never makes an ineligible worker eligible",
			run: func(h *harness) {
				learningStory(h)
				h.available("reliable", false)
				h.available("flaky", false)
				h.task("other", "b") // nobody carries b, however well they did on a
			},
			want: map[string]string{"warm1": "completed:reliable", "warm2": "cancelled", "next": "pending:reliable", "other": "queued"},
		},
		{
			name: "learned veto (opt-in) stops a worker that keeps refusing",
			cfg:  Config{Learning: LearningConfig{LearnedVeto: true, LearnedVetoMinSamples: 2}},
			run: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a")
				h.reject("t1", "w1")
				h.task("t2", "a")
				h.reject("t2", "w1")
				h.task("t3", "a")
			},
			want: map[string]string{"t1": "queued", "t2": "queued", "t3": "queued"},
		},
		{
			name: "cancel withdraws an offer and frees the worker",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1), Available: ptr(true)})
				h.task("t1", "a")
				h.task("t2", "a")
				h.ok(h.e.CancelTask(h.step(), "t1"))
			},
			want:       map[string]string{"t1": "cancelled", "t2": "pending:w1"},
			wantEvents: []string{"task.matched t1 w1", "task.cancelled t1 w1", "task.matched t2 w1"},
		},
		{
			name: "remove worker requeues its offers",
			run: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a")
				h.worker("w2", "a")
				h.ok(h.e.RemoveWorker(h.step(), "w1"))
			},
			want: map[string]string{"t1": "pending:w2"},
		},
		{
			name: "patching weights can make a worker eligible",
			run: func(h *harness) {
				h.worker("w1")
				h.task("t1", "a")
				h.ok(h.e.PatchWorker(h.step(), "w1", WorkerInput{RoutingWeights: map[string]float64{"a": 3}}))
			},
			want: map[string]string{"t1": "pending:w1"},
		},
		{
			name: "raising priority of a queued task moves it ahead",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
				h.task("t1", "a")
				h.task("t2", "a")
				h.ok(h.e.SetPriority(h.step(), "t2", 10))
				h.available("w1", true)
			},
			want: map[string]string{"t1": "queued", "t2": "pending:w1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.cfg)
			tc.run(h)
			got := h.state()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("task states (-want +got):\n%s", diff)
			}
			if tc.wantEvents != nil {
				if diff := cmp.Diff(tc.wantEvents, h.kinds()); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			}
			if err := verifyInternal(h.e); err != nil {
				t.Error(err)
			}
		})
	}
}

// learningStory gives "flaky" (which wins ties by id) a rejection and "reliable" an accept
// and a completion on tag a, then creates one more task with tag a.
func learningStory(h *harness) {
	h.workerIn(WorkerInput{ID: "flaky", Tags: []string{"a"}, MaxBacklogSize: ptr(1), Available: ptr(true)})
	h.workerIn(WorkerInput{ID: "reliable", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
	h.task("warm2", "a") // flaky gets it and rejects it
	h.reject("warm2", "flaky")
	h.ok(h.e.CancelTask(h.step(), "warm2"))
	h.available("flaky", false)
	h.available("reliable", true)
	h.task("warm1", "a")
	h.accept("warm1", "reliable")
	h.complete("warm1", "reliable")
	h.available("flaky", true)
	// Both are free; flaky was idle longer and has the lower id, so only learning can put
	// reliable first.
	h.task("next", "a")
}
