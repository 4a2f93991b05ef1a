package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRouteKeepsToItsWorkflow: Route answers a rule of the workflow asked for, whether it
// reads the index Build made, every rule after Rules changed, or a plan decoded from JSON. A
// sales task at 10:00 matches WWsales' "Sales hours" filter; routed in WWsupport it takes
// WWsupport's default filter.
func TestRouteKeepsToItsWorkflow(t *testing.T) {
	built := testPlan(t, Options{})
	grown := testPlan(t, Options{})
	grown.Rules = append(grown.Rules, Rule{Workflow: "WWadded", Filter: "default_filter", Index: -1})
	var decoded Plan
	b, err := json.Marshal(built)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	sales := map[string]any{"type": "sales"}
	for _, tc := range []struct {
		name string
		p    *Plan
		wf   string
		want [2]string // workflow, filter
	}{
		{"built, support", built, "WWsupport", [2]string{"WWsupport", "default_filter"}},
		{"built, sales", built, "WWsales", [2]string{"WWsales", "Sales hours"}},
		{"rules changed, support", grown, "WWsupport", [2]string{"WWsupport", "default_filter"}},
		{"rules changed, sales", grown, "WWsales", [2]string{"WWsales", "Sales hours"}},
		// A decoded plan has no parsed filters: only default filters match.
		{"decoded, support", &decoded, "WWsupport", [2]string{"WWsupport", "default_filter"}},
		{"decoded, sales", &decoded, "WWsales", [2]string{"WWsales", "default_filter"}},
	} {
		r, ok := tc.p.Route(tc.wf, sales, planTime)
		var got [2]string
		if ok {
			got = [2]string{r.Workflow, r.Filter}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: rule (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestMatchesOfTheDefaultFilter: the default filter's rule matches every task, in a built
// plan and in one decoded from JSON; a filter's rule matches the tasks its expression does.
func TestMatchesOfTheDefaultFilter(t *testing.T) {
	built := testPlan(t, Options{})
	var decoded Plan
	b, err := json.Marshal(built)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Plan{built, &decoded} {
		for _, r := range p.Rules {
			if r.Index >= 0 {
				continue
			}
			for _, attrs := range []any{map[string]any{}, map[string]any{"type": "billing"}, nil} {
				if !r.Matches(attrs, planTime) {
					t.Errorf("%s's default filter does not match %v", r.Workflow, attrs)
				}
			}
		}
	}
	r, ok := built.Route("WWsupport", map[string]any{"type": "billing"}, planTime)
	if !ok || r.Index < 0 {
		t.Fatalf("a billing task took %+v", r)
	}
	if r.Matches(map[string]any{"type": "tech"}, planTime) {
		t.Errorf("filter %q matches a tech task", r.Filter)
	}
}

// TestWorkerTagLimitAtExactly64: a worker in exactly 64 segments keeps its 64 tags and is not
// reported; in 65 it keeps 64 and is reported (the API's limit on a worker's tags).
func TestWorkerTagLimitAtExactly64(t *testing.T) {
	for _, n := range []int{63, 64, 65} {
		var queues []string
		for i := range n { // each a queue-tag segment holding the worker
			queues = append(queues, queue(fmt.Sprintf("QA%02d", i), fmt.Sprintf("All %02d", i), fmt.Sprintf("level >= %d", -i)))
		}
		p := Build(wsJSON(t, worker("W1", map[string]any{"level": 1}, ""), strings.Join(queues, ","), ""), Options{Now: planTime})
		var over []string
		for _, f := range p.Findings {
			if f.Kind == KindWorkerTagLimit {
				over = append(over, f.WorkerIDs...)
			}
		}
		wantOver := []string(nil)
		if n > 64 {
			wantOver = []string{"W1"}
		}
		got := []any{len(p.Workers[0].Tags), over}
		if diff := cmp.Diff([]any{min(n, 64), wantOver}, got); diff != "" {
			t.Errorf("in %d segments: tags, reported (-want +got):\n%s", n, diff)
		}
	}
}

// TestRouteTakesTheDefaultFilterLast: the default filter applies only when no filter of the
// workflow matches, wherever it stands in Rules (a plan put together or edited by hand may
// list it first).
func TestRouteTakesTheDefaultFilterLast(t *testing.T) {
	p := testPlan(t, Options{})
	var def, others []Rule
	for _, r := range p.Rules {
		if r.Workflow == "WWsales" && r.Index < 0 {
			def = append(def, r)
		} else {
			others = append(others, r)
		}
	}
	if len(def) != 1 {
		t.Fatalf("WWsales has %d default filters, want 1", len(def))
	}
	// The default first, and one rule more, so that Route reads Rules rather than the index
	// Build made for the old order.
	p.Rules = append(append(def, others...), Rule{Workflow: "WWadded", Filter: "default_filter", Index: -1})
	for _, tc := range []struct {
		attrs map[string]any
		want  string
	}{
		{map[string]any{"type": "sales"}, "Sales hours"},
		{map[string]any{"type": "billing"}, "default_filter"},
	} {
		r, ok := p.Route("WWsales", tc.attrs, planTime)
		got := ""
		if ok {
			got = r.Filter
		}
		if got != tc.want {
			t.Errorf("Route(WWsales, %v) = %q, want %q", tc.attrs, got, tc.want)
		}
	}
}
