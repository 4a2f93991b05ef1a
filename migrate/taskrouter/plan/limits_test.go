package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
)

// wsJSON is a workspace export of the given workers, queues and workflows (JSON arrays'
// contents); a worker's attributes and a workflow's configuration are JSON-encoded strings
// made by attrs and config.
func wsJSON(t *testing.T, workers, queues, workflows string) *taskrouter.Workspace {
	t.Helper()
	ws, err := taskrouter.ParseWorkspace([]byte(`{"workers":[` + workers + `],"task_queues":[` + queues + `],"workflows":[` + workflows + `],
	 "activities":[{"sid":"WAidle","friendly_name":"Idle","available":true},{"sid":"WAoff","friendly_name":"Offline","available":false}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// worker is one Workers entry with attributes attrs (a Go value, JSON-encoded into the
// attributes string).
func worker(sid string, attrs any, extra string) string {
	a, _ := json.Marshal(attrs)
	s, _ := json.Marshal(string(a))
	return `{"sid":"` + sid + `","attributes":` + string(s) + extra + `}`
}

func queue(sid, name, target string) string {
	b, _ := json.Marshal(map[string]any{"sid": sid, "friendly_name": name, "target_workers": target})
	return string(b)
}

// workflow is one Workflows entry with one filter (expression 1==1) over targets (a JSON
// array) and no default filter.
func workflow(sid, targets string) string {
	cfg, _ := json.Marshal(map[string]any{"task_routing": map[string]any{"filters": []any{
		map[string]any{"filter_friendly_name": "all", "expression": "1==1", "targets": json.RawMessage(targets)}}}})
	s, _ := json.Marshal(string(cfg))
	return `{"sid":"` + sid + `","configuration":` + string(s) + `}`
}

func kinds(p *Plan) []Kind {
	var out []Kind
	for _, f := range p.Findings {
		out = append(out, f.Kind)
	}
	return out
}

// checkUpserts fails for an upsert the API would refuse (api/openapi.json,
// UpsertWorkerInput.tags: at most 64 unique tags of 1 to 64 characters) or a task tag set
// of a rule it would refuse (at most 32 tags a tier, 8 tiers).
func checkUpserts(t *testing.T, p *Plan) {
	t.Helper()
	for _, w := range p.Workers {
		if len(w.Tags) > 64 {
			t.Errorf("worker %s: %d tags", w.ID, len(w.Tags))
		}
		seen := map[string]bool{}
		for _, tag := range w.Tags {
			if n := utf8.RuneCountInString(tag); n < 1 || n > 64 || !utf8.ValidString(tag) {
				t.Errorf("worker %s: tag %q of %d characters", w.ID, tag, n)
			}
			if seen[tag] {
				t.Errorf("worker %s: tag %q twice", w.ID, tag)
			}
			seen[tag] = true
		}
	}
	for _, r := range p.Rules {
		for _, tier := range r.Tiers {
			if len(tier.Tags) > 32 {
				t.Errorf("rule %s: a tier of %d tags", r.Filter, len(tier.Tags))
			}
		}
		if e := r.Escalation; e != nil && (len(e.Tiers) > 8 || (e.MaxEscalations != nil && *e.MaxEscalations > 8)) {
			t.Errorf("rule %s: %d escalation tiers, %d escalations", r.Filter, len(e.Tiers), *e.MaxEscalations)
		}
	}
}

// TestTagsWithinTheAPIsLimits: a skill term whose tag is longer than 64 characters, a queue of
// more than 32 terms (a task's limit), and a worker in more than 64 segments do not reach the
// upserts as tags the API refuses: the first two fall back to one queue tag, the last keeps
// 64 tags and is reported.
func TestTagsWithinTheAPIsLimits(t *testing.T) {
	long := strings.Repeat("x", 60) // skills:xxx... is 67 characters
	wide := strings.Repeat("é", 40) // 80 bytes: within 64 characters only if counted in characters
	var many []string               // 33 terms
	var skills []any
	for i := range 33 {
		many = append(many, fmt.Sprintf("skills HAS 's%02d'", i))
		skills = append(skills, fmt.Sprintf("s%02d", i))
	}
	skills = append(skills, long, wide)
	var queues []string
	queues = append(queues, queue("QL", "Long", "skills HAS '"+long+"'"), queue("QW", "Wide", "skills HAS '"+wide+"'"),
		queue("QM", "Many", strings.Join(many, " AND ")))
	for i := range 70 { // 70 queue-tag segments holding every worker
		queues = append(queues, queue(fmt.Sprintf("QA%02d", i), fmt.Sprintf("All %02d", i), fmt.Sprintf("level >= %d", -i)))
	}
	ws := wsJSON(t, worker("W1", map[string]any{"skills": skills, "level": 1}, "")+","+worker("W2", map[string]any{"skills": []any{long}, "level": 1}, ""),
		strings.Join(queues, ","), workflow("F1", `[{"queue":"QM"}]`))
	p := Build(ws, Options{Now: planTime})
	checkUpserts(t, p)
	for _, id := range []string{"QL", "QM"} {
		s, _ := p.Segment(id)
		if s.Strategy != StrategyQueueTag {
			t.Errorf("segment %s: %s %v, want one queue tag", id, s.Strategy, s.Tags)
		}
	}
	if !slices.Contains(kinds(p), KindWorkerTagLimit) {
		t.Errorf("no %s finding: %v", KindWorkerTagLimit, kinds(p))
	}
	for _, f := range p.Findings {
		if f.Kind == KindWorkerTagLimit && !cmp.Equal(f.WorkerIDs, []string{"W1", "W2"}) {
			t.Errorf("over the limit: %v, want W1 W2", f.WorkerIDs)
		}
	}
}

// TestQueueTagsNeverShared: two queues of one name, names alike in their first 58
// characters, and two queues narrowed by a target whose tags start alike each get a tag of
// their own; a cut tag keeps whole characters.
func TestQueueTagsNeverShared(t *testing.T) {
	longName := strings.Repeat("Queue ", 12)        // its slug passes 64 characters
	accented := "Équipe " + strings.Repeat("é", 40) // a multi-byte name: slug drops the accents
	team := "a" + strings.Repeat("ü", 29)           // team=a... is 64 bytes: a narrowed tag must cut it
	site := strings.Repeat("ü", 29)                 // site=... is 63 bytes: cut at 62, it would split a ü
	ws := wsJSON(t, worker("W1", map[string]any{"skills": []any{"a", "b"}, "level": 5, "team": team, "site": site}, ""),
		strings.Join([]string{
			queue("Q1", "Sales", "level > 1"), queue("Q2", "Sales", "level > 2"),
			queue("Q3", longName+"one", "level > 3"), queue("Q4", longName+"two", "level > 4"),
			queue("Q5", "A1", "skills HAS 'a'"), queue("Q6", "A2", "skills HAS 'a' AND skills HAS 'b'"),
			queue("Q7", accented, "team == '"+team+"'"), queue("Q8", "Site", "site == '"+site+"'"),
		}, ","),
		strings.Join([]string{
			workflow("F1", `[{"queue":"Q5","expression":"level > 1"}]`),
			workflow("F2", `[{"queue":"Q6","expression":"level > 1"}]`),
			workflow("F3", `[{"queue":"Q7","expression":"level > 1"}]`),
			workflow("F4", `[{"queue":"Q8","expression":"level > 1"}]`),
		}, ","))
	p := Build(ws, Options{Now: planTime})
	owner := map[string]string{}
	for _, s := range p.Segments {
		if s.Strategy != StrategyQueueTag && s.Narrowing == "" {
			continue
		}
		tag := s.Tags[0]
		if other, dup := owner[tag]; dup {
			t.Errorf("segments %s and %s share the tag %q", other, s.ID, tag)
		}
		owner[tag] = s.ID
		if len(tag) > 64 || !utf8.ValidString(tag) {
			t.Errorf("segment %s: tag %q (%d bytes)", s.ID, tag, len(tag))
		}
	}
	checkUpserts(t, p)
	got := map[string][]string{}
	for _, id := range []string{"Q1", "Q2"} {
		s, _ := p.Segment(id)
		got[id] = s.Tags
	}
	if diff := cmp.Diff(map[string][]string{"Q1": {"queue:sales"}, "Q2": {"queue:Q2"}}, got); diff != "" {
		t.Errorf("two queues named Sales (-want +got):\n%s", diff)
	}
	var narrowed []string
	for _, s := range p.Segments {
		if s.Narrowing != "" {
			narrowed = append(narrowed, s.Tags[0])
		}
	}
	want := []string{"skills:a~1", "skills:a~1-2", "team=a" + strings.Repeat("ü", 28) + "~1", "site=" + strings.Repeat("ü", 28) + "~1"}
	if diff := cmp.Diff(want, narrowed); diff != "" {
		t.Errorf("narrowed segments' tags (-want +got):\n%s", diff)
	}
}

// TestKnownWorkerExpressions: an expression reading the worker's identity (sid,
// friendly_name, contact_uri) names workers, in a queue and in a target.
func TestKnownWorkerExpressions(t *testing.T) {
	for _, key := range []string{"sid", "friendly_name", "contact_uri", "worker.contact_uri"} {
		t.Run(key, func(t *testing.T) {
			ws := wsJSON(t, worker("W1", map[string]any{"skills": []any{"a"}}, `,"friendly_name":"ann"`),
				queue("Q1", "Named", key+" == 'client:ann'")+","+queue("Q2", "A", "skills HAS 'a'"),
				workflow("F1", `[{"queue":"Q2","expression":"`+key+` == task.caller"},{"queue":"Q2"}]`))
			p := Build(ws, Options{Now: planTime})
			var where []string
			for _, f := range p.Findings {
				if f.Kind == KindKnownWorker {
					where = append(where, f.Where)
				}
			}
			want := []string{"task queue Q1 (Named)", `workflow F1 () filter "all" target 0`}
			if diff := cmp.Diff(want, where); diff != "" {
				t.Errorf("knownWorker findings (-want +got):\n%s", diff)
			}
			if s, _ := p.Segment("Q1"); s.Strategy != StrategyQueueTag {
				t.Errorf("a queue naming a worker became skill tags %v", s.Tags)
			}
			if !p.Rules[0].Tiers[0].Untranslated {
				t.Error("the known-worker target is not marked untranslated")
			}
		})
	}
}

// TestAvailabilityFromActivity: a worker's availability is its activity's, when the export
// lists the activity, even where the worker's own available member (a stale export) says
// otherwise; else its own.
func TestAvailabilityFromActivity(t *testing.T) {
	ws := wsJSON(t, strings.Join([]string{
		worker("W1", map[string]any{}, `,"activity_sid":"WAidle","available":false`),
		worker("W2", map[string]any{}, `,"activity_sid":"WAoff","available":true`),
		worker("W3", map[string]any{}, `,"activity_sid":"WAunlisted","available":true`),
		worker("W4", map[string]any{}, `,"available":false`),
	}, ","), queue("Q1", "All", "1==1"), "")
	p := Build(ws, Options{Now: planTime})
	got := map[string]bool{}
	for _, w := range p.Workers {
		got[w.ID] = *w.Available
	}
	if diff := cmp.Diff(map[string]bool{"W1": true, "W2": false, "W3": true, "W4": false}, got); diff != "" {
		t.Errorf("availability (-want +got):\n%s", diff)
	}
}

// TestLadderCapped: a filter of ten targets makes a ladder the API takes: at most 8 tiers
// and 8 escalations.
func TestLadderCapped(t *testing.T) {
	var targets, queues []string
	for i := range 10 {
		queues = append(queues, queue(fmt.Sprintf("Q%d", i), fmt.Sprintf("Q%d", i), fmt.Sprintf("level >= %d", i)))
		targets = append(targets, fmt.Sprintf(`{"queue":"Q%d","priority":%d,"timeout":30}`, i, i))
	}
	ws := wsJSON(t, worker("W1", map[string]any{"level": 9}, ""), strings.Join(queues, ","), workflow("F1", "["+strings.Join(targets, ",")+"]"))
	p := Build(ws, Options{Now: planTime})
	e := p.Rules[0].Escalation
	if diff := cmp.Diff([]any{8, 8, 1.0}, []any{len(e.Tiers), *e.MaxEscalations, e.PriorityBoost}); diff != "" {
		t.Errorf("tiers, escalations, boost (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"queue:q0"}, e.Tiers[0]); diff != "" {
		t.Errorf("first tier (-want +got):\n%s", diff)
	}
	checkUpserts(t, p)
}

// TestPrioritySteps: a ladder raises the priority by the targets' common step; steps that
// differ, a later lower priority, and a target keeping the task's own priority beside one
// setting it are each reported, and a string holding a number is a number.
func TestPrioritySteps(t *testing.T) {
	tests := []struct {
		name       string
		priorities []string // each target's priority member, "" for none
		boost      float64
		first      *float64 // the first tier's priority
		detail     string   // the unevenPriority finding's start, "" for none
		finding    Kind     // another finding expected
	}{
		{"even steps", []string{"1", "3", "5"}, 2, ptr(1), "", ""},
		{"equal priorities", []string{"4", "4"}, 0, ptr(4), "", ""},
		{"uneven steps", []string{"1", "2", "4"}, 1, ptr(1), "the targets' priorities do not change by a constant step", ""},
		{"a lower later priority", []string{"5", "1"}, 0, ptr(5), "a later target has a lower priority", ""},
		{"a later priority lower by one", []string{"5", "4"}, 0, ptr(5), "a later target has a lower priority", ""},
		{"a step of one", []string{"1", "2", "3"}, 1, ptr(1), "", ""},
		{"one sets, another keeps", []string{"5", ""}, 0, ptr(5), "one target sets a priority and another keeps the task's own", ""},
		{"none set", []string{"", ""}, 0, nil, "", ""},
		{"strings holding numbers", []string{`"5"`, `"7"`}, 2, ptr(5), "", ""},
		{"a string holding no number", []string{`"task.priority"`}, 0, nil, "", KindPriorityExpr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var targets []string
			for _, pr := range tt.priorities {
				if pr == "" {
					targets = append(targets, `{"queue":"Q1"}`)
				} else {
					targets = append(targets, `{"queue":"Q1","priority":`+pr+`}`)
				}
			}
			ws := wsJSON(t, worker("W1", map[string]any{}, ""), queue("Q1", "All", "1==1"), workflow("F1", "["+strings.Join(targets, ",")+"]"))
			p := Build(ws, Options{Now: planTime})
			r := p.Rules[0]
			var details []string
			var other []Kind
			for _, f := range p.Findings {
				if f.Kind == KindUnevenPriority {
					details = append(details, f.Detail)
				} else {
					other = append(other, f.Kind)
				}
			}
			if tt.detail == "" && len(details) > 0 || tt.detail != "" && (len(details) != 1 || !strings.HasPrefix(details[0], tt.detail)) {
				t.Errorf("unevenPriority findings %q, want %q", details, tt.detail)
			}
			var wantOther []Kind
			if tt.finding != "" {
				wantOther = []Kind{tt.finding}
			}
			if diff := cmp.Diff(wantOther, other); diff != "" {
				t.Errorf("other findings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.first, r.Tiers[0].Priority); diff != "" {
				t.Errorf("first tier's priority (-want +got):\n%s", diff)
			}
			if got := r.Escalation.PriorityBoost; got != tt.boost {
				t.Errorf("boost %g, want %g", got, tt.boost)
			}
			wantPrio := 7.0
			if tt.first != nil {
				wantPrio = *tt.first
			}
			if got := r.CreateParams(7).Priority; got != wantPrio {
				t.Errorf("create priority %g, want %g", got, wantPrio)
			}
		})
	}
}

func ptr(f float64) *float64 { return &f }

// TestRouteAfterRulesChange: Route reads a workflow's rules from the index Build made, and
// every rule once Rules has changed since (a rule added by hand, a plan decoded from JSON).
func TestRouteAfterRulesChange(t *testing.T) {
	p := testPlan(t, Options{})
	p.Rules = append(p.Rules, Rule{Workflow: "WWadded", Filter: "default_filter", Index: -1})
	if r, ok := p.Route("WWadded", map[string]any{}, planTime); !ok || r.Filter != "default_filter" {
		t.Errorf("a rule added after Build: %v %v", r, ok)
	}
	var decoded Plan
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	if r, ok := decoded.Route("WWsupport", map[string]any{"type": "other"}, planTime); !ok || r.Filter != "default_filter" {
		t.Errorf("a decoded plan: %v %v", r, ok)
	}
}

// TestWithSuffix: a tag with a suffix is at most 64 bytes, keeps the whole suffix and whole
// characters, and is the base unchanged when it fits.
func TestWithSuffix(t *testing.T) {
	tests := []struct{ base, suffix, want string }{
		{"queue:a", "", "queue:a"},
		{"queue:a", "~1", "queue:a~1"},
		{strings.Repeat("a", 62), "~1", strings.Repeat("a", 62) + "~1"},
		{strings.Repeat("a", 63), "~1", strings.Repeat("a", 62) + "~1"},
		{strings.Repeat("a", 64), "", strings.Repeat("a", 64)},
		{strings.Repeat("a", 65), "", strings.Repeat("a", 64)},
		{strings.Repeat("a", 64), "-10", strings.Repeat("a", 61) + "-10"},
		{"a" + strings.Repeat("ü", 32), "~1", "a" + strings.Repeat("ü", 30) + "~1"}, // cut at 62 would split a ü
		{strings.Repeat("ü", 32), "~1", strings.Repeat("ü", 31) + "~1"},
		{strings.Repeat("€", 22), "", strings.Repeat("€", 21)}, // 66 bytes: 64 would split a €
	}
	for _, tt := range tests {
		got := withSuffix(tt.base, tt.suffix)
		if got != tt.want || len(got) > 64 || !utf8.ValidString(got) {
			t.Errorf("withSuffix(%q, %q) = %q (%d bytes), want %q", tt.base, tt.suffix, got, len(got), tt.want)
		}
	}
}

// TestLadderSkipsTiersWithoutTags: a target that names a worker (no queue, so no tags) adds
// no escalation tier; the ladder steps from the queue before it to the queue after it.
func TestLadderSkipsTiersWithoutTags(t *testing.T) {
	queues := []string{queue("Q0", "Q0", "level >= 0"), queue("Q1", "Q1", "level >= 1")}
	targets := []string{`{"queue":"Q0","timeout":30}`, `{"known_worker_sid":"task.owner","timeout":30}`, `{"queue":"Q1","timeout":30}`}
	ws := wsJSON(t, worker("W1", map[string]any{"level": 9}, ""), strings.Join(queues, ","), workflow("F1", "["+strings.Join(targets, ",")+"]"))
	e := Build(ws, Options{Now: planTime}).Rules[0].Escalation
	if diff := cmp.Diff([][]string{{"queue:q0"}, {"queue:q1"}}, e.Tiers); diff != "" {
		t.Errorf("tiers (-want +got):\n%s", diff)
	}
}

// TestTargetExpressionAlwaysTrue: a target whose expression is always true (1==1) uses its
// queue's own segment and tags, as a target without an expression does: no narrowed
// segment, no finding, the expression kept on the tier as written.
func TestTargetExpressionAlwaysTrue(t *testing.T) {
	ws := wsJSON(t, worker("W1", map[string]any{"level": 5}, ""), queue("Q1", "All", "1==1"), workflow("F1", `[{"queue":"Q1","expression":"1==1"}]`))
	p := Build(ws, Options{Now: planTime})
	var segments []string
	for _, s := range p.Segments {
		segments = append(segments, s.ID)
	}
	if diff := cmp.Diff([]string{"Q1"}, segments); diff != "" {
		t.Errorf("segments (-want +got):\n%s", diff)
	}
	want := []Tier{{Segment: "Q1", TaskQueue: "Q1", Tags: []string{"queue:all"}, Expression: "1==1"}}
	if diff := cmp.Diff(want, p.Rules[0].Tiers); diff != "" {
		t.Errorf("tiers (-want +got):\n%s", diff)
	}
	if len(p.Findings) != 0 {
		t.Errorf("findings %+v, want none", p.Findings)
	}
}
