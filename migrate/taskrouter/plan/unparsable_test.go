package plan

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnparsableTargetExpressionIsReported: a target expression that does not parse is
// reported as unparsable (where, what, which queue), and the tier is marked untranslated:
// it uses its whole queue.
func TestUnparsableTargetExpressionIsReported(t *testing.T) {
	ws := wsJSON(t, worker("W1", map[string]any{"skills": []any{"a"}}, ""),
		queue("Q1", "A", "skills HAS 'a'"),
		workflow("F1", `[{"queue":"Q1","expression":"skills HAS ("},{"queue":"Q1"}]`))
	p := Build(ws, Options{Now: planTime})
	var got []Finding
	for _, f := range p.Findings {
		if f.Kind == KindUnparsable {
			if !strings.HasSuffix(f.Detail, "; the tier uses its whole queue") {
				t.Errorf("detail %q does not say the tier uses its whole queue", f.Detail)
			}
			f.Detail = ""
			got = append(got, f)
		}
	}
	want := []Finding{{Kind: KindUnparsable, Where: `workflow F1 () filter "all" target 0`, Expression: "skills HAS (", Queues: []string{"Q1"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unparsable findings (-want +got):\n%s", diff)
	}
	if len(p.Rules) == 0 || len(p.Rules[0].Tiers) < 2 {
		t.Fatalf("rules = %+v, want one rule of two tiers", p.Rules)
	}
	if !p.Rules[0].Tiers[0].Untranslated {
		t.Error("the tier whose expression does not parse is not marked untranslated")
	}
	if p.Rules[0].Tiers[1].Untranslated {
		t.Error("the plain second tier is marked untranslated")
	}
}

// TestUnparsableFilterMatchesNoTask: a filter whose expression does not parse matches no
// task, first in its workflow or not: tasks go on to the next filter, and it is reported.
func TestUnparsableFilterMatchesNoTask(t *testing.T) {
	cfg, _ := json.Marshal(map[string]any{"task_routing": map[string]any{
		"filters": []any{
			map[string]any{"filter_friendly_name": "broken", "expression": "type ==", "targets": []any{map[string]any{"queue": "Q1"}}},
			map[string]any{"filter_friendly_name": "calls", "expression": "type == 'call'", "targets": []any{map[string]any{"queue": "Q1"}}},
		},
		"default_filter": map[string]any{"queue": "Q1"},
	}})
	s, _ := json.Marshal(string(cfg))
	ws := wsJSON(t, worker("W1", map[string]any{"skills": []any{"a"}}, ""),
		queue("Q1", "A", "skills HAS 'a'"), `{"sid":"F1","configuration":`+string(s)+`}`)
	p := Build(ws, Options{Now: planTime})
	for _, tt := range []struct{ typ, want string }{{"call", "calls"}, {"other", "default_filter"}} {
		r, ok := p.Route("F1", map[string]any{"type": tt.typ}, planTime)
		if !ok || r.Filter != tt.want {
			t.Errorf("a task of type %q took %+v (ok %v), want filter %q", tt.typ, r, ok, tt.want)
		}
	}
	if diff := cmp.Diff([]Kind{KindUnparsable}, kinds(p)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestUnparsableQueueExpressionIsReported: a queue whose target_workers does not parse is
// reported as unparsable (where, what, which queue) and selected by a queue tag of its own;
// no worker carries the tag, since no worker can be said to match.
func TestUnparsableQueueExpressionIsReported(t *testing.T) {
	ws := wsJSON(t, worker("W1", map[string]any{"skills": []any{"a"}}, ""),
		queue("Q1", "Broken", "skills HAS (")+","+queue("Q2", "A", "skills HAS 'a'"), "")
	p := Build(ws, Options{Now: planTime})
	var got []Finding
	for _, f := range p.Findings {
		if f.Kind == KindUnparsable {
			if f.Detail == "" {
				t.Error("the finding has no detail")
			}
			f.Detail = ""
			got = append(got, f)
		}
	}
	want := []Finding{{Kind: KindUnparsable, Where: "task queue Q1 (Broken)", Expression: "skills HAS (", Queues: []string{"Q1"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unparsable findings (-want +got):\n%s", diff)
	}
	s, ok := p.Segment("Q1")
	if !ok {
		t.Fatal("no segment for the queue that does not parse")
	}
	if diff := cmp.Diff([]any{StrategyQueueTag, 1, 0}, []any{s.Strategy, len(s.Tags), len(s.Workers)}); diff != "" {
		t.Errorf("segment Q1: strategy, tags, workers (-want +got):\n%s", diff)
	}
	for _, w := range p.Workers {
		for _, tag := range s.Tags {
			if slices.Contains(w.Tags, tag) {
				t.Errorf("worker %s carries the tag %s of the queue that does not parse", w.ID, tag)
			}
		}
	}
}
