package plan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
