package shadow

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestVerifyReportsAMockServerThatWillNotStart: when the mock server cannot be made, Verify
// returns the error instead of checking against nothing.
func TestVerifyReportsAMockServerThatWillNotStart(t *testing.T) {
	p := plan.Build(workspace(t), plan.Options{Now: t0})
	mm, err := verify(t.Context(), p, mockserver.WithAPIKey("not-a-key"))
	if err == nil || !strings.Contains(err.Error(), "mock server") {
		t.Fatalf("verify with a server that cannot start: %v, %v; want a mock server error", mm, err)
	}
}

// TestAskReportsARefusedQuestion: a suggest-workers question the mock server refuses is an
// error of the comparison, never read as an answer with nobody eligible.
func TestAskReportsARefusedQuestion(t *testing.T) {
	p := plan.Build(workspace(t), plan.Options{Now: t0})
	a, err := newAsker(t.Context(), t0, p, map[string]bool{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	var tags []string // suggest-workers takes at most 32 tags (api/openapi.json)
	for i := range 33 {
		tags = append(tags, fmt.Sprint("t", i))
	}
	rk := &ranking{tags: tags}
	if err := a.ask(t.Context(), rk, 0); err == nil || !strings.Contains(err.Error(), "suggest workers") {
		t.Fatalf("ask with 33 tags: %v (ranking %+v); want a suggest workers error", err, rk)
	}
}

// TestVerifySkipsASegmentWithoutTags: a segment with no tags (Build makes none; a plan edited
// by hand may hold one) has nothing to verify: Verify neither asks about it nor reports it.
func TestVerifySkipsASegmentWithoutTags(t *testing.T) {
	p := plan.Build(workspace(t), plan.Options{Now: t0})
	p.Segments = append(p.Segments, plan.Segment{ID: "WQnone", Queue: "WQnone", Workers: []string{"WK01"}})
	mm, err := verify(t.Context(), p, mockserver.WithMatcher(mockserver.MatcherConfig{Rules: mockserver.RulesEveryTag}))
	if err != nil {
		t.Fatal(err)
	}
	if len(mm) != 0 {
		t.Errorf("mismatches %+v, want none", mm)
	}
}

// TestVerifyFindsASwappedWorker: a segment whose tags make as many workers eligible as its
// expression selects, but not the same ones (one selected worker swapped for another), is a
// mismatch naming the worker eligible without being selected.
func TestVerifyFindsASwappedWorker(t *testing.T) {
	p := plan.Build(workspace(t), plan.Options{Now: t0})
	s, _ := p.Segment("WQtech")
	i := slices.Index(s.Workers, "WK06")
	if i < 0 || slices.Contains(s.Workers, "WK01") {
		t.Fatalf("WQtech selects %v: want WK06 in it and WK01 not", s.Workers)
	}
	s.Workers[i] = "WK01"
	mm, err := verify(t.Context(), p, mockserver.WithMatcher(mockserver.MatcherConfig{Rules: mockserver.RulesEveryTag}))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mismatch{{Segment: "WQtech", Selected: 3, Eligible: 3, Extra: []string{"WK06"}}}
	if diff := cmp.Diff(want, mm); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPlanVerifiedReportsWhatStillMismatches: a segment that still does not verify after
// falling back to a queue tag is a rulesMismatch finding with the counts. A worker selected by
// 70 queues keeps 64 of its 70 queue tags (the API's limit, in tag order), so the 6 queues
// whose tags sort last make nobody eligible where their expression selects that worker.
func TestPlanVerifiedReportsWhatStillMismatches(t *testing.T) {
	var queues []string
	for i := range 70 {
		queues = append(queues, fmt.Sprintf(`{"sid":"QA%02d","friendly_name":"All %02d","target_workers":"level >= %d"}`, i, i, -i))
	}
	ws, err := taskrouter.ParseWorkspace([]byte(`{"workers":[{"sid":"W1","attributes":"{\"level\":1}","available":true}],
	 "task_queues":[` + strings.Join(queues, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	p, fellBack, err := PlanVerified(t.Context(), ws, plan.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	var got, want []plan.Finding
	for _, f := range p.Findings {
		if f.Kind == plan.KindRulesMismatch {
			got = append(got, f)
		}
	}
	for i := 64; i < 70; i++ {
		want = append(want, plan.Finding{Kind: plan.KindRulesMismatch, Where: fmt.Sprintf("segment QA%02d", i),
			Detail: "the service's matching rules make 0 workers eligible where the expression selects 1", Queues: []string{fmt.Sprintf("QA%02d", i)}})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rulesMismatch findings (-want +got):\n%s", diff)
	}
	if len(fellBack) != 6 {
		t.Errorf("%d segments fell back, want 6: %+v", len(fellBack), fellBack)
	}
}

// TestAskPagesPastAHundred: a tag set with 150 eligible workers is listed whole in three
// questions (10, then 100, then past the first 64 vetoed), and only then is the listing
// complete.
func TestAskPagesPastAHundred(t *testing.T) {
	var workers []string
	for i := range 150 {
		workers = append(workers, fmt.Sprintf(`{"sid": "W%03d", "attributes": "{\"skills\": [\"a\"]}", "activity_sid": "WAidle", "available": true}`, i))
	}
	ws := parseWorkspace(t, `{"workers": [`+strings.Join(workers, ",")+`],
 "task_queues": [{"sid": "Qa", "friendly_name": "A", "target_workers": "skills HAS 'a'"}],
 "workflows": [{"sid": "F1", "friendly_name": "F", "configuration": "{\"task_routing\": {\"filters\": [{\"filter_friendly_name\": \"all\", \"expression\": \"1==1\", \"targets\": [{\"queue\": \"Qa\"}]}]}}"}],
 "activities": [{"sid": "WAidle", "friendly_name": "Idle", "available": true}]}`)
	p := plan.Build(ws, plan.Options{Now: t0})
	s, ok := p.Segment("Qa")
	if !ok || len(s.Tags) == 0 {
		t.Fatalf("no segment with tags for Qa: %+v", p.Segments)
	}
	avail := map[string]bool{}
	for _, w := range p.Workers {
		avail[w.ID] = true
	}
	a, err := newAsker(t.Context(), t0, p, avail)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	rk := &ranking{tags: s.Tags}
	var got []string
	for range 3 {
		if err := a.ask(t.Context(), rk, 0); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d listed, complete %v", len(rk.eligible), rk.complete))
	}
	want := []string{"10 listed, complete false", "100 listed, complete false", "150 listed, complete true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after each question (-want +got):\n%s", diff)
	}
	seen := map[string]bool{}
	for _, c := range rk.eligible {
		if seen[c.WorkerID] {
			t.Errorf("%s listed twice", c.WorkerID)
		}
		seen[c.WorkerID] = true
	}
}

// TestVerifyReportsARefusedCheck: a segment whose tags the API refuses (a plan edited by
// hand: 33 tags, one more than a task may carry) is an error naming the segment, never read
// as an answer.
func TestVerifyReportsARefusedCheck(t *testing.T) {
	p := plan.Build(workspace(t), plan.Options{Now: t0})
	var tags []string
	for i := range 33 {
		tags = append(tags, fmt.Sprint("t", i))
	}
	p.Segments = append(p.Segments, plan.Segment{ID: "WQwide", Queue: "WQwide", Tags: tags, Workers: []string{"WK01"}})
	mm, err := Verify(t.Context(), p)
	if err == nil || !strings.Contains(err.Error(), "check segment WQwide") {
		t.Fatalf("Verify = %v, %v; want an error naming segment WQwide", mm, err)
	}
}
