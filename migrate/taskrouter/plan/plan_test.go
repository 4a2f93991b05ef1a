package plan

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
)

var planTime = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

func testPlan(t *testing.T, opts Options) *Plan {
	t.Helper()
	ws, err := taskrouter.ReadWorkspace("../testdata/workspace.json")
	if err != nil {
		t.Fatal(err)
	}
	opts.Now = planTime
	return Build(ws, opts)
}

type segView struct {
	ID, Strategy string
	Tags         []string
	Workers      []string
}

func TestBuildSegments(t *testing.T) {
	p := testPlan(t, Options{})
	var got []segView
	for _, s := range p.Segments {
		got = append(got, segView{s.ID, string(s.Strategy), s.Tags, s.Workers})
	}
	want := []segView{
		{"WQbilling_en", "skills", []string{"skills:billing", "languages:en"}, []string{"WK01", "WK02"}},
		{"WQbilling_es", "skills", []string{"skills:billing", "languages:es"}, []string{"WK01", "WK04"}},
		{"WQtech", "queueTag", []string{"queue:tech"}, []string{"WK03", "WK04", "WK06"}},
		{"WQsales", "skills", []string{"skills:sales"}, []string{"WK05", "WK06"}},
		{"WQeveryone", "queueTag", []string{"queue:everyone"}, []string{"WK01", "WK02", "WK03", "WK04", "WK05", "WK06"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("segments (-want +got):\n%s", diff)
	}
}

func TestBuildWorkersCarrySkills(t *testing.T) {
	p := testPlan(t, Options{})
	got := map[string][]string{}
	for _, w := range p.Workers {
		got[w.ID] = w.Tags
		if *w.MaxBacklogSize != 1 {
			t.Errorf("%s backlog %d", w.ID, *w.MaxBacklogSize)
		}
	}
	want := map[string][]string{
		// erin speaks en but has no billing: she carries languages:en all the same.
		"WK01": {"languages:en", "languages:es", "queue:everyone", "skills:billing"},
		"WK02": {"languages:en", "queue:everyone", "skills:billing"},
		"WK03": {"languages:en", "queue:everyone", "queue:tech"},
		"WK04": {"languages:es", "queue:everyone", "queue:tech", "skills:billing"},
		"WK05": {"languages:en", "queue:everyone", "skills:sales"},
		"WK06": {"queue:everyone", "queue:tech", "skills:sales"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("worker tags (-want +got):\n%s", diff)
	}
	avail := map[string]bool{}
	for _, w := range p.Workers {
		avail[w.ID] = *w.Available
	}
	if diff := cmp.Diff(map[string]bool{"WK01": true, "WK02": true, "WK03": false, "WK04": true, "WK05": false, "WK06": true}, avail); diff != "" {
		t.Errorf("availability from activities (-want +got):\n%s", diff)
	}
}

func TestQueueTagOnlyFallsBack(t *testing.T) {
	p := testPlan(t, Options{QueueTagOnly: map[string]bool{"WQbilling_en": true}})
	s, _ := p.Segment("WQbilling_en")
	if diff := cmp.Diff([]string{"queue:billing-en"}, s.Tags); diff != "" {
		t.Error(diff)
	}
}

func TestRules(t *testing.T) {
	p := testPlan(t, Options{})
	attrs := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		wf, attrs  string
		at         time.Time
		wantFilter string
		wantTags   []string
		wantPrio   float64
	}{
		{"WWsupport", `{"type":"billing","language":"es"}`, planTime, "Billing Spanish", []string{"skills:billing", "languages:es"}, 10},
		{"WWsupport", `{"type":"billing","language":"en"}`, planTime, "Billing", []string{"skills:billing", "languages:en"}, 5},
		{"WWsupport", `{"type":"tech","vip":true}`, planTime, "VIP tech", []string{"queue:tech"}, 50},
		{"WWsupport", `{"type":"other"}`, planTime, "default_filter", []string{"queue:everyone"}, 7},
		{"WWsales", `{"type":"sales"}`, planTime, "Sales hours", []string{"skills:sales"}, 3},
		{"WWsales", `{"type":"sales"}`, planTime.Add(10 * time.Hour), "default_filter", []string{"queue:everyone"}, 7},
	}
	for _, tt := range tests {
		r, ok := p.Route(tt.wf, attrs(tt.attrs), tt.at)
		if !ok {
			t.Fatalf("no rule for %s %s", tt.wf, tt.attrs)
		}
		cp := r.CreateParams(7)
		got := []any{r.Filter, cp.Tags, cp.Priority}
		if diff := cmp.Diff([]any{tt.wantFilter, tt.wantTags, tt.wantPrio}, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.wf, tt.attrs, diff)
		}
	}
	if _, ok := p.Route("WWnone", attrs(`{}`), planTime); ok {
		t.Error("a workflow that is not in the export routed a task")
	}
	r, _ := p.Route("WWsupport", attrs(`{"type":"billing","language":"es"}`), planTime)
	want := &taskrouting.Escalation{RespondWithin: 60 * time.Second, MaxEscalations: taskrouting.Ptr(1), OnExhausted: "queue",
		Tiers: [][]string{{"skills:billing", "languages:es"}, {"skills:billing", "languages:en"}}}
	if diff := cmp.Diff(want, r.Escalation); diff != "" {
		t.Errorf("ladder (-want +got):\n%s", diff)
	}
}

func TestFindings(t *testing.T) {
	p := testPlan(t, Options{})
	type fv struct {
		Kind  Kind
		Where string
	}
	var got []fv
	for _, f := range p.Findings {
		got = append(got, fv{f.Kind, f.Where})
	}
	want := []fv{
		{KindTaskOrder, "task queue WQsales (Sales)"},
		{KindMaxReserved, "task queue WQsales (Sales)"},
		{KindUnevenPriority, `workflow WWsupport (Support) filter "Billing Spanish"`},
		{KindUnevenPriority, `workflow WWsupport (Support) filter "Billing"`},
		{KindTaskVsWorker, `workflow WWsupport (Support) filter "VIP tech" target 0`},
		{KindTimeOfDay, `workflow WWsales (Sales) filter "Sales hours"`},
		{KindKnownWorker, `workflow WWsales (Sales) filter "Callback to owner" target 0`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	wantSum := []KindSummary{
		{Kind: KindKnownWorker, Findings: 1, Queues: 1, Workers: 2},
		{Kind: KindMaxReserved, Findings: 1, Queues: 1, Workers: 2},
		{Kind: KindTaskOrder, Findings: 1, Queues: 1, Workers: 2},
		{Kind: KindTaskVsWorker, Findings: 1, Queues: 1, Workers: 3},
		{Kind: KindTimeOfDay, Findings: 1, Queues: 1, Workers: 2},
		{Kind: KindUnevenPriority, Findings: 2, Queues: 3, Workers: 6},
	}
	if diff := cmp.Diff(wantSum, p.Summary()); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

func TestNarrowedTarget(t *testing.T) {
	ws, err := taskrouter.ParseWorkspace([]byte(`{
	 "workers":[{"sid":"W1","attributes":"{\"skills\":[\"a\"],\"level\":5}"},{"sid":"W2","attributes":"{\"skills\":[\"a\"],\"level\":1}"}],
	 "task_queues":[{"sid":"Q1","friendly_name":"A","target_workers":"skills HAS 'a'"}],
	 "workflows":[{"sid":"F1","configuration":"{\"task_routing\":{\"filters\":[{\"expression\":\"1==1\",\"targets\":[{\"queue\":\"Q1\",\"expression\":\"level > 3\",\"timeout\":20},{\"queue\":\"Q1\"}]}]}}"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := Build(ws, Options{Now: planTime})
	s, ok := p.Segment("Q1~1")
	if !ok {
		t.Fatalf("no narrowed segment: %+v", p.Segments)
	}
	if diff := cmp.Diff(segView{"Q1~1", "queueTag", []string{"skills:a~1"}, []string{"W1"}}, segView{s.ID, string(s.Strategy), s.Tags, s.Workers}); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"skills:a", "skills:a~1"}, p.Workers[0].Tags); diff != "" {
		t.Error(diff)
	}
	if got := p.Rules[0].Escalation.RespondWithin; got != 20*time.Second {
		t.Errorf("ladder waits %s", got)
	}
}

func TestOutputs(t *testing.T) {
	p := testPlan(t, Options{})
	b, err := p.WorkersJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back []taskrouting.UpsertWorkerParams
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	again, err := json.MarshalIndent(back, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(b), string(again)); diff != "" {
		t.Errorf("upsert file round trip (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"languages:en", "queue:everyone", "skills:billing"}, back[1].Tags); diff != "" {
		t.Errorf("upsert file, bob (-want +got):\n%s", diff)
	}
	m, err := p.MappingJSON()
	if err != nil {
		t.Fatal(err)
	}
	var mapping Mapping
	if err := json.Unmarshal(m, &mapping); err != nil {
		t.Fatal(err)
	}
	if len(mapping.Segments) != 5 || len(mapping.Rules) != 8 || len(mapping.Summary) != 6 {
		t.Errorf("mapping has %d segments, %d rules, %d kinds", len(mapping.Segments), len(mapping.Rules), len(mapping.Summary))
	}
	var out bytes.Buffer
	if err := p.WriteReport(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"6 workers, 5 queues", "knownWorker: 1 findings, 1 queues, 2 workers affected", "tier 1: tags skills:billing languages:en, priority 5", "offer timeout: 2m0s (task_reservation_timeout)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestOfferTimeoutOfEveryRule: every rule keeps TaskRouter's reservation timeout as the
// offer timeout; a single target's rule used to lose it to the platform's default 60 s.
func TestOfferTimeoutOfEveryRule(t *testing.T) {
	tests := []struct {
		name     string
		timeout  string // the workflow's task_reservation_timeout member, "" for none
		targets  string
		want     time.Duration
		wantTier int // escalation tiers
	}{
		{"single target", `,"task_reservation_timeout":45`, `[{"queue":"Q1"}]`, 45 * time.Second, 0},
		{"single target without a timeout: TaskRouter's default", ``, `[{"queue":"Q1"}]`, 120 * time.Second, 0},
		{"single target with its own timeout", `,"task_reservation_timeout":30`, `[{"queue":"Q1","timeout":600}]`, 30 * time.Second, 0},
		{"above the platform's bound", `,"task_reservation_timeout":100000`, `[{"queue":"Q1"}]`, 24 * time.Hour, 0},
		{"two targets: the first target's timeout", `,"task_reservation_timeout":45`, `[{"queue":"Q1","timeout":20},{"queue":"Q1"}]`, 20 * time.Second, 2},
		{"two targets without their own", `,"task_reservation_timeout":45`, `[{"queue":"Q1"},{"queue":"Q1"}]`, 45 * time.Second, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := oneRuleWorkspace(tt.timeout, tt.targets)
			if err != nil {
				t.Fatal(err)
			}
			p := Build(ws, Options{Now: planTime})
			e := p.Rules[0].Escalation
			if e == nil {
				t.Fatal("no escalation: the offer timeout is the platform's default 60 s")
			}
			if diff := cmp.Diff([]any{tt.want, tt.wantTier}, []any{e.RespondWithin, len(e.Tiers)}); diff != "" {
				t.Errorf("offer timeout, tiers (-want +got):\n%s", diff)
			}
			if got, ok := p.Rules[0].CreateParams(0).Escalation.Get(); !ok || got.RespondWithin != tt.want {
				t.Errorf("create call's escalation: %+v", got)
			}
		})
	}
}

// oneRuleWorkspace is a workspace of one worker, one queue Q1 (skills HAS 'a') and one
// workflow F1 with one filter over targets; timeout is the workflow's
// task_reservation_timeout member (",\"task_reservation_timeout\":45"), "" for none.
func oneRuleWorkspace(timeout, targets string) (*taskrouter.Workspace, error) {
	cfg, err := json.Marshal(map[string]any{"task_routing": map[string]any{"filters": []any{
		map[string]any{"filter_friendly_name": "all", "expression": "1==1", "targets": json.RawMessage(targets)}}}})
	if err != nil {
		return nil, err
	}
	cfgJSON, err := json.Marshal(string(cfg))
	if err != nil {
		return nil, err
	}
	return taskrouter.ParseWorkspace([]byte(`{"workers":[{"sid":"W1","attributes":"{\"skills\":[\"a\"]}"}],
	 "task_queues":[{"sid":"Q1","friendly_name":"A","target_workers":"skills HAS 'a'"}],
	 "workflows":[{"sid":"F1","configuration":` + string(cfgJSON) + timeout + `}]}`))
}

// TestOfferTimeoutClampedBeforeOverflow: a timeout is clamped to escalation.respondWithinMs's
// bounds (1 s to 24 h) before it becomes a Duration, so a huge one is the 24 h cap, not a
// product that wrapped around (1e300 s and 9223372037 s used to become 1 s).
func TestOfferTimeoutClampedBeforeOverflow(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		name    string
		timeout string // task_reservation_timeout member
		first   string // the first target's timeout member, "" for none
		want    time.Duration
	}{
		{"no timeout anywhere: TaskRouter's default", ``, "", 120 * time.Second},
		{"reservation timeout 0: TaskRouter's default", `,"task_reservation_timeout":0`, "", 120 * time.Second},
		{"reservation timeout negative: the default", `,"task_reservation_timeout":-5`, "", 120 * time.Second},
		{"reservation timeout 1 s", `,"task_reservation_timeout":1`, "", time.Second},
		{"reservation timeout just under the cap", `,"task_reservation_timeout":86399`, "", 86399 * time.Second},
		{"reservation timeout at the cap", `,"task_reservation_timeout":86400`, "", day},
		{"reservation timeout just over the cap", `,"task_reservation_timeout":86401`, "", day},
		{"reservation timeout that overflows a Duration", `,"task_reservation_timeout":9223372037`, "", day},
		{"reservation timeout of max int64 seconds", `,"task_reservation_timeout":9223372036854775807`, "", day},
		{"target timeout 0: the reservation timeout", `,"task_reservation_timeout":45`, `,"timeout":0`, 45 * time.Second},
		{"target timeout negative: the reservation timeout", `,"task_reservation_timeout":45`, `,"timeout":-30`, 45 * time.Second},
		{"target timeout fractional, under the floor", ``, `,"timeout":0.25`, time.Second},
		{"target timeout fractional", ``, `,"timeout":1.5`, 1500 * time.Millisecond},
		{"target timeout just under the cap", ``, `,"timeout":86399.5`, 86399500 * time.Millisecond},
		{"target timeout at the cap", ``, `,"timeout":86400`, day},
		{"target timeout just over the cap", ``, `,"timeout":86400.001`, day},
		{"target timeout that overflows a Duration", ``, `,"timeout":9223372037`, day},
		{"target timeout of max int64 seconds", ``, `,"timeout":9223372036854775807`, day},
		{"target timeout 1e300", ``, `,"timeout":1e300`, day},
		{"target timeout the largest float64", ``, `,"timeout":1.7976931348623157e308`, day},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := oneRuleWorkspace(tt.timeout, `[{"queue":"Q1"`+tt.first+`},{"queue":"Q1"}]`)
			if err != nil {
				t.Fatal(err)
			}
			got := Build(ws, Options{Now: planTime}).Rules[0].Escalation.RespondWithin
			if got != tt.want {
				t.Errorf("ladder's respond-within = %s, want %s", got, tt.want)
			}
			if tt.first != "" {
				return
			}
			// The same reservation timeout as a single target's offer timeout.
			ws, err = oneRuleWorkspace(tt.timeout, `[{"queue":"Q1"}]`)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if tt.timeout == "" {
				want = 120 * time.Second
			}
			if got := Build(ws, Options{Now: planTime}).Rules[0].Escalation.RespondWithin; got != want {
				t.Errorf("single target's offer timeout = %s, want %s", got, want)
			}
		})
	}
	// JSON carries neither NaN nor infinities, and a number past float64's range, or a
	// fractional or too large task_reservation_timeout, is an error naming the place.
	for _, bad := range []struct{ timeout, targets string }{
		{``, `[{"queue":"Q1","timeout":1e400}]`},
		{`,"task_reservation_timeout":30.5`, `[{"queue":"Q1"}]`},
		{`,"task_reservation_timeout":9223372036854775808`, `[{"queue":"Q1"}]`},
	} {
		if _, err := oneRuleWorkspace(bad.timeout, bad.targets); err == nil {
			t.Errorf("%s %s: no error", bad.timeout, bad.targets)
		}
	}
	// A Workspace built in Go can hold them: NaN sets no timeout, +Inf is the cap.
	for _, tt := range []struct {
		seconds float64
		want    time.Duration
		ok      bool
	}{
		{math.NaN(), 0, false}, {math.Inf(1), day, true}, {math.Inf(-1), 0, false},
		{math.Copysign(0, -1), 0, false}, {math.SmallestNonzeroFloat64, time.Second, true}, {math.MaxFloat64, day, true},
	} {
		d, ok := offerTimeout(tt.seconds)
		if d != tt.want || ok != tt.ok {
			t.Errorf("offerTimeout(%g) = %s, %v; want %s, %v", tt.seconds, d, ok, tt.want, tt.ok)
		}
	}
}
