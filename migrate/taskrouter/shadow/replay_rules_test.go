package shadow

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
)

// rulesWorkspace: workers A and B with skill a, C with b, D with c; queues Qa, Qb, Qc by
// skill; workflow F1 steps from Qa (priority 10) to Qb (20) and back to Qa (30).
const rulesWorkspace = `{
 "workers": [
  {"sid": "A", "attributes": "{\"skills\": [\"a\"]}", "activity_sid": "WAidle", "available": true},
  {"sid": "B", "attributes": "{\"skills\": [\"a\"]}", "activity_sid": "WAidle", "available": true},
  {"sid": "C", "attributes": "{\"skills\": [\"b\"]}", "activity_sid": "WAidle", "available": true},
  {"sid": "D", "attributes": "{\"skills\": [\"c\"]}", "activity_sid": "WAidle", "available": true}
 ],
 "task_queues": [
  {"sid": "Qa", "friendly_name": "A", "target_workers": "skills HAS 'a'"},
  {"sid": "Qb", "friendly_name": "B", "target_workers": "skills HAS 'b'"},
  {"sid": "Qc", "friendly_name": "C", "target_workers": "skills HAS 'c'"}
 ],
 "workflows": [{"sid": "F1", "friendly_name": "F", "configuration": "{\"task_routing\": {\"filters\": [{\"filter_friendly_name\": \"all\", \"expression\": \"1==1\", \"targets\": [{\"queue\": \"Qa\", \"priority\": 10, \"timeout\": 30}, {\"queue\": \"Qb\", \"priority\": 20, \"timeout\": 30}, {\"queue\": \"Qa\", \"priority\": 30}]}]}}"}],
 "activities": [{"sid": "WAidle", "friendly_name": "Idle", "available": true}, {"sid": "WAoff", "friendly_name": "Offline", "available": false}]
}`

// TestReplayRules: a timed-out reservation vetoes no one; a reservation takes the tier of its
// queue at or after the task's current tier; an activity update is read by its availability
// first, then its activity's sid, then its name; a reservation from a queue the rule does not
// name takes the queue's own tags; a task is "nobody here" only when no reservation of it had
// an eligible worker.
func TestReplayRules(t *testing.T) {
	rep := replayLines(t, parseWorkspace(t, rulesWorkspace), Options{},
		created(1, "T1", "F1", `{}`),
		reservation(2, "reservation.created", "T1", "A", "Qa", "R1"),
		reservation(3, "reservation.timeout", "T1", "A", "Qa", "R1"),
		reservation(4, "reservation.created", "T1", "A", "Qa", "R2"), // A again: a timeout vetoes no one
		reservation(5, "reservation.rejected", "T1", "A", "Qa", "R2"),
		reservation(6, "reservation.created", "T1", "C", "Qb", "R3"), // tier 1
		reservation(7, "reservation.rejected", "T1", "C", "Qb", "R3"),
		reservation(8, "reservation.created", "T1", "B", "Qa", "R4"), // tier 2, priority 30
		ev(9, "worker.activity.update", map[string]any{"worker_sid": "A", "worker_activity_name": "Offline"}),
		ev(10, "worker.activity.update", map[string]any{"worker_sid": "B", "worker_activity_sid": "WAidle", "worker_activity_available": false}),
		created(11, "T2", "F1", `{}`),
		reservation(12, "reservation.created", "T2", "C", "Qb", "R5"), // someone eligible
		reservation(13, "reservation.created", "T2", "A", "Qa", "R6"), // nobody: A offline by name, B by availability
		created(14, "T3", "F1", `{}`),
		reservation(15, "reservation.created", "T3", "D", "Qc", "R7"), // a queue the rule does not name
	)
	type view struct {
		Resv, Standing, Here string
		Priority             float64
		Tags, Vetoed         []string
	}
	var got []view
	for _, r := range rep.Reservations {
		v := view{Resv: r.Reservation, Standing: r.Standing, Priority: r.Priority, Tags: r.Tags, Vetoed: r.Vetoed}
		if r.Here != nil {
			v.Here = r.Here.WorkerID
		}
		got = append(got, v)
	}
	a, b, c := []string{"skills:a"}, []string{"skills:b"}, []string{"skills:c"}
	want := []view{
		{Resv: "R1", Standing: StandingTie, Here: "A", Priority: 10, Tags: a},
		{Resv: "R2", Standing: StandingTie, Here: "A", Priority: 10, Tags: a},
		{Resv: "R3", Standing: StandingFirst, Here: "C", Priority: 20, Tags: b, Vetoed: []string{"A"}},
		{Resv: "R4", Standing: StandingFirst, Here: "B", Priority: 30, Tags: a, Vetoed: []string{"A", "C"}},
		{Resv: "R5", Standing: StandingFirst, Here: "C", Priority: 20, Tags: b},
		{Resv: "R6", Standing: StandingNotEligible, Priority: 30, Tags: a},
		{Resv: "R7", Standing: StandingFirst, Here: "D", Priority: 0, Tags: c},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reservations (-want +got):\n%s", diff)
	}
	o := rep.Overall
	if diff := cmp.Diff([]int{3, 0}, []int{o.Tasks, o.NobodyHere}); diff != "" {
		t.Errorf("tasks, nobody here (-want +got):\n%s", diff)
	}
	if len(rep.Skipped) != 0 {
		t.Errorf("skipped: %+v", rep.Skipped)
	}
}

// TestReservationsWithoutSidPairByTaskAndWorker: an export whose reservation events carry
// no reservation_sid pairs each outcome with its reservation by task and worker, so two
// reservations open at once keep their own outcomes.
func TestReservationsWithoutSidPairByTaskAndWorker(t *testing.T) {
	ws := workspace(t)
	p, _, err := PlanVerified(t.Context(), ws, plan.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	for _, sids := range [][2]string{{"", ""}, {"WR1", "WR2"}} {
		in := strings.Join([]string{
			created(1, "WT1", "WWsupport", `{"type":"billing","language":"es"}`),
			created(2, "WT2", "WWsupport", `{"type":"tech"}`),
			reservation(3, "reservation.created", "WT1", "WK01", "WQbilling_es", sids[0]),
			reservation(4, "reservation.created", "WT2", "WK06", "WQtech", sids[1]),
			reservation(5, "reservation.accepted", "WT1", "WK01", "WQbilling_es", sids[0]),
			reservation(6, "reservation.rejected", "WT2", "WK06", "WQtech", sids[1]),
		}, "\n")
		rep, err := Replay(t.Context(), ws, p, strings.NewReader(in), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got [][3]string
		for _, r := range rep.Reservations {
			got = append(got, [3]string{r.Task, r.Worker, r.Ended})
		}
		want := [][3]string{{"WT1", "WK01", "accepted"}, {"WT2", "WK06", "rejected"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sids %q: reservations (-want +got):\n%s", sids, diff)
		}
		if len(rep.Skipped) != 0 {
			t.Errorf("sids %q: skipped %+v", sids, rep.Skipped)
		}
	}
}

// TestMockRequestsCountTheQuestionsPut: Report.MockRequests counts the suggest-workers
// questions and the availability changes sent, and the replay asks only what it must: a
// ranking still valid is reused, and an availability change is sent only before a tag set
// the worker shares is asked about. Here: T1's reservation asks once (A and B, a complete
// list); B and D go offline, which forgets that ranking; T2's reservation sends B's change
// (B carries the tag asked about), not D's, and asks once more: 3 requests.
func TestMockRequestsCountTheQuestionsPut(t *testing.T) {
	rep := replayLines(t, parseWorkspace(t, rulesWorkspace), Options{Shards: 1},
		created(1, "T1", "F1", `{}`),
		reservation(2, "reservation.created", "T1", "A", "Qa", "R1"),
		activity(3, "B", "WAoff"),
		activity(4, "D", "WAoff"),
		created(5, "T2", "F1", `{}`),
		reservation(6, "reservation.created", "T2", "A", "Qa", "R2"),
	)
	var standings []string
	for _, r := range rep.Reservations {
		standings = append(standings, r.Standing)
	}
	got := []any{standings, rep.MockRequests}
	if diff := cmp.Diff([]any{[]string{StandingTie, StandingFirst}, 3}, got); diff != "" {
		t.Errorf("standings, mock requests (-want +got):\n%s", diff)
	}
}

// TestProgressEvery: Progress is called every ProgressEvery events read and every
// ProgressEvery/10 reservations compared (every one under 10); 0 or less means every 10,000 events (and 1,000
// reservations), so a short export reports no progress. The scenario has 19 events and 5
// reservations.
func TestProgressEvery(t *testing.T) {
	ws := workspace(t)
	p, _, err := PlanVerified(t.Context(), ws, plan.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		every int
		want  []Progress
	}{
		{0, nil},
		{-1, nil},
		{20, []Progress{{Events: 19, Reservations: 5, Compared: 2}, {Events: 19, Reservations: 5, Compared: 4}}},
		// Under 10: every reservation compared.
		{5, []Progress{{Events: 5, At: t0.Add(11 * time.Second)}, {Events: 10, At: t0.Add(101 * time.Second)}, {Events: 15, At: t0.Add(150 * time.Second)},
			{Events: 19, Reservations: 5, Compared: 1}, {Events: 19, Reservations: 5, Compared: 2}, {Events: 19, Reservations: 5, Compared: 3},
			{Events: 19, Reservations: 5, Compared: 4}, {Events: 19, Reservations: 5, Compared: 5}}},
	} {
		var calls []Progress
		rep, err := Replay(t.Context(), ws, p, strings.NewReader(scenario), Options{
			ProgressEvery: tc.every, Progress: func(p Progress) { calls = append(calls, p) }})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, calls); diff != "" || rep.Events != 19 {
			t.Errorf("ProgressEvery %d: %d events; progress (-want +got):\n%s", tc.every, rep.Events, diff)
		}
	}
}

// TestRejectingTwiceVetoesOnce: TaskRouter may reserve a task again to a worker who rejected
// it; a worker who rejects a task twice is vetoed once (Reservation.Vetoed names it once).
func TestRejectingTwiceVetoesOnce(t *testing.T) {
	rep := replayLines(t, parseWorkspace(t, rulesWorkspace), Options{},
		created(1, "T1", "F1", `{}`),
		reservation(2, "reservation.created", "T1", "A", "Qa", "R1"),
		reservation(3, "reservation.rejected", "T1", "A", "Qa", "R1"),
		reservation(4, "reservation.created", "T1", "A", "Qa", "R2"),
		reservation(5, "reservation.rejected", "T1", "A", "Qa", "R2"),
		reservation(6, "reservation.created", "T1", "B", "Qa", "R3"),
	)
	var got [][]string
	for _, r := range rep.Reservations {
		got = append(got, r.Vetoed)
	}
	if diff := cmp.Diff([][]string{nil, {"A"}, {"A"}}, got); diff != "" {
		t.Errorf("vetoed at each reservation (-want +got):\n%s", diff)
	}
}

// TestAtMostThreeQuestionsAReservation: a reservation's standing is asked in at most three
// questions (the first 10 candidates, the first 100, then past 100 by vetoing the first 64);
// a worker ranked past those is of unknown standing. Here 200 workers tie for first (one tag
// each, ranked by id) and the reservation went to the last: 3 requests, standing unknown.
func TestAtMostThreeQuestionsAReservation(t *testing.T) {
	var workers []string
	for i := range 200 {
		workers = append(workers, fmt.Sprintf(`{"sid":"W%03d","attributes":"{\"skills\":[\"a\"]}","available":true}`, i))
	}
	ws := parseWorkspace(t, `{"workers":[`+strings.Join(workers, ",")+`],
	 "task_queues":[{"sid":"Qa","friendly_name":"A","target_workers":"skills HAS 'a'"}],
	 "workflows":[{"sid":"F1","configuration":"{\"task_routing\":{\"filters\":[{\"filter_friendly_name\":\"all\",\"expression\":\"1==1\",\"targets\":[{\"queue\":\"Qa\"}]}]}}"}]}`)
	rep := replayLines(t, ws, Options{Shards: 1},
		created(1, "T1", "F1", `{}`),
		reservation(2, "reservation.created", "T1", "W199", "Qa", "R1"),
	)
	if len(rep.Reservations) != 1 {
		t.Fatalf("%d reservations", len(rep.Reservations))
	}
	got := []any{rep.Reservations[0].Standing, rep.Overall.Unknown, rep.MockRequests}
	if diff := cmp.Diff([]any{StandingUnknown, 1, 3}, got); diff != "" {
		t.Errorf("standing, unknown, mock requests (-want +got):\n%s", diff)
	}
}

// TestReservationFromAnUnknownQueueIsSkipped: a reservation from a queue the workspace does
// not hold is skipped and counted under its reason, once per reservation.
func TestReservationFromAnUnknownQueueIsSkipped(t *testing.T) {
	rep := replayLines(t, parseWorkspace(t, rulesWorkspace), Options{},
		created(1, "T1", "F1", `{}`),
		reservation(2, "reservation.created", "T1", "A", "Qgone", "R1"),
		reservation(3, "reservation.created", "T1", "B", "Qgone", "R2"),
		reservation(4, "reservation.created", "T1", "A", "Qa", "R3"),
	)
	want := []Skip{{Reason: "reservation from a queue not in the workspace", Events: 2}}
	if diff := cmp.Diff(want, rep.Skipped); diff != "" || rep.Overall.Reservations != 1 {
		t.Errorf("%d reservations compared; skips (-want +got):\n%s", rep.Overall.Reservations, diff)
	}
}

// parseWorkspace reads a workspace export written in a test.
func parseWorkspace(t *testing.T, src string) *taskrouter.Workspace {
	t.Helper()
	ws, err := taskrouter.ParseWorkspace([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// replayLines plans ws (verified, at t0) and replays the event lines against that plan.
func replayLines(t *testing.T, ws *taskrouter.Workspace, opts Options, lines ...string) *Report {
	t.Helper()
	p, _, err := PlanVerified(t.Context(), ws, plan.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Replay(t.Context(), ws, p, strings.NewReader(strings.Join(lines, "\n")), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestCreatedTasksThatCannotBeRouted: a task.created whose attributes are not JSON, or whose
// workflow the workspace does not hold, is skipped and counted under its reason; the tasks
// that can be routed are compared, and each queue's rates are its own shares.
func TestCreatedTasksThatCannotBeRouted(t *testing.T) {
	rep := replayLines(t, parseWorkspace(t, rulesWorkspace), Options{},
		created(1, "T1", "F1", `{not json`),
		created(2, "T2", "Fgone", `{}`),
		created(3, "T3", "Fgone", `{}`),
		created(4, "T4", "F1", `{}`),
		reservation(5, "reservation.created", "T4", "A", "Qa", "R1"),
	)
	want := []Skip{
		{Reason: "task.created of a workflow not in the workspace", Events: 2},
		{Reason: "task.created with attributes that are not JSON", Events: 1},
	}
	if diff := cmp.Diff(want, rep.Skipped); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	if rep.Tasks != 1 || rep.Overall.Reservations != 1 {
		t.Errorf("tasks %d, reservations %d; want 1 and 1", rep.Tasks, rep.Overall.Reservations)
	}
	if len(rep.Queues) != 1 || rep.Queues[0].Queue != "Qa" || rep.Queues[0].EligibleRate != 1 {
		t.Errorf("queues %+v, want Qa alone with an eligible rate of 1 (A carries skill a)", rep.Queues)
	}
	if rep.Overall.EligibleRate != 1 {
		t.Errorf("overall eligible rate %v, want 1", rep.Overall.EligibleRate)
	}
}

// TestReplayLeavesGOMAXPROCSAlone: choosing the default number of shards reads the CPU count
// and never changes it for the rest of the process.
func TestReplayLeavesGOMAXPROCSAlone(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	rep := replayLines(t, parseWorkspace(t, rulesWorkspace), Options{},
		created(1, "T1", "F1", `{}`),
		reservation(2, "reservation.created", "T1", "A", "Qa", "R1"),
	)
	if after := runtime.GOMAXPROCS(0); after != before || rep.Shards != 1 {
		t.Errorf("GOMAXPROCS %d before the replay, %d after; %d shards, want 1", before, after, rep.Shards)
	}
}

// TestActivityNameIsReadLast: an activity update's availability, then its activity's sid,
// decide before its activity's name; the name is read only when neither is given or known.
func TestActivityNameIsReadLast(t *testing.T) {
	rep := replayLines(t, parseWorkspace(t, rulesWorkspace), Options{},
		ev(1, "worker.activity.update", map[string]any{"worker_sid": "A", "worker_activity_available": false, "worker_activity_name": "Idle"}),
		ev(2, "worker.activity.update", map[string]any{"worker_sid": "B", "worker_activity_sid": "WAoff", "worker_activity_name": "Idle"}),
		created(3, "T1", "F1", `{}`),
		reservation(4, "reservation.created", "T1", "A", "Qa", "R1"),
	)
	if o := rep.Overall; o.Reservations != 1 || o.NobodyHere != 1 || len(rep.Skipped) != 0 {
		t.Errorf("reservations %d, nobody here %d, skipped %+v; want 1, 1 (A and B offline) and none", o.Reservations, o.NobodyHere, rep.Skipped)
	}
}
