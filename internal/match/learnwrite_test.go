package match

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRewardCreditsTheTaskWorker checks explicit rewards: they go to the worker holding or
// having held the task, on each of its tags, and count in the totals; refused ones change
// nothing.
func TestRewardCreditsTheTaskWorker(t *testing.T) {
	h := newHarness(t, Config{})
	h.worker("ana", "a", "b")
	h.task("t1", "a", "b")
	h.ok(h.e.Reward(h.step(), "t1", 3))  // pending: ana holds the offer
	h.accept("t1", "ana")                // +1
	h.complete("t1", "ana")              // +2
	h.ok(h.e.Reward(h.step(), "t1", -6)) // completed: ana completed it

	stats, err := h.e.WorkerStats("ana")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stats {
		// A second passes per command, so the oldest rewards have decayed a little.
		if s.Count != 4 || math.Abs(s.MeanReward) > 1e-4 {
			t.Errorf("tag %s: %d rewards, mean %v; want 4 and about (3+1+2-6)/4 = 0", s.Tag, s.Count, s.MeanReward)
		}
	}
	st := h.e.LearningStatus().Stats
	if st.Outcomes != 4 || st.TotalReward != 0 {
		t.Errorf("totals: %d outcomes, %v total; want 4 and 0", st.Outcomes, st.TotalReward)
	}

	h.available("ana", false)
	h.task("queued", "a")
	before := h.e.LearningStatus()
	tests := []struct {
		name string
		task string
		r    float64
		want func(error) bool
	}{
		{"nobody holds it", "queued", 1, func(err error) bool { var se *StateError; return errors.As(err, &se) }},
		{"no such task", "nope", 1, func(err error) bool { var nf *NotFoundError; return errors.As(err, &nf) }},
		{"too large", "t1", 2 * MaxExplicitReward, func(err error) bool { return errors.Is(err, ErrInvalidInput) }},
	}
	for _, tc := range tests {
		_, err := h.e.Reward(h.step(), tc.task, tc.r)
		if !tc.want(err) {
			t.Errorf("%s: got %v", tc.name, err)
		}
	}
	if diff := cmp.Diff(before, h.e.LearningStatus()); diff != "" {
		t.Errorf("refused rewards changed learning (-before +after):\n%s", diff)
	}
}

// TestResetLearningRestoresTheTie checks that a reset forgets the means that ranked workers,
// keeps the decision count, and that matching uses the reset at once.
func TestResetLearningRestoresTheTie(t *testing.T) {
	h := newHarness(t, Config{})
	h.worker("ana", "a")
	h.worker("ben", "a")
	h.task("t1", "a")
	h.accept("t1", "ana")
	h.ok(h.e.Reward(h.step(), "t1", -5)) // ana's mean -2: ben ranks first
	h.task("t2", "a")
	if got := h.state()["t2"]; got != "pending:ben" {
		t.Fatalf("t2 is %s, want pending:ben", got)
	}
	h.collect(h.e.ResetLearning(h.step()))
	st := h.e.LearningStatus()
	if st.ModelSize != 0 || st.Stats.Outcomes != 0 || st.Stats.TotalReward != 0 || st.Stats.Decisions != 2 {
		t.Errorf("after reset: %+v %+v", st, *st.Stats)
	}
	h.task("t3", "a")
	if got := h.state()["t3"]; got != "pending:ana" {
		t.Errorf("t3 is %s, want pending:ana (the tie goes to fewer pending offers)", got)
	}
}

// TestAuditQueueCountsBlockers checks the queue audit: uncovered tags, one count per failing
// rule per carrying worker, eligible workers of a task that waits for another reason.
func TestAuditQueueCountsBlockers(t *testing.T) {
	h := newHarness(t, Config{})
	h.worker("ana", "a")
	h.worker("ben", "a", "b")
	h.available("ben", false)
	h.taskIn(TaskInput{ID: "t1", Tags: []string{"a", "b"}, VetoedWorkers: []string{"ben"}})
	h.task("t2", "c")
	got := h.e.AuditQueue()
	want := []QueueEntry{
		{TaskID: "t1", Tags: []string{"a", "b"}, CreatedAt: got[0].CreatedAt,
			Blockers: map[ReasonKind]int{ReasonMissingTag: 1, ReasonUnavailable: 1, ReasonVetoed: 1}},
		{TaskID: "t2", Tags: []string{"c"}, CreatedAt: got[1].CreatedAt, Uncovered: []string{"c"}, Blockers: map[ReasonKind]int{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
	c := h.e.Census()
	if c.ByStatus[StatusQueued] != 2 || !c.OldestQueued.Equal(got[0].CreatedAt) {
		t.Errorf("census: %+v", c)
	}
}

// TestResetLearningStartsANewModel: under RulesPlatform with learning ranks, a reset
// empties the model and its outcome totals, and the decisions open at the reset train
// nothing afterwards (the engine's reset starts a new model generation); later decisions
// train the new model as usual. The decision count stays.
func TestResetLearningStartsANewModel(t *testing.T) {
	h := newHarness(t, learnCfg(ptr(0.0), 1))
	h.worker("w1", "a")
	h.worker("w2", "b")
	h.task("t1", "a")
	h.reject("t1", "w1") // −0.1/3 on bias, tag:a, overlap
	h.task("t2", "a")    // offered to w1: its decision is open at the reset
	if got := h.state()["t2"]; got != "pending:w1" {
		t.Fatalf("precondition: t2 is %s, want pending:w1", got)
	}
	if len(h.e.LearnedModel()) != 3 {
		t.Fatalf("precondition: model %v, want 3 weights", h.e.LearnedModel())
	}
	h.collect(h.e.ResetLearning(h.step()))
	h.accept("t2", "w1")   // the decision opened before the reset: trains nothing
	h.complete("t2", "w1") // nor does its completion
	after := h.e.LearningStatus().Model
	if diff := cmp.Diff(&LearnedModelStatus{Decisions: 2}, after); diff != "" {
		t.Errorf("status after the reset and the old decision's outcomes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]float64{}, h.e.LearnedModel()); diff != "" {
		t.Errorf("model after the reset (-want +got):\n%s", diff)
	}

	h.task("t3", "b") // a new decision: its rejection trains the new model
	h.reject("t3", "w2")
	w := -0.1 / 3
	if diff := cmp.Diff(map[string]float64{"bias": w, "tag:b": w, "overlap": w}, h.e.LearnedModel(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("model after a new decision's rejection (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&LearnedModelStatus{Weights: 3, Decisions: 3, Outcomes: 1, TotalReward: -1}, h.e.LearningStatus().Model); diff != "" {
		t.Errorf("status after a new decision's rejection (-want +got):\n%s", diff)
	}
}
