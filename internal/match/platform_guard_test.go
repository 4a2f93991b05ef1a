package match

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The tests below each guard one platform rule (docs/contract.md, "How the platform
// matches") that the scenarios of platform_test.go leave free: each was seen failing with
// its rule broken by hand.

// Rule: the default window is the engine's relevantBatchSize, 50 tasks, no fewer and no more.
func TestPlatformDefaultWindowIsFiftyTasks(t *testing.T) {
	tests := []struct {
		name string
		low  int // priority-1 tasks ahead of the priority-5 one in every window
		want string
	}{
		{name: "49 lower ranks: the priority-5 task is the 50th and is read", low: 49, want: "pending:w1"},
		{name: "50 lower ranks: the priority-5 task is the 51st and waits", low: 50, want: "queued"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform})
			h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
			for i := range tc.low {
				h.taskIn(TaskInput{ID: "low" + strconv.Itoa(100+i), Tags: []string{"a"}, Priority: 1})
			}
			h.taskIn(TaskInput{ID: "high", Tags: []string{"a"}, Priority: 5})
			h.available("w1", true)
			if diff := cmp.Diff(tc.want, h.state()["high"]); diff != "" {
				t.Errorf("high (-want +got):\n%s", diff)
			}
		})
	}
}

// Rule: offers that expire in one sweep expire in deadline order, then task id as a string,
// and the pass after them re-matches them together.
func TestPlatformExpiriesDueTogetherGoByTaskID(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform})
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(2)})
	// Offered in one pass, tb (priority 2) first: one deadline for both.
	h.taskIn(TaskInput{ID: "tb", Tags: []string{"a"}, Priority: 2})
	h.taskIn(TaskInput{ID: "ta", Tags: []string{"a"}, Priority: 1})
	h.available("w1", true)
	h.events = nil
	h.advance(2 * time.Minute)
	want := []string{"task.expired ta w1", "task.expired tb w1", "task.matched tb w1", "task.matched ta w1"}
	if diff := cmp.Diff(want, h.kinds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// Rule: removing a worker makes the tasks it rejected or that veto it forget it (the
// engine deletes its rejected and vetoing sets), so a worker registered again under its id
// may be offered them; a vetoing task queued again is written anew with its vetoes, and one
// that waits on (its priority changed, by hand or by an escalation step) keeps them forgotten.
func TestPlatformRemovalForgetsRejectionsAndVetoes(t *testing.T) {
	tests := []struct {
		name string
		play func(h *harness)
		want map[string]string
	}{
		{
			name: "a rejection is forgotten",
			play: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a")
				h.reject("t1", "w1")
				h.ok(h.e.RemoveWorker(h.step(), "w1"))
				h.worker("w1", "a")
			},
			want: map[string]string{"t1": "pending:w1"},
		},
		{
			name: "a veto is forgotten",
			play: func(h *harness) {
				h.worker("w1", "a")
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, VetoedWorkers: []string{"w1"}})
				h.ok(h.e.RemoveWorker(h.step(), "w1"))
				h.worker("w1", "a")
			},
			want: map[string]string{"t1": "pending:w1"},
		},
		{
			name: "a forgotten veto holds again once the task is queued again",
			play: func(h *harness) {
				h.worker("w1", "a")
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, VetoedWorkers: []string{"w1"}})
				h.ok(h.e.RemoveWorker(h.step(), "w1"))
				h.worker("w1", "a")
				h.advance(2 * time.Minute)
			},
			want: map[string]string{"t1": "queued"},
		},
		{
			name: "a forgotten veto stays forgotten through a priority change while the task waits",
			play: func(h *harness) {
				h.worker("w1", "a")
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, VetoedWorkers: []string{"w1"}})
				h.ok(h.e.RemoveWorker(h.step(), "w1"))
				h.ok(h.e.SetPriority(h.step(), "t1", 2))
				h.worker("w1", "a")
			},
			want: map[string]string{"t1": "pending:w1"},
		},
		{
			name: "a forgotten veto stays forgotten through an escalation step while the task waits",
			play: func(h *harness) {
				h.worker("w1", "a")
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, VetoedWorkers: []string{"w1"}})
				h.ok(h.e.RemoveWorker(h.step(), "w1"))
				er, err := h.e.Escalate(h.step(), "t1", "")
				h.ok(er.Result, err)
				h.worker("w1", "a")
			},
			want: map[string]string{"t1": "pending:w1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform})
			tc.play(h)
			if diff := cmp.Diff(tc.want, h.state()); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
		})
	}
}

// Rule: an offer expires at its deadline, not a nanosecond before (the sweep takes every
// offer due by its time).
func TestPlatformOfferExpiresAtItsDeadline(t *testing.T) {
	tests := []struct {
		name  string
		after time.Duration
		want  []string
	}{
		{name: "a nanosecond before", after: time.Minute - time.Nanosecond, want: []string{}},
		{name: "at the deadline", after: time.Minute, want: []string{"task.expired t1 w1", "task.matched t1 w1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform})
			h.worker("w1", "a")
			h.task("t1", "a")
			h.events = nil
			h.advance(tc.after)
			if diff := cmp.Diff(tc.want, h.kinds()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// Rule: a worker whose tag ends in `*` is reached by every later task that tag matches,
// though no literal tag of its own names the task's tags.
func TestPlatformPatternTagReachesLaterTasks(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform})
	h.worker("w1", "a*")
	h.task("t0", "b")
	h.task("t1", "ab")
	want := map[string]string{"t0": "queued", "t1": "pending:w1"}
	if diff := cmp.Diff(want, h.state()); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
}

// Rule: first-come claims land by round (no `prefix*` entry, then one kind of pattern
// entry, positive or 0, then both; a tag ending in `*` counts as a positive pattern), then
// by window tasks walked, then by registration order.
func TestPlatformFirstComeClaimRounds(t *testing.T) {
	on := ptr(true)
	weights := func(id string, ws map[string]float64) WorkerInput {
		return WorkerInput{ID: id, RoutingWeights: ws, MaxBacklogSize: ptr(1), Available: on}
	}
	tags := func(id string, ts ...string) WorkerInput {
		return WorkerInput{ID: id, Tags: ts, MaxBacklogSize: ptr(1), Available: on}
	}
	tests := []struct {
		name    string
		workers []WorkerInput // in registration order; all want t1 [ab]
		want    string
	}{
		{
			name:    "a pattern tag claims after a literal tag",
			workers: []WorkerInput{tags("w1", "a*"), tags("w2", "ab")},
			want:    "pending:w2",
		},
		{
			name:    "a positive pattern entry claims after exact entries",
			workers: []WorkerInput{weights("w1", map[string]float64{"a*": 1}), weights("w2", map[string]float64{"ab": 1})},
			want:    "pending:w2",
		},
		{
			name:    "a 0 pattern entry claims after exact entries",
			workers: []WorkerInput{weights("w1", map[string]float64{"ab": 1, "x*": 0}), weights("w2", map[string]float64{"ab": 1})},
			want:    "pending:w2",
		},
		{
			name:    "a 0 pattern entry is one round, as a positive one",
			workers: []WorkerInput{weights("w1", map[string]float64{"ab": 1, "x*": 0}), weights("w2", map[string]float64{"a*": 1})},
			want:    "pending:w1",
		},
		{
			name:    "both kinds of pattern entries claim last",
			workers: []WorkerInput{weights("w1", map[string]float64{"a*": 1, "x*": 0}), weights("w2", map[string]float64{"a*": 1})},
			want:    "pending:w2",
		},
		{
			name:    "the last round claims too",
			workers: []WorkerInput{weights("w1", map[string]float64{"a*": 1, "x*": 0})},
			want:    "pending:w1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform, Mode: ModeFirstCome})
			for _, w := range tc.workers {
				h.workerIn(w)
			}
			h.task("t1", "ab")
			if diff := cmp.Diff(tc.want, h.state()["t1"]); diff != "" {
				t.Errorf("t1 (-want +got):\n%s", diff)
			}
		})
	}
}

// Rule: a tags-only worker's score counts each of its tags once, however many task tags
// a pattern tag matches: [a*, z] scores 0.5 for [ab, ac] and loses to [ab, ac, q] (2/3).
func TestPlatformPatternTagCountsOnce(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform})
	h.worker("w1", "a*", "z")
	h.worker("w2", "ab", "ac", "q")
	h.task("t1", "ab", "ac")
	if diff := cmp.Diff("pending:w2", h.state()["t1"]); diff != "" {
		t.Errorf("t1 (-want +got):\n%s", diff)
	}
}

// Rule: a threshold reads the entry whose key is the tag itself, a `prefix*` key included
// (a task tag may end in `*`), before any pattern that matches the tag.
func TestPlatformThresholdExactKey(t *testing.T) {
	tests := []struct {
		name   string
		worker WorkerInput
		in     SuggestInput
		want   Candidate
	}{
		{
			name:   "a threshold on a tag ending in * reads the key equal to it",
			worker: WorkerInput{ID: "w", RoutingWeights: map[string]float64{"*": 1, "a*": 5}},
			in:     SuggestInput{Tags: []string{"a*"}, SkillThresholds: map[string]float64{"a*": 3}},
			want: Candidate{WorkerID: "w", Eligible: true, Score: 6, Reasons: []Reason{
				{Kind: ReasonTagWeight, Tag: "a*", Weight: 1}, {Kind: ReasonTagWeight, Tag: "a*", Weight: 5}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkSuggestion(t, tc.worker, tc.in, tc.want) })
	}
}

// Rule: a candidate whose score is 0 (here: a threshold not met), or whose priority + score
// is exactly 0, is never offered, for a worker with weights and for a task carrying more
// than tags as for the plain case of TestPlatformRules.
func TestPlatformZeroScoreOrSumNeverOffered(t *testing.T) {
	tests := []struct {
		name   string
		worker WorkerInput
		task   TaskInput
	}{
		{
			name:   "tags only, any threshold",
			worker: WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)},
			task:   TaskInput{ID: "t1", Tags: []string{"a"}, Priority: 1, SkillThresholds: map[string]float64{"a": 0}},
		},
		{
			name:   "weights below the threshold",
			worker: WorkerInput{ID: "w1", RoutingWeights: map[string]float64{"a": 1}, Available: ptr(true)},
			task:   TaskInput{ID: "t1", Tags: []string{"a"}, Priority: 1, SkillThresholds: map[string]float64{"a": 2}},
		},
		{
			name:   "weights, priority + score 0",
			worker: WorkerInput{ID: "w1", RoutingWeights: map[string]float64{"a": 1}, Available: ptr(true)},
			task:   TaskInput{ID: "t1", Tags: []string{"a"}, Priority: -1},
		},
		{
			name:   "a task with a veto, priority + score 0",
			worker: WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)},
			task:   TaskInput{ID: "t1", Tags: []string{"a"}, Priority: -1, VetoedWorkers: []string{"w9"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform})
			h.workerIn(tc.worker)
			h.taskIn(tc.task)
			if diff := cmp.Diff(map[string]string{"t1": "queued"}, h.state()); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
		})
	}
}

// Rule: offers expire in deadline order. An offer whose deadline has passed expires though
// a later offer, made after it, is not yet due (the deadline heap keeps the earliest on top).
func TestPlatformEarlierDeadlineExpiresFirst(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform})
	h.worker("w1", "a")
	h.task("t1", "a") // offered at 0, due at 1m
	h.advance(30 * time.Second)
	h.worker("w2", "b")
	h.task("t2", "b") // offered at 30s, due at 1m30s
	h.events = nil
	h.advance(30 * time.Second)
	if diff := cmp.Diff([]string{"task.expired t1 w1", "task.matched t1 w1"}, h.kinds()); diff != "" {
		t.Errorf("events at 1m (-want +got):\n%s", diff)
	}
}

// Rule: an escalation step of a waiting task is matched in the same command, as any
// priority change is: here the step lifts priority + score from 0, which is never offered
// ("How the platform matches"), to 1.
func TestPlatformEscalationStepIsMatchedAtOnce(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform})
	h.worker("w1", "a")
	h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, Priority: -1, Clocks: &Clocks{PriorityBoost: 1}})
	if got := h.state()["t1"]; got != "queued" {
		t.Fatalf("precondition: priority + score 0 waits, got %s", got)
	}
	er, err := h.e.Escalate(h.step(), "t1", "")
	h.ok(er.Result, err)
	if diff := cmp.Diff(map[string]string{"t1": "pending:w1"}, h.state()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
