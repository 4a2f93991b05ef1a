package match

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPlatformRules plays the smallest scenario of each platform rule (docs/contract.md,
// "How the platform matches") under both rule sets: the platform's outcome is what the
// published engine does; the every-tag outcome shows what the rule changes.
func TestPlatformRules(t *testing.T) {
	type worker = WorkerInput
	cap1 := ptr(1)
	on := ptr(true)
	tests := []struct {
		name     string
		mode     Mode
		play     func(h *harness)
		platform map[string]string
		everyTag map[string]string
	}{
		{
			name:     "one shared tag is enough",
			play:     func(h *harness) { h.worker("w1", "a"); h.task("t1", "a", "b") },
			platform: map[string]string{"t1": "pending:w1"},
			everyTag: map[string]string{"t1": "queued"},
		},
		{
			name: "a worker with weights is reached through its positive weights only",
			play: func(h *harness) {
				h.workerIn(worker{ID: "w1", Tags: []string{"a"}, RoutingWeights: map[string]float64{"b": 1}, Available: on})
				h.task("t1", "a")
			},
			platform: map[string]string{"t1": "queued"},
			everyTag: map[string]string{"t1": "pending:w1"},
		},
		{
			name: "tags-only score is the share of the worker's tags",
			play: func(h *harness) {
				h.worker("w1", "g3", "g4")
				h.worker("w2", "g7")
				h.task("t1", "g3", "g7")
			},
			platform: map[string]string{"t1": "pending:w2"},
			everyTag: map[string]string{"t1": "queued"},
		},
		{
			name: "exact and pattern weights add up",
			play: func(h *harness) {
				h.workerIn(worker{ID: "w1", RoutingWeights: map[string]float64{"ab": 1, "a*": 2}, Available: on})
				h.workerIn(worker{ID: "w2", RoutingWeights: map[string]float64{"ab": 2.5}, Available: on})
				h.task("t1", "ab")
			},
			platform: map[string]string{"t1": "pending:w1"},
			everyTag: map[string]string{"t1": "pending:w2"},
		},
		{
			name: "a worker without weights never meets a threshold",
			play: func(h *harness) {
				h.worker("w1", "a")
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, SkillThresholds: map[string]float64{"a": 0}})
			},
			platform: map[string]string{"t1": "queued"},
			everyTag: map[string]string{"t1": "pending:w1"},
		},
		{
			name: "a 0 weight vetoes the task",
			play: func(h *harness) {
				h.workerIn(worker{ID: "w1", RoutingWeights: map[string]float64{"a": 1, "b*": 0}, Available: on})
				h.task("t1", "a", "bx")
			},
			platform: map[string]string{"t1": "queued"},
			everyTag: map[string]string{"t1": "queued"},
		},
		{
			name: "a worker's tasks rank by priority plus score",
			play: func(h *harness) {
				h.workerIn(worker{ID: "w1", RoutingWeights: map[string]float64{"a": 5, "b": 1}, MaxBacklogSize: cap1})
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"b"}, Priority: 3})
				h.taskIn(TaskInput{ID: "t2", Tags: []string{"a"}, Priority: 1})
				h.available("w1", true)
			},
			platform: map[string]string{"t1": "queued", "t2": "pending:w1"},
			everyTag: map[string]string{"t1": "pending:w1", "t2": "queued"},
		},
		{
			name: "equal ranks fall to the task id as a string",
			play: func(h *harness) {
				h.workerIn(worker{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: cap1})
				h.task("tz", "a")
				h.task("ta", "a")
				h.available("w1", true)
			},
			platform: map[string]string{"ta": "pending:w1", "tz": "queued"},
			everyTag: map[string]string{"ta": "queued", "tz": "pending:w1"},
		},
		{
			name: "ties between workers go to the first registered",
			play: func(h *harness) {
				h.worker("w2", "a")
				h.worker("w1", "a")
				h.task("t1", "a")
				h.task("t2", "a")
			},
			platform: map[string]string{"t1": "pending:w2", "t2": "pending:w2"},
			everyTag: map[string]string{"t1": "pending:w2", "t2": "pending:w1"},
		},
		{
			name: "priority plus score of exactly 0 is never offered",
			play: func(h *harness) {
				h.worker("w1", "a")
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, Priority: -1})
				h.worker("w2", "b", "c")
				h.taskIn(TaskInput{ID: "t2", Tags: []string{"b"}, Priority: -1})
			},
			platform: map[string]string{"t1": "queued", "t2": "pending:w2"},
			everyTag: map[string]string{"t1": "pending:w1", "t2": "pending:w2"},
		},
		{
			name: "a veto and a reject keep the task from that worker",
			play: func(h *harness) {
				h.worker("w1", "a")
				h.worker("w2", "a")
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, VetoedWorkers: []string{"w1"}})
				h.task("t2", "a")
				h.reject("t2", "w1")
			},
			platform: map[string]string{"t1": "pending:w2", "t2": "pending:w2"},
			everyTag: map[string]string{"t1": "pending:w2", "t2": "pending:w2"},
		},
		{
			name: "first-come: a lost claim waits for the next pass",
			mode: ModeFirstCome,
			play: func(h *harness) {
				h.workerIn(worker{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: cap1, Available: on})
				h.workerIn(worker{ID: "w2", Tags: []string{"a"}, MaxBacklogSize: cap1, Available: on})
				h.task("t1", "a")
				h.task("t2", "a")
				// Both offers expire in one maintenance pass; both workers then pick t1
				// and w2 loses the claim.
				h.advance(2 * time.Minute)
			},
			platform: map[string]string{"t1": "pending:w1", "t2": "queued"},
			everyTag: map[string]string{"t1": "pending:w1", "t2": "pending:w2"},
		},
		{
			name: "first-come: a worker that walked fewer tasks claims first",
			mode: ModeFirstCome,
			play: func(h *harness) {
				h.worker("w05", "g3", "g0")
				h.workerIn(worker{ID: "w06", RoutingWeights: map[string]float64{"g3": 1}, Available: on})
				h.task("t004", "g0")
				h.task("t005", "g3")
				// Both expire together: w05 walks t004 and t005, w06 only t005, so w06's
				// claim reaches the engine's Redis first.
				h.advance(2 * time.Minute)
			},
			platform: map[string]string{"t004": "pending:w05", "t005": "pending:w06"},
			everyTag: map[string]string{"t004": "pending:w05", "t005": "pending:w06"},
		},
		{
			name: "a removed worker's offer waits for its expiry",
			play: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a")
				h.ok(h.e.RemoveWorker(h.step(), "w1"))
				h.worker("w2", "a")
			},
			platform: map[string]string{"t1": "pending:w1"},
			everyTag: map[string]string{"t1": "pending:w2"},
		},
		{
			name: "spread-work: a loaded worker yields to an idle one",
			mode: ModeSpreadWork,
			play: func(h *harness) {
				h.worker("w1", "a")
				h.task("t1", "a")
				h.worker("w2", "a")
				// Equal priority + score 2; the penalty is half the median (1) per offer held.
				h.taskIn(TaskInput{ID: "t2", Tags: []string{"a"}, Priority: 1})
			},
			platform: map[string]string{"t1": "pending:w1", "t2": "pending:w2"},
			everyTag: map[string]string{"t1": "pending:w1", "t2": "pending:w2"},
		},
	}
	for _, tc := range tests {
		for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
			t.Run(tc.name+"/"+string(rules), func(t *testing.T) {
				h := newHarness(t, Config{Rules: rules, Mode: tc.mode})
				tc.play(h)
				want := tc.platform
				if rules == RulesEveryTag {
					want = tc.everyTag
				}
				if diff := cmp.Diff(want, h.state()); diff != "" {
					t.Errorf("state (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestPlatformWindowReadsTheLowestRanks: a worker reads only its 50 lowest-ranked candidates,
// so a priority-5 task behind 50 priority-1 tasks waits (the engine's README says the
// highest; the engine reads the lowest).
func TestPlatformWindowReadsTheLowestRanks(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform})
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
	for i := range 50 {
		h.taskIn(TaskInput{ID: "low" + strconv.Itoa(100+i), Tags: []string{"a"}, Priority: 1})
	}
	h.taskIn(TaskInput{ID: "high", Tags: []string{"a"}, Priority: 5})
	h.available("w1", true)
	got := h.state()
	if got["high"] != "queued" || got["low100"] != "pending:w1" {
		t.Fatalf("high = %q, low100 = %q; want the priority-5 task outside the window, low100 offered", got["high"], got["low100"])
	}
	// With a wider window the priority-5 task is read and goes first.
	h = newHarness(t, Config{Rules: RulesPlatform, CandidateWindow: 51})
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
	for i := range 50 {
		h.taskIn(TaskInput{ID: "low" + strconv.Itoa(100+i), Tags: []string{"a"}, Priority: 1})
	}
	h.taskIn(TaskInput{ID: "high", Tags: []string{"a"}, Priority: 5})
	h.available("w1", true)
	if got := h.state()["high"]; got != "pending:w1" {
		t.Fatalf("with a 51-task window high = %q, want pending:w1", got)
	}
}

// TestPlatformExpiriesRematchTogether: two offers expiring by the same maintenance pass are
// re-matched in one pass, so they can swap workers; the every-tag rules re-match each at its
// own deadline.
func TestPlatformExpiriesRematchTogether(t *testing.T) {
	for _, tc := range []struct {
		rules Rules
		want  map[string]string
	}{
		{RulesPlatform, map[string]string{"t1": "pending:w2", "t2": "pending:w1"}},
		{RulesEveryTag, map[string]string{"t1": "pending:w1", "t2": "pending:w2"}},
	} {
		t.Run(string(tc.rules), func(t *testing.T) {
			h := newHarness(t, Config{Rules: tc.rules})
			h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1), Available: ptr(true)})
			h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, Priority: 1})
			h.workerIn(WorkerInput{ID: "w2", Tags: []string{"a"}, MaxBacklogSize: ptr(1), Available: ptr(true)})
			h.taskIn(TaskInput{ID: "t2", Tags: []string{"a"}, Priority: 2})
			h.events = nil
			h.advance(2 * time.Minute)
			if diff := cmp.Diff(tc.want, h.state()); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			if tc.rules == RulesPlatform {
				want := []string{"task.expired t1 w1", "task.expired t2 w2", "task.matched t2 w1", "task.matched t1 w2"}
				if diff := cmp.Diff(want, h.kinds()); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestPlatformExplanations: the dry run (and with it decisions and the unmatched
// explanation, which share the check) scores by the platform's rules and names the rule
// that excluded a worker.
func TestPlatformExplanations(t *testing.T) {
	tests := []struct {
		name   string
		worker WorkerInput
		in     SuggestInput
		want   Candidate
	}{
		{
			name:   "tags only: the share of the worker's tags",
			worker: WorkerInput{ID: "w", Tags: []string{"a", "c"}},
			in:     SuggestInput{Tags: []string{"a", "b"}},
			want:   Candidate{WorkerID: "w", Eligible: true, Score: 0.5, Reasons: []Reason{{Kind: ReasonTagWeight, Tag: "a", Weight: 0.5}}},
		},
		{
			name:   "weights: every matching entry counts",
			worker: WorkerInput{ID: "w", RoutingWeights: map[string]float64{"ab": 1, "a*": 2}},
			in:     SuggestInput{Tags: []string{"ab"}},
			want: Candidate{WorkerID: "w", Eligible: true, Score: 3, Reasons: []Reason{
				{Kind: ReasonTagWeight, Tag: "ab", Weight: 2}, {Kind: ReasonTagWeight, Tag: "ab", Weight: 1}}},
		},
		{
			name:   "plain tags of a worker with weights do not count",
			worker: WorkerInput{ID: "w", Tags: []string{"a"}, RoutingWeights: map[string]float64{"b": 1}},
			in:     SuggestInput{Tags: []string{"a"}},
			want:   Candidate{WorkerID: "w", Reasons: []Reason{{Kind: ReasonMissingTag, Tag: "a"}}},
		},
		{
			name:   "a 0 entry vetoes",
			worker: WorkerInput{ID: "w", RoutingWeights: map[string]float64{"a": 1, "b*": 0}},
			in:     SuggestInput{Tags: []string{"a", "bx"}},
			want:   Candidate{WorkerID: "w", Reasons: []Reason{{Kind: ReasonZeroWeight, Tag: "bx"}}},
		},
		{
			name:   "a threshold below the worker's weight",
			worker: WorkerInput{ID: "w", RoutingWeights: map[string]float64{"a": 1}},
			in:     SuggestInput{Tags: []string{"a"}, SkillThresholds: map[string]float64{"a": 2}},
			want:   Candidate{WorkerID: "w", Reasons: []Reason{{Kind: ReasonThreshold, Tag: "a", Weight: 1, Threshold: 2}}},
		},
		{
			name:   "a threshold never met without weights",
			worker: WorkerInput{ID: "w", Tags: []string{"a"}},
			in:     SuggestInput{Tags: []string{"a"}, SkillThresholds: map[string]float64{"a": 0}},
			want:   Candidate{WorkerID: "w", Reasons: []Reason{{Kind: ReasonThreshold, Tag: "a"}}},
		},
		{
			name:   "priority plus score of 0",
			worker: WorkerInput{ID: "w", Tags: []string{"a"}},
			in:     SuggestInput{Tags: []string{"a"}, Priority: -1},
			want: Candidate{WorkerID: "w", Score: 1, EffectivePriority: -1, Reasons: []Reason{
				{Kind: ReasonTagWeight, Tag: "a", Weight: 1}, {Kind: ReasonZeroPriority}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkSuggestion(t, tc.worker, tc.in, tc.want) })
	}
}

// TestPlatformDecisionListsEligibleFirst: a decision lists the chosen worker, then the
// eligible carriers of the task's tags, then the ineligible ones, each group in the order
// the carriers were met (registration order here).
func TestPlatformDecisionListsEligibleFirst(t *testing.T) {
	e := New(Config{})
	for _, in := range []WorkerInput{
		{ID: "w1", Tags: []string{"a"}, Available: ptr(true)},
		{ID: "w2", Tags: []string{"a"}, Available: ptr(false)},
		{ID: "w3", Tags: []string{"a", "b"}, Available: ptr(true)},
		{ID: "w4", Tags: []string{"a"}, Available: ptr(true)},
		{ID: "w5", Tags: []string{"a"}, Available: ptr(true)},
	} {
		if _, err := e.UpsertWorker(t0, in); err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.CreateTask(t0, TaskInput{ID: "t", Tags: []string{"a"}, VetoedWorkers: []string{"w4"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DecisionIDs) != 1 {
		t.Fatalf("decisions %v, want one", res.DecisionIDs)
	}
	d, _ := e.Decision(res.DecisionIDs[0])
	type row struct {
		ID       string
		Eligible bool
		Reasons  []ReasonKind
	}
	var got []row
	for _, c := range d.Candidates {
		r := row{ID: c.WorkerID, Eligible: c.Eligible}
		for _, why := range c.Reasons {
			r.Reasons = append(r.Reasons, why.Kind)
		}
		got = append(got, r)
	}
	want := []row{
		{"w1", true, []ReasonKind{ReasonTagWeight}},
		{"w3", true, []ReasonKind{ReasonTagWeight}},
		{"w5", true, []ReasonKind{ReasonTagWeight}},
		{"w2", false, []ReasonKind{ReasonUnavailable, ReasonTagWeight}},
		{"w4", false, []ReasonKind{ReasonVetoed, ReasonTagWeight}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
}

// TestPlatformIncrementalAgreesWithFullPass: a pass looks only at the workers a command
// could change (platMark); it must make exactly the decisions of a pass over every worker.
func TestPlatformIncrementalAgreesWithFullPass(t *testing.T) {
	for _, cfg := range []Config{
		{Rules: RulesPlatform},
		{Rules: RulesPlatform, Mode: ModeFirstCome, DefaultMaxBacklog: 2},
		{Rules: RulesPlatform, Mode: ModeBalanced},
		{Rules: RulesPlatform, Mode: ModeSpreadWork, DefaultMaxBacklog: 3},
		{Rules: RulesPlatform, CandidateWindow: 2, OfferTimeout: 10 * time.Second},
		{Rules: RulesPlatform, ShuffleTies: true, Seed: 7},
		{Rules: RulesPlatform, Mode: ModeFirstCome, DefaultMaxBacklog: 2, ShuffleTies: true, Seed: 8},
	} {
		seed := propSeed(t)
		inc := newPropRun(cfg, seed)
		full := newPropRun(cfg, seed)
		full.e.fullScan = true
		if err := inc.run(4000); err != nil {
			t.Fatalf("%+v seed %d: %v", cfg, seed, err)
		}
		if err := full.run(4000); err != nil {
			t.Fatalf("%+v seed %d: %v", cfg, seed, err)
		}
		if diff := cmp.Diff(full.events.String(), inc.events.String()); diff != "" {
			t.Errorf("mode %s window %d seed %d: events differ (-full pass +incremental):\n%s", cfg.Mode, cfg.CandidateWindow, seed, diff)
		}
	}
}

// checkSuggestion registers one available worker on a fresh engine and checks that
// SuggestWorkers answers in with exactly want for it.
func checkSuggestion(t *testing.T, w WorkerInput, in SuggestInput, want Candidate) {
	t.Helper()
	e := New(Config{})
	w.Available = ptr(true)
	if _, err := e.UpsertWorker(t0, w); err != nil {
		t.Fatal(err)
	}
	got, err := e.SuggestWorkers(in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Candidate{want}, got); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
}
