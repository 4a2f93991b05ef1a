package shadow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC) // a Monday

func workspace(t *testing.T) *taskrouter.Workspace {
	t.Helper()
	ws, err := taskrouter.ReadWorkspace("../testdata/workspace.json")
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestPlanVerifiedAgreesWithDefaultRules: whatever rules the mock server matches by default,
// the verified plan's tags select exactly the workers each expression selects.
func TestPlanVerifiedAgreesWithDefaultRules(t *testing.T) {
	p, _, err := PlanVerified(t.Context(), workspace(t), plan.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	mm, err := Verify(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(mm) != 0 {
		t.Errorf("verified plan still mismatches: %+v", mm)
	}
}

func TestVerifyFindsASegmentTheTagsDoNotSelect(t *testing.T) {
	p := plan.Build(workspace(t), plan.Options{Now: t0})
	s, _ := p.Segment("WQtech")
	s.Workers = slices.DeleteFunc(s.Workers, func(w string) bool { return w == "WK06" })
	// The every-tag rules keep the skill-term segments exact, so only the edited one differs.
	mm, err := verify(t.Context(), p, mockserver.WithMatcher(mockserver.MatcherConfig{Rules: mockserver.RulesEveryTag}))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mismatch{{Segment: "WQtech", Selected: 2, Eligible: 3, Extra: []string{"WK06"}}}
	if diff := cmp.Diff(want, mm); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPlanVerifiedFallsBackUnderPlatformRules: under the platform's rules (the mock server's
// default) any shared tag makes a worker eligible, so a segment of two skill terms selects too
// many workers, and the plan falls back to one queue tag for it.
func TestPlanVerifiedFallsBackUnderPlatformRules(t *testing.T) {
	p, fell, err := PlanVerified(t.Context(), workspace(t), plan.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	var segs []string
	for _, m := range fell {
		segs = append(segs, m.Segment)
	}
	if diff := cmp.Diff([]string{"WQbilling_en", "WQbilling_es"}, segs); diff != "" {
		t.Errorf("fallen back (-want +got):\n%s", diff)
	}
	s, _ := p.Segment("WQbilling_es")
	if diff := cmp.Diff([]string{"queue:billing-es"}, s.Tags); diff != "" {
		t.Error(diff)
	}
	again, err := Verify(t.Context(), p)
	if err != nil || len(again) != 0 {
		t.Errorf("after the fallback: %+v, %v", again, err)
	}
	if !slices.ContainsFunc(p.Findings, func(f plan.Finding) bool { return f.Kind == plan.KindSkillTermsFallback }) {
		t.Error("no skillTermsFallback finding")
	}
}

// ev writes one event of a TaskRouter export.
func ev(sec int, typ string, data map[string]any) string {
	b, _ := json.Marshal(map[string]any{"sid": fmt.Sprintf("EV%03d", sec), "event_type": typ,
		"event_date_ms": t0.Add(time.Duration(sec) * time.Second).UnixMilli(), "event_data": data})
	return string(b)
}

func created(sec int, task, wf, attrs string) string {
	return ev(sec, "task.created", map[string]any{"task_sid": task, "workflow_sid": wf, "task_attributes": attrs})
}

func reservation(sec int, typ, task, worker, queue, resv string) string {
	return ev(sec, typ, map[string]any{"task_sid": task, "worker_sid": worker, "task_queue_sid": queue, "reservation_sid": resv})
}

func activity(sec int, worker, act string) string {
	return ev(sec, "worker.activity.update", map[string]any{"worker_sid": worker, "worker_activity_sid": act})
}

// scenario has at most one eligible worker at each reservation, so who is first here does
// not depend on how the matcher ranks workers.
var scenario = strings.Join([]string{
	activity(0, "WK04", "WAoff"),
	created(1, "WT1", "WWsupport", `{"type":"billing","language":"es"}`),
	reservation(2, "reservation.created", "WT1", "WK01", "WQbilling_es", "WR1"), // alice, the only one
	reservation(10, "reservation.rejected", "WT1", "WK01", "WQbilling_es", "WR1"),
	activity(11, "WK01", "WAbusy"),
	reservation(61, "reservation.created", "WT1", "WK02", "WQbilling_en", "WR2"), // tier 1: bob, the only one
	reservation(70, "reservation.accepted", "WT1", "WK02", "WQbilling_en", "WR2"),
	ev(80, "task.completed", map[string]any{"task_sid": "WT1"}),
	created(100, "WT2", "WWsupport", `{"type":"tech"}`),
	reservation(101, "reservation.created", "WT2", "WK05", "WQtech", "WR3"), // erin is no tech
	reservation(130, "reservation.timeout", "WT2", "WK05", "WQtech", "WR3"),
	reservation(131, "reservation.created", "WT2", "WK06", "WQtech", "WR4"), // frank, the only available tech
	reservation(140, "reservation.accepted", "WT2", "WK06", "WQtech", "WR4"),
	activity(145, "WK06", "WAoff"),
	created(150, "WT3", "WWsales", `{"type":"sales"}`),
	reservation(151, "reservation.created", "WT3", "WK05", "WQsales", "WR5"), // erin is busy, frank offline
	reservation(160, "reservation.accepted", "WT3", "WK05", "WQsales", "WR5"),
	reservation(170, "reservation.created", "WTold", "WK05", "WQsales", "WR6"),
	activity(171, "WKgone", "WAoff"),
}, "\n")

func TestReplay(t *testing.T) {
	ws := workspace(t)
	p, _, err := PlanVerified(t.Context(), ws, plan.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	var progress []Progress
	rep, err := Replay(t.Context(), ws, p, strings.NewReader(scenario), Options{
		ProgressEvery: 10, Progress: func(p Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Queue                                string
		Resv, Eligible, First, Tasks, Nobody int
		There, FirstOutcomes, Other          Outcomes
	}
	var got []row
	for _, q := range append(rep.Queues, rep.Overall) {
		got = append(got, row{q.Queue, q.Reservations, q.EligibleHere, q.FirstChoice, q.Tasks, q.NobodyHere, q.There, q.FirstChoiceOutcomes, q.OtherOutcomes})
	}
	want := []row{
		{"WQbilling_en", 1, 1, 1, 0, 0, Outcomes{Accepted: 1}, Outcomes{Accepted: 1}, Outcomes{}},
		{"WQbilling_es", 1, 1, 1, 1, 0, Outcomes{Rejected: 1}, Outcomes{Rejected: 1}, Outcomes{}},
		{"WQsales", 1, 0, 0, 1, 1, Outcomes{Accepted: 1}, Outcomes{}, Outcomes{Accepted: 1}},
		{"WQtech", 2, 1, 1, 1, 0, Outcomes{Accepted: 1, TimedOut: 1}, Outcomes{Accepted: 1}, Outcomes{TimedOut: 1}},
		{"", 5, 3, 3, 3, 1, Outcomes{Accepted: 3, Rejected: 1, TimedOut: 1}, Outcomes{Accepted: 2, Rejected: 1}, Outcomes{Accepted: 1, TimedOut: 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	wantSkips := []Skip{
		{Reason: "activity update of a worker not in the workspace", Events: 1},
		{Reason: "reservation of a task created before the export, or not routed", Events: 1},
	}
	if diff := cmp.Diff(wantSkips, rep.Skipped); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	wantProgress := []Progress{{Events: 10, At: t0.Add(101 * time.Second)}, {Events: 19, Reservations: 5, Compared: 1}, {Events: 19, Reservations: 5, Compared: 2},
		{Events: 19, Reservations: 5, Compared: 3}, {Events: 19, Reservations: 5, Compared: 4}, {Events: 19, Reservations: 5, Compared: 5}}
	if diff := cmp.Diff(wantProgress, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if rep.Events != 19 || rep.Tasks != 3 || rep.Rules != RulesName {
		t.Errorf("events %d tasks %d rules %q", rep.Events, rep.Tasks, rep.Rules)
	}
	var out bytes.Buffer
	if err := rep.WriteSummary(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"replayed 19 events, 3 tasks, 5 reservations (matching: the mock server's default rules)",
		"summary: eligible 60.0%, first choice 60.0% (0 by a tie), ties 0, acceptance there 60.0% of 5, here 66.7% of 3, tasks nobody here could take 1 of 3",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

// TestReplayVetoesRejectersAndCountsTies: a worker who rejected a task is left out of the
// task's later reservations, as the platform vetoes it; workers of equal score tie for first
// and any of them counts as first choice; every reservation is listed with the reasons on
// both sides. With the verified plan, bob (tags billing-en, everyone) scores 1/2 for
// billing-en and everyone; alice (billing-en, billing-es, everyone) and dan (billing-es,
// everyone, tech) score 1/3 for billing-es, a tie.
func TestReplayVetoesRejectersAndCountsTies(t *testing.T) {
	ws := workspace(t)
	p, _, err := PlanVerified(t.Context(), ws, plan.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		created(1, "WT1", "WWsupport", `{"type":"billing","language":"en"}`),
		reservation(2, "reservation.created", "WT1", "WK02", "WQbilling_en", "WR1"), // bob, first
		reservation(5, "reservation.rejected", "WT1", "WK02", "WQbilling_en", "WR1"),
		reservation(6, "reservation.created", "WT1", "WK01", "WQbilling_en", "WR2"), // alice: first once bob is vetoed
		reservation(8, "reservation.rejected", "WT1", "WK01", "WQbilling_en", "WR2"),
		reservation(9, "reservation.created", "WT1", "WK02", "WQbilling_en", "WR3"), // bob again: the platform would not
		reservation(10, "reservation.timeout", "WT1", "WK02", "WQbilling_en", "WR3"),
		created(20, "WT2", "WWsupport", `{"type":"billing","language":"es"}`),
		reservation(21, "reservation.created", "WT2", "WK04", "WQbilling_es", "WR4"), // dan ties with alice
		reservation(25, "reservation.accepted", "WT2", "WK04", "WQbilling_es", "WR4"),
		created(30, "WT3", "WWsupport", `{"type":"other"}`),
		reservation(31, "reservation.created", "WT3", "WK06", "WQeveryone", "WR5"), // frank, below bob
		reservation(32, "reservation.accepted", "WT3", "WK06", "WQeveryone", "WR5"),
	}, "\n")
	rep, err := Replay(t.Context(), ws, p, strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Resv, Standing, Here string
		Tie                  []string
		TieSize, Rank        int
		Vetoed               []string
		WhyThere             string
	}
	var got []view
	for _, r := range rep.Reservations {
		v := view{Resv: r.Reservation, Standing: r.Standing, Tie: r.Tie, TieSize: r.TieSize, Rank: r.Rank, Vetoed: r.Vetoed, WhyThere: r.WhyThere}
		if r.Here != nil {
			v.Here = r.Here.WorkerID
		}
		got = append(got, v)
	}
	want := []view{
		{Resv: "WR1", Standing: StandingFirst, Here: "WK02", Rank: 1, WhyThere: "ranked 1, score 0.5  queue:billing-en x0.5"},
		{Resv: "WR2", Standing: StandingFirst, Here: "WK01", Rank: 1, Vetoed: []string{"WK02"}, WhyThere: "ranked 1, score 0.3333333333333333  queue:billing-en x0.3333333333333333"},
		{Resv: "WR3", Standing: StandingNotEligible, Vetoed: []string{"WK02", "WK01"}, WhyThere: "not eligible: rejectedPreviously"},
		{Resv: "WR4", Standing: StandingTie, Here: "WK01", Tie: []string{"WK01", "WK04"}, TieSize: 2, Rank: 2, WhyThere: "tied for first, score 0.3333333333333333  queue:billing-es x0.3333333333333333"},
		{Resv: "WR5", Standing: StandingEligible, Here: "WK02", Rank: 4, WhyThere: "ranked 4, score 0.3333333333333333  queue:everyone x0.3333333333333333"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reservations (-want +got):\n%s", diff)
	}
	o := rep.Overall
	if diff := cmp.Diff([]int{5, 4, 3, 1, 1}, []int{o.Reservations, o.EligibleHere, o.FirstChoice, o.Ties, o.TiedFirst}); diff != "" {
		t.Errorf("reservations, eligible, first, ties, tied first (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	if err := rep.WriteDisagreements(&out, 1); err != nil {
		t.Fatal(err)
	}
	wantText := `disagreements: 2 of 5 reservations
  2026-11-02T09:00:09Z WT1 WQbilling_en [queue:billing-en] priority 5
    here:  no eligible worker now
    there: WK02   (timedOut)  not eligible: rejectedPreviously
    rejected before, not offered it here: WK02 WK01
  ... 1 more (-list sets how many; -json lists every reservation)
`
	if diff := cmp.Diff(wantText, out.String()); diff != "" {
		t.Errorf("disagreements (-want +got):\n%s", diff)
	}
}

func TestReplayRefusesEventsOutOfOrder(t *testing.T) {
	ws := workspace(t)
	p := plan.Build(ws, plan.Options{Now: t0})
	in := created(10, "WT1", "WWsupport", `{}`) + "\n" + created(5, "WT2", "WWsupport", `{}`)
	_, err := Replay(t.Context(), ws, p, strings.NewReader(in), Options{})
	if err == nil || !strings.Contains(err.Error(), "sort the export by time") {
		t.Errorf("err = %v", err)
	}
}

// TestRulesMakeValidCreates: every rule's create call (tags, priority, escalation ladder)
// passes the mock server's checks of tasks.create, and finds a worker.
func TestRulesMakeValidCreates(t *testing.T) {
	p, _, err := PlanVerified(t.Context(), workspace(t), plan.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	m, err := newMirror(t0)
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	if err := m.upsert(t.Context(), p.Workers); err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Rules {
		rep, err := m.c.Tasks.Check(t.Context(), r.CreateParams(1))
		if err != nil {
			t.Fatalf("%s %q: %v", r.WorkflowName, r.Filter, err)
		}
		if errs := rep.Errors(); len(errs) > 0 {
			t.Errorf("%s %q: a create would be refused: %+v", r.WorkflowName, r.Filter, errs)
		}
		if rep.EligibleWorkerCount == 0 {
			t.Errorf("%s %q: no worker could take the task", r.WorkflowName, r.Filter)
		}
	}
}
