package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestQueueTagIsTheSlugOfTheName: a queue tag is "queue:" and the queue's name in lower case,
// each run of other characters one dash, none at either end; a name with no letter or digit
// gives the sid instead.
func TestQueueTagIsTheSlugOfTheName(t *testing.T) {
	tests := []struct{ sid, name, want string }{
		{"Q1", "Senior Billing", "queue:senior-billing"},
		{"Q2", "  Refunds -- Spanish (VIP)  ", "queue:refunds-spanish-vip"},
		{"Q3", "(Night) desk", "queue:night-desk"},
		{"Q4", "Tier 2/3", "queue:tier-2-3"},
		{"Q5", "!!!", "queue:Q5"},
	}
	var queues []string
	for _, tc := range tests {
		queues = append(queues, queue(tc.sid, tc.name, "level >= 1")) // not a conjunction of HAS terms: a queue tag
	}
	p := Build(wsJSON(t, worker("W1", map[string]any{"level": 1}, ""), strings.Join(queues, ","), ""), Options{Now: planTime})
	for _, tc := range tests {
		s, ok := p.Segment(tc.sid)
		if !ok {
			t.Fatalf("no segment %s", tc.sid)
		}
		if diff := cmp.Diff([]string{tc.want}, s.Tags); diff != "" {
			t.Errorf("queue %q: tags (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestEmptySegmentsAreReported: a queue, or a queue narrowed by a target expression, that
// selects no worker of the export is reported (emptyQueue) with its expression; one that
// selects a worker is not.
func TestEmptySegmentsAreReported(t *testing.T) {
	ws := wsJSON(t, worker("W1", map[string]any{"skills": []any{"a"}, "level": 1}, ""),
		queue("Q1", "A", "skills HAS 'a'")+","+queue("Q2", "Z", "skills HAS 'z'"),
		workflow("F1", `[{"queue":"Q1","expression":"level > 5"},{"queue":"Q1","expression":"level > 0"},{"queue":"Q1"}]`))
	p := Build(ws, Options{Now: planTime})
	var got []Finding
	for _, f := range p.Findings {
		if f.Kind == KindEmptyQueue {
			got = append(got, f)
		}
	}
	want := []Finding{
		{Kind: KindEmptyQueue, Where: "segment Q2", Expression: "skills HAS 'z'", Detail: "no worker of the export is selected", Queues: []string{"Q2"}},
		{Kind: KindEmptyQueue, Where: "segment Q1~1", Expression: "skills HAS 'a' / target: level > 5", Detail: "no worker of the export is selected", Queues: []string{"Q1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("emptyQueue findings (-want +got):\n%s", diff)
	}
}

// TestDefaultFilterIndexIsMinusOne: the default filter's rule has Index -1, in the plan and in
// the mapping file; a filter's rule has its position in the workflow.
func TestDefaultFilterIndexIsMinusOne(t *testing.T) {
	p := testPlan(t, Options{})
	b, err := p.MappingJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Rules []struct {
			Workflow, Filter string
			Index            int
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	got := map[string][]int{}
	for _, r := range m.Rules {
		got[r.Workflow] = append(got[r.Workflow], r.Index)
		if (r.Filter == "default_filter") != (r.Index == -1) {
			t.Errorf("%s filter %q: index %d", r.Workflow, r.Filter, r.Index)
		}
	}
	for wf, idx := range got {
		for i, n := range idx[:len(idx)-1] {
			if n != i {
				t.Errorf("%s: indexes %v, want 0, 1, ... then -1", wf, idx)
				break
			}
		}
		if idx[len(idx)-1] != -1 {
			t.Errorf("%s: indexes %v, want the default filter last, -1", wf, idx)
		}
	}
}

// TestActivityExpressionsAreReported: a queue expression that reads the worker's activity,
// by name or by sid, is reported (activity); one that does not is not.
func TestActivityExpressionsAreReported(t *testing.T) {
	ws := wsJSON(t, worker("W1", map[string]any{"skills": []any{"a"}}, ""),
		queue("Q1", "By name", "worker.activity_name == 'Idle'")+","+
			queue("Q2", "By sid", "worker.activity_sid == 'WAidle'")+","+
			queue("Q3", "Skills", "skills HAS 'a'"), "")
	p := Build(ws, Options{Now: planTime})
	var got []string
	for _, f := range p.Findings {
		if f.Kind == KindActivity {
			got = append(got, f.Queues...)
		}
	}
	if diff := cmp.Diff([]string{"Q1", "Q2"}, got); diff != "" {
		t.Errorf("queues reported as reading the activity (-want +got):\n%s", diff)
	}
}
