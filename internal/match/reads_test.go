package match

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
)

func TestExplanationsNameTheReason(t *testing.T) {
	h := newHarness(t, Config{})
	h.workerIn(WorkerInput{ID: "best", RoutingWeights: map[string]float64{"a": 5, "b": 2}, Available: ptr(true)})
	h.workerIn(WorkerInput{ID: "second", Tags: []string{"a", "b"}, Available: ptr(true)})
	h.workerIn(WorkerInput{ID: "missing", Tags: []string{"a"}, Available: ptr(true)})
	h.workerIn(WorkerInput{ID: "zero", Tags: []string{"a", "b"}, RoutingWeights: map[string]float64{"b": 0}, Available: ptr(true)})
	h.workerIn(WorkerInput{ID: "vetoed", Tags: []string{"a", "b"}, Available: ptr(true)})
	h.workerIn(WorkerInput{ID: "low", Tags: []string{"a", "b"}, RoutingWeights: map[string]float64{"b": 0.5}, Available: ptr(true)})
	// "missing" does not carry b, the rarer tag, so the bounded scan never looks at it.
	h.taskIn(TaskInput{ID: "t1", Tags: []string{"a", "b"}, Priority: 7, VetoedWorkers: []string{"vetoed"}, SkillThresholds: map[string]float64{"b": 1}})

	ds := h.e.Decisions(DecisionQuery{TaskID: "t1"})
	if len(ds) != 1 {
		t.Fatalf("decisions for t1: %d, want 1", len(ds))
	}
	d := ds[0]
	got := map[string][]Reason{}
	for i, c := range d.Candidates {
		if c.Chosen != (i == 0) || c.EffectivePriority != 7 {
			t.Errorf("candidate %d %s: chosen %v, priority %v", i, c.WorkerID, c.Chosen, c.EffectivePriority)
		}
		got[c.WorkerID] = c.Reasons
	}
	want := map[string][]Reason{
		"best":   {{Kind: ReasonTagWeight, Tag: "a", Weight: 5}, {Kind: ReasonTagWeight, Tag: "b", Weight: 2}},
		"second": {{Kind: ReasonTagWeight, Tag: "a", Weight: 1}, {Kind: ReasonTagWeight, Tag: "b", Weight: 1}},
		"zero":   {{Kind: ReasonTagWeight, Tag: "a", Weight: 1}, {Kind: ReasonZeroWeight, Tag: "b"}, {Kind: ReasonThreshold, Tag: "b", Threshold: 1}},
		"vetoed": {{Kind: ReasonVetoed}, {Kind: ReasonTagWeight, Tag: "a", Weight: 1}, {Kind: ReasonTagWeight, Tag: "b", Weight: 1}},
		"low":    {{Kind: ReasonTagWeight, Tag: "a", Weight: 1}, {Kind: ReasonTagWeight, Tag: "b", Weight: 0.5}, {Kind: ReasonThreshold, Tag: "b", Weight: 0.5, Threshold: 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	if d.WorkerID != "best" || d.Candidates[0].Score != 7 || d.Candidates[1].WorkerID != "second" || !d.Candidates[1].Eligible {
		t.Errorf("ranking: %+v", d.Candidates[:2])
	}
}

func TestCandidatesAreBounded(t *testing.T) {
	h := newHarness(t, Config{MaxCandidates: 3})
	for _, id := range []string{"w1", "w2", "w3", "w4", "w5"} {
		h.worker(id, "a")
	}
	h.task("t1", "a")
	d := h.decisions[len(h.decisions)-1]
	var ids []string
	for _, c := range d.Candidates {
		ids = append(ids, c.WorkerID)
	}
	// All are equal; longest idle (created first) wins, then the next ones in order.
	if diff := cmp.Diff([]string{"w1", "w2", "w3"}, ids); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
}

func TestAssign(t *testing.T) {
	h := newHarness(t, Config{})
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)})
	h.workerIn(WorkerInput{ID: "busy", Tags: []string{"a", "b"}, MaxBacklogSize: ptr(1), Available: ptr(true)})
	h.task("t0", "b") // fills busy
	h.task("t1", "a") // offered to w1 (busy is full)

	res := h.ok(h.e.Assign(h.step(), "t1", "w1", false))
	if res.PreviousWorkerID != "w1" || len(res.Events) != 0 {
		t.Errorf("assign to the holder: %+v", res)
	}
	if _, err := h.e.Assign(h.step(), "t1", "busy", false); err == nil {
		t.Fatal("assign to a full worker without force succeeded")
	}
	res = h.ok(h.e.Assign(h.step(), "t1", "busy", true))
	if res.PreviousWorkerID != "w1" {
		t.Errorf("previous worker %q, want w1", res.PreviousWorkerID)
	}
	if diff := cmp.Diff([]string{"task.released t1 w1", "task.matched t1 busy"}, kinds(res.Events)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	require.Len(t, res.DecisionIDs, 1)
	if d, ok := h.e.Decision(res.DecisionIDs[0]); !ok || d.Mode != ModeAssign || d.Candidates[0].Reasons[0].Kind != ReasonManualAssign {
		t.Errorf("assign decision %s: %+v", res.DecisionIDs[0], d)
	}
	q, _ := h.e.WorkerQueue("busy")
	if diff := cmp.Diff([]string{"t0", "t1"}, q); diff != "" {
		t.Errorf("forced queue over cap (-want +got):\n%s", diff)
	}
}

func kinds(evs []Event) []string {
	h := harness{events: evs}
	return h.kinds()
}

func TestLearningStatsAndFactor(t *testing.T) {
	h := newHarness(t, Config{})
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, RoutingWeights: map[string]float64{"a": 2}, Available: ptr(true)})
	h.task("t1", "a")
	h.accept("t1", "w1")   // +1
	h.complete("t1", "w1") // +2 one second later: mean 1.5 (decay over 1 s is negligible)
	stats, err := h.e.WorkerStats("w1")
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 1 || stats[0].Tag != "a" || stats[0].Count != 2 {
		t.Fatalf("stats: %+v", stats)
	}
	approx := cmpopts.EquateApprox(0, 1e-6)
	if diff := cmp.Diff(1.5, stats[0].MeanReward, approx); diff != "" {
		t.Errorf("mean (-want +got):\n%s", diff)
	}
	wantFactor := 1 + 0.5*math.Tanh(0.75)
	if diff := cmp.Diff(2*wantFactor, *stats[0].LearnedWeight, approx); diff != "" {
		t.Errorf("learned weight (-want +got):\n%s", diff)
	}
	// Two half-lives later a reject weighs four times as much as the old samples: the
	// decayed mean is (1.5*2*0.25 - 1) / (2*0.25 + 1).
	h.now = h.now.Add(14 * 24 * time.Hour)
	h.task("t2", "a")
	h.reject("t2", "w1")
	stats, _ = h.e.WorkerStats("w1")
	if diff := cmp.Diff((3*0.25-1)/(0.5+1), stats[0].MeanReward, cmpopts.EquateApprox(0, 1e-3)); diff != "" {
		t.Errorf("decayed mean (-want +got):\n%s", diff)
	}
	st := h.e.LearningStatus()
	if !st.Enabled || st.ShadowMode || st.Stats == nil || st.Stats.Outcomes != 3 || st.ModelSize != 1 {
		t.Errorf("status: %+v %+v", st, st.Stats)
	}
	off := New(Config{Learning: LearningConfig{Disabled: true}}).LearningStatus()
	if off.Enabled || off.Stats != nil {
		t.Errorf("disabled status: %+v", off)
	}
}

func TestSuggestWorkersIsADryRun(t *testing.T) {
	h := newHarness(t, Config{})
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)})
	h.workerIn(WorkerInput{ID: "w2", RoutingWeights: map[string]float64{"a": 3}, Available: ptr(true)})
	h.workerIn(WorkerInput{ID: "off", Tags: []string{"a"}})
	seq := h.e.seq
	got, err := h.e.SuggestWorkers(SuggestInput{Tags: []string{"a", "new-tag"}, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("nobody carries new-tag, so the scan has no candidates: %+v", got)
	}
	got, err = h.e.SuggestWorkers(SuggestInput{Tags: []string{"a"}, VetoedWorkers: []string{"w1"}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var eligible []bool
	for _, c := range got {
		ids = append(ids, c.WorkerID)
		eligible = append(eligible, c.Eligible)
	}
	if diff := cmp.Diff([]string{"w2", "w1", "off"}, ids, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("suggested (-want +got):\n%s", diff)
	}
	if got[0].WorkerID != "w2" || !eligible[0] || eligible[1] || eligible[2] {
		t.Errorf("w2 first and alone eligible: %+v", got)
	}
	if h.e.seq != seq || len(h.e.tasks) != 0 {
		t.Error("suggest changed the engine")
	}
	if _, ok := h.e.tagIDs["new-tag"]; ok {
		t.Error("suggest interned a tag")
	}
}

func TestReadsReturnCopies(t *testing.T) {
	h := newHarness(t, Config{})
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, RoutingWeights: map[string]float64{"a": 2}, Available: ptr(true)})
	h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, VetoedWorkers: []string{"x"}, SkillThresholds: map[string]float64{"a": 1}})
	w, _ := h.e.Worker("w1")
	w.Tags[0] = "mutated"
	w.RoutingWeights["a"] = 99
	tk, _ := h.e.Task("t1")
	tk.Tags[0] = "mutated"
	tk.VetoedWorkers[0] = "mutated"
	tk.SkillThresholds["a"] = 99
	ds := h.e.Decisions(DecisionQuery{})
	ds[0].Candidates[0].Reasons[0].Tag = "mutated"

	w2, _ := h.e.Worker("w1")
	tk2, _ := h.e.Task("t1")
	ds2 := h.e.Decisions(DecisionQuery{})
	if w2.Tags[0] != "a" || w2.RoutingWeights["a"] != 2 || tk2.Tags[0] != "a" || tk2.VetoedWorkers[0] != "x" ||
		tk2.SkillThresholds["a"] != 1 || ds2[0].Candidates[0].Reasons[0].Tag != "a" {
		t.Errorf("engine state changed through a read: %+v %+v %+v", w2, tk2, ds2[0])
	}
	ids := h.e.WorkerIDs()
	ids[0] = "mutated"
	if h.e.WorkerIDs()[0] != "w1" {
		t.Error("WorkerIDs shares its slice")
	}
}

func TestTasksPagingAndFilter(t *testing.T) {
	h := newHarness(t, Config{})
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1), Available: ptr(true)})
	for _, id := range []string{"t1", "t2", "t3", "t4", "t5"} {
		h.task(id, "a")
	}
	var all []string
	var after uint64
	for {
		page, err := h.e.Tasks(TaskQuery{After: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range page.Tasks {
			all = append(all, tk.ID)
			after = tk.Seq
		}
		if !page.HasMore {
			break
		}
	}
	if diff := cmp.Diff([]string{"t1", "t2", "t3", "t4", "t5"}, all); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	page, _ := h.e.Tasks(TaskQuery{Status: FilterPending})
	if len(page.Tasks) != 1 || page.Tasks[0].ID != "t1" || page.HasMore {
		t.Errorf("pending filter: %+v", page)
	}
	if _, err := h.e.Tasks(TaskQuery{Status: "weird"}); err == nil {
		t.Error("unknown status filter accepted")
	}
}

func TestDecisionsNewestFirstAndRetention(t *testing.T) {
	h := newHarness(t, Config{DecisionRetention: 3})
	h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, Available: ptr(true)})
	h.workerIn(WorkerInput{ID: "w2", Tags: []string{"b"}, Available: ptr(true)})
	for _, id := range []string{"t1", "t2", "t3", "t4"} {
		h.task(id, "a")
	}
	h.task("t5", "b")
	ids := func(ds []Decision) []string {
		out := []string{}
		for _, d := range ds {
			out = append(out, d.TaskID)
		}
		return out
	}
	if diff := cmp.Diff([]string{"t5", "t4", "t3"}, ids(h.e.Decisions(DecisionQuery{}))); diff != "" {
		t.Errorf("all (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"t4", "t3"}, ids(h.e.Decisions(DecisionQuery{WorkerID: "w1"}))); diff != "" {
		t.Errorf("by worker (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{}, ids(h.e.Decisions(DecisionQuery{TaskID: "t1"}))); diff != "" {
		t.Errorf("dropped by retention (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"t5"}, ids(h.e.Decisions(DecisionQuery{WorkerID: "w2", Limit: 1}))); diff != "" {
		t.Errorf("limit (-want +got):\n%s", diff)
	}
	// The log is a ring: after five decisions with room for three, dec_3..dec_5 are
	// readable by id and dec_1, dec_2 are gone.
	for _, tc := range []struct {
		id       string
		wantTask string // "" when the id must not be found
	}{
		{"dec_5", "t5"},
		{"dec_3", "t3"},
		{"dec_2", ""},
		{"dec_1", ""},
		{"dec_6", ""},
		{"dec_0", ""},
		{"dec_03", ""}, // another spelling of a retained number
		{"evt_3", ""},
		{"dec_", ""},
		{"", ""},
	} {
		d, ok := h.e.Decision(tc.id)
		if diff := cmp.Diff(tc.wantTask, d.TaskID); diff != "" || ok != (tc.wantTask != "") {
			t.Errorf("Decision(%q): ok %v, task (-want +got):\n%s", tc.id, ok, diff)
		}
	}
}

func TestNextDeadlineAndEventIDs(t *testing.T) {
	h := newHarness(t, Config{EventIDPrefix: "evt_ws7_", OfferTimeout: 30 * time.Second})
	if _, ok := h.e.NextDeadline(); ok {
		t.Error("deadline with no offers")
	}
	h.worker("w1", "a")
	h.task("t1", "a")
	dl, ok := h.e.NextDeadline()
	if !ok || !dl.Equal(h.now.Add(30*time.Second)) {
		t.Errorf("deadline %v %v, want %v", dl, ok, h.now.Add(30*time.Second))
	}
	ev := h.events[0]
	if ev.ID != "evt_ws7_1" || !ev.ExpiresAt.Equal(dl) || ev.DecisionID != "dec_1" || !ev.At.Equal(h.now) {
		t.Errorf("matched event: %+v", ev)
	}
	w, _ := h.e.Worker("w1")
	if w.QueueDepth != 1 || !w.LastMatchedAt.Equal(h.now) {
		t.Errorf("worker detail: %+v", w)
	}
}

func TestClockNeverRunsBackwards(t *testing.T) {
	h := newHarness(t, Config{})
	h.worker("w1", "a")
	h.ok(h.e.CreateTask(t0.Add(-time.Hour), TaskInput{ID: "t1", Tags: []string{"a"}}))
	tk, _ := h.e.Task("t1")
	if !tk.CreatedAt.Equal(h.now) {
		t.Errorf("created at %v, want the engine's clock %v", tk.CreatedAt, h.now)
	}
}
