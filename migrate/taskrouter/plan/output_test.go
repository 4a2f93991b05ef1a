package plan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
)

// reportWorkspace is one worker, one queue Q1 named name (skills HAS 'a') and one workflow
// whose task_routing configuration is routing (a JSON object).
func reportWorkspace(t *testing.T, name, routing string) *taskrouter.Workspace {
	t.Helper()
	cfg, err := json.Marshal(`{"task_routing":` + routing + `}`)
	if err != nil {
		t.Fatal(err)
	}
	q, err := json.Marshal(map[string]string{"sid": "Q1", "friendly_name": name, "target_workers": "skills HAS 'a'"})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := taskrouter.ParseWorkspace([]byte(`{"workers":[{"sid":"W1","attributes":"{\"skills\":[\"a\"]}"}],
	 "task_queues":[` + string(q) + `], "workflows":[{"sid":"F1","friendly_name":"Main","configuration":` + string(cfg) + `}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func report(t *testing.T, p *Plan) string {
	t.Helper()
	var out bytes.Buffer
	if err := p.WriteReport(&out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestReportNamesTheDefaultFilter: the default filter's rule prints as "(default)", a
// filter's rule as its expression.
func TestReportNamesTheDefaultFilter(t *testing.T) {
	ws := reportWorkspace(t, "A", `{"filters":[{"filter_friendly_name":"all","expression":"1==1","targets":[{"queue":"Q1"}]}],
		"default_filter":{"queue":"Q1"}}`)
	out := report(t, Build(ws, Options{Now: planTime}))
	for _, want := range []string{`Main "default_filter": (default)` + "\n", `Main "all": 1==1` + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestReportClipsLongQueueNames: a queue name longer than its 28-column field is cut to 27
// characters and an ellipsis, so the columns after it stay aligned; a name that fits is
// printed whole.
func TestReportClipsLongQueueNames(t *testing.T) {
	const routing = `{"filters":[{"filter_friendly_name":"all","expression":"1==1","targets":[{"queue":"Q1"}]}]}`
	for _, tc := range []struct{ name, want string }{
		{strings.Repeat("n", 28), strings.Repeat("n", 28) + " "},
		{strings.Repeat("n", 40), strings.Repeat("n", 27) + "… "},
	} {
		out := report(t, Build(reportWorkspace(t, tc.name, routing), Options{Now: planTime}))
		var row string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "Q1 ") {
				row = l
			}
		}
		if !strings.Contains(row, " "+tc.want) {
			t.Errorf("%d-character name: row %q, want the name as %q", len(tc.name), row, tc.want)
		}
	}
}

// TestFilterWithoutTargets: a filter with no targets plans a rule with no tiers and no
// escalation policy, instead of failing.
func TestFilterWithoutTargets(t *testing.T) {
	ws := reportWorkspace(t, "A", `{"filters":[{"filter_friendly_name":"none","expression":"1==1","targets":[]}]}`)
	p := Build(ws, Options{Now: planTime})
	if len(p.Rules) != 1 {
		t.Fatalf("%d rules, want 1", len(p.Rules))
	}
	r := p.Rules[0]
	if diff := cmp.Diff([]any{0, true}, []any{len(r.Tiers), r.Escalation == nil}); diff != "" {
		t.Errorf("tiers, no escalation (-want +got):\n%s", diff)
	}
}

// TestReportSaysWhenNothingIsUntranslated: the report's "not translated" part says "nothing"
// when the plan has no findings, and only then.
func TestReportSaysWhenNothingIsUntranslated(t *testing.T) {
	for _, tc := range []struct {
		name, expression string
		nothing          bool
	}{
		{"every construct translated", "1==1", true},
		{"an expression that does not parse", "((", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Build(reportWorkspace(t, "A", `{"filters":[{"filter_friendly_name":"all","expression":"`+tc.expression+`","targets":[{"queue":"Q1"}]}]}`), Options{Now: planTime})
			if got := len(p.Findings) == 0; got != tc.nothing {
				t.Fatalf("findings %v; the case wants none: %v", p.Findings, tc.nothing)
			}
			out := report(t, p)
			if got := strings.Contains(out, "not translated:\n  nothing\n"); got != tc.nothing {
				t.Errorf("report says nothing untranslated: %v, want %v:\n%s", got, tc.nothing, out)
			}
		})
	}
}

// TestWriteReportLayout: the whole report of a plan built by hand, every figure worked out
// from it: the counts (queues are the segments that are not narrowed); one row per segment
// with its name (a narrowed one's with its target expression, clipped to 28 characters),
// strategy, member count and tags; each rule with its condition ("(default)" for the default
// filter), its tiers (the task's own priority where a tier sets none; a partly untranslated
// tier marked) and its escalation or offer timeout; the findings by kind in kind order, with
// the distinct queues and workers each kind affects (members of its queues and the workers
// it names), and each finding's place, expression (when it has one) and detail.
func TestWriteReportLayout(t *testing.T) {
	p := &Plan{
		Workers: []taskrouting.UpsertWorkerParams{{ID: "W1"}, {ID: "W2"}, {ID: "W3"}},
		Segments: []Segment{
			{ID: "WQ1", Queue: "WQ1", QueueName: "Billing", Strategy: StrategySkills, Tags: []string{"skill:billing", "lang:en"}, Workers: []string{"W1", "W2"}},
			{ID: "WQ1~1", Queue: "WQ1", QueueName: "Billing", Narrowing: "level > 2", Strategy: StrategyQueueTag, Tags: []string{"queue:billing~1"}, Workers: []string{"W2"}},
			{ID: "WQ2", Queue: "WQ2", QueueName: "A queue whose name is far too long", Strategy: StrategyQueueTag, Tags: []string{"queue:long"}},
		},
		Rules: []Rule{
			{Workflow: "WW1", WorkflowName: "Support", Filter: "billing", Index: 0, Expression: "type == 'billing'",
				Tiers: []Tier{
					{Segment: "WQ1", TaskQueue: "WQ1", Tags: []string{"skill:billing", "lang:en"}, Priority: ptr(10)},
					{Segment: "WQ1~1", TaskQueue: "WQ1", Tags: []string{"queue:billing~1"}, Untranslated: true},
				},
				Escalation: &taskrouting.Escalation{RespondWithin: time.Minute, PriorityBoost: 5}},
			{Workflow: "WW1", WorkflowName: "Support", Filter: "default_filter", Index: -1,
				Tiers:      []Tier{{Segment: "WQ2", TaskQueue: "WQ2", Tags: []string{"queue:long"}}},
				Escalation: &taskrouting.Escalation{RespondWithin: 2 * time.Minute}},
		},
		Findings: []Finding{
			{Kind: KindUnparsable, Where: "task queue WQ3 (Broken)", Expression: "((", Detail: "does not parse", Queues: []string{"WQ1"}},
			{Kind: KindTaskOrder, Where: "task queue WQ2 (Long)", Detail: "LIFO", Queues: []string{"WQ2"}},
			{Kind: KindKnownWorker, Where: "workflow WW1 target 0", Expression: "worker.sid == task.owner", Detail: "names a worker", Queues: []string{"WQ1"}, WorkerIDs: []string{"W3"}},
			{Kind: KindKnownWorker, Where: "workflow WW1 target 1", Detail: "known_worker_sid", Queues: []string{"WQ1", "WQ2"}, WorkerIDs: []string{"W1"}},
		},
	}
	want := strings.Join([]string{
		"3 workers, 2 queues (3 segments), 2 workflow rules",
		"",
		"queues:",
		"  WQ1                    Billing                      skills     2 workers  tags skill:billing lang:en",
		"  WQ1~1                  Billing narrowed by level >… queueTag   1 workers  tags queue:billing~1",
		"  WQ2                    A queue whose name is far t… queueTag   0 workers  tags queue:long",
		"",
		"rules:",
		`  Support "billing": type == 'billing'`,
		"    tier 0: tags skill:billing lang:en, priority 10",
		"    tier 1: tags queue:billing~1, priority task's own  (partly untranslated, see findings)",
		"    escalation: an offer unanswered for 1m0s steps to the next tier (priority +5)",
		`  Support "default_filter": (default)`,
		"    tier 0: tags queue:long, priority task's own",
		"    offer timeout: 2m0s (task_reservation_timeout)",
		"",
		"not translated:",
		"  knownWorker: 2 findings, 2 queues, 3 workers affected",
		"    workflow WW1 target 0: worker.sid == task.owner",
		"      names a worker",
		"    workflow WW1 target 1",
		"      known_worker_sid",
		"  taskOrder: 1 findings, 1 queues, 0 workers affected",
		"    task queue WQ2 (Long)",
		"      LIFO",
		"  unparsable: 1 findings, 1 queues, 2 workers affected",
		"    task queue WQ3 (Broken): ((",
		"      does not parse",
		"",
	}, "\n")
	if diff := cmp.Diff(strings.Split(want, "\n"), strings.Split(report(t, p), "\n")); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}
