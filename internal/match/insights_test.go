package match

import (
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// auditLine is what a test compares of a QueueEntry.
type auditLine struct {
	Eligible  int
	Uncovered []string
	Blockers  map[ReasonKind]int
}

// TestAuditQueueCountsOnlyWorkersCarryingATag: a queue audit's uncovered tags are those no
// worker carries (by its tags or a positive weight, exact or by pattern), and its eligible
// count and blockers look only at the workers that carry one of the task's tags. A pattern
// that does not match and a 0 entry (exact or pattern) carry nothing, under either rule set.
// The worker is busy with another task, so a carrier counts as blocked by its full backlog
// and a worker that carries nothing is not counted. A waiting task's explanation
// (WhyUnmatched) counts carriers alike: its uncarried tags are the audit's uncovered ones,
// and only a carrier is among its nearest workers.
func TestAuditQueueCountsOnlyWorkersCarryingATag(t *testing.T) {
	cases := []struct {
		name   string
		worker WorkerInput
		want   auditLine
	}{
		{name: "a pattern that does not match the tag",
			worker: WorkerInput{RoutingWeights: map[string]float64{"sales*": 2}},
			want:   auditLine{Uncovered: []string{"spanish"}, Blockers: map[ReasonKind]int{}}},
		{name: "a 0 entry for a listed tag",
			worker: WorkerInput{Tags: []string{"spanish"}, RoutingWeights: map[string]float64{"spanish": 0}},
			want:   auditLine{Uncovered: []string{"spanish"}, Blockers: map[ReasonKind]int{}}},
		{name: "a 0 pattern over a listed tag",
			worker: WorkerInput{Tags: []string{"spanish"}, RoutingWeights: map[string]float64{"span*": 0}},
			want:   auditLine{Uncovered: []string{"spanish"}, Blockers: map[ReasonKind]int{}}},
		{name: "a positive pattern carries",
			worker: WorkerInput{RoutingWeights: map[string]float64{"span*": 1}},
			want:   auditLine{Blockers: map[ReasonKind]int{ReasonBacklogFull: 1}}},
		{name: "a listed tag carries",
			worker: WorkerInput{Tags: []string{"spanish"}},
			want:   auditLine{Blockers: map[ReasonKind]int{ReasonBacklogFull: 1}}},
		{name: "a carrier that is away blocks once",
			worker: WorkerInput{Tags: []string{"spanish"}, Available: ptr(false)},
			want:   auditLine{Blockers: map[ReasonKind]int{ReasonUnavailable: 1}}},
	}
	for _, rules := range []Rules{RulesEveryTag, RulesPlatform} {
		for _, tc := range cases {
			t.Run(string(rules)+"/"+tc.name, func(t *testing.T) {
				h := newHarness(t, Config{Rules: rules})
				in := tc.worker
				in.ID = "w"
				if in.Available == nil {
					in.Available = ptr(true)
				}
				// Busy with another task, so the audited task stays queued whoever carries it.
				in.MaxBacklogSize = ptr(1)
				in.Tags = append(in.Tags, "busy")
				if in.RoutingWeights != nil {
					// Under the platform rules a worker with weights reaches only their tags.
					in.RoutingWeights = maps.Clone(in.RoutingWeights)
					in.RoutingWeights["busy"] = 1
				}
				h.workerIn(in)
				h.task("first", "busy")
				h.task("audited", "spanish")
				if got := h.state()["audited"]; got != "queued" {
					t.Fatalf("precondition: the audited task waits, got %s", got)
				}
				var got []auditLine
				for _, en := range h.e.AuditQueue() {
					if en.TaskID == "audited" {
						got = append(got, auditLine{Eligible: en.Eligible, Uncovered: en.Uncovered, Blockers: en.Blockers})
					}
				}
				if diff := cmp.Diff([]auditLine{tc.want}, got); diff != "" {
					t.Errorf("audit of the task (-want +got):\n%s", diff)
				}
				u, err := h.e.WhyUnmatched("audited", 5)
				if err != nil {
					t.Fatal(err)
				}
				var near []string
				for _, n := range u.Nearest {
					near = append(near, n.WorkerID)
				}
				wantNear := []string{"w"}
				if tc.want.Uncovered != nil {
					wantNear = nil
				}
				if diff := cmp.Diff(tc.want.Uncovered, u.UncarriedTags); diff != "" {
					t.Errorf("uncarried tags of the explanation (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(wantNear, near); diff != "" {
					t.Errorf("nearest workers of the explanation (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestAuditQueueCountsEligibleWorkers: a queued task's eligible count is the carriers that
// could be offered it now, and only those that cannot are counted under their blockers.
// With a window of one task, a pass offers each worker at most one task, so tasks stay
// queued while two workers with room carry their tag (the platform's engine reads
// relevantBatchSize tasks per worker and pass).
func TestAuditQueueCountsEligibleWorkers(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform, CandidateWindow: 1})
	h.workerIn(WorkerInput{ID: "away", Tags: []string{"a"}}) // unavailable: a blocker
	h.worker("other", "b")                                   // carries nothing of the tasks: not counted
	for _, id := range []string{"t1", "t2", "t3", "t4"} {
		h.task(id, "a")
	}
	h.taskIn(TaskInput{ID: "t5", Tags: []string{"a"}, VetoedWorkers: []string{"w1"}})
	h.worker("w1", "a")
	h.worker("w2", "a")
	wantState := map[string]string{"t1": "pending:w1", "t2": "pending:w1", "t3": "queued", "t4": "queued", "t5": "queued"}
	if diff := cmp.Diff(wantState, h.state()); diff != "" {
		t.Fatalf("precondition: tasks (-want +got):\n%s", diff)
	}
	got := map[string]auditLine{}
	for _, en := range h.e.AuditQueue() {
		got[en.TaskID] = auditLine{Eligible: en.Eligible, Uncovered: en.Uncovered, Blockers: en.Blockers}
	}
	want := map[string]auditLine{
		"t3": {Eligible: 2, Blockers: map[ReasonKind]int{ReasonUnavailable: 1}},
		"t4": {Eligible: 2, Blockers: map[ReasonKind]int{ReasonUnavailable: 1}},
		"t5": {Eligible: 1, Blockers: map[ReasonKind]int{ReasonUnavailable: 1, ReasonVetoed: 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
}
