package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/shadow"
)

const testWorkspace = "../../migrate/taskrouter/testdata/workspace.json"

func fixedNow() time.Time { return time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC) }

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(t.Context(), args, &out, &errOut, fixedNow)
	return out.String(), errOut.String(), err
}

func TestPlanWritesFiles(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runCmd(t, "plan", "-workspace", testWorkspace, "-out", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"6 workers, 5 queues", "knownWorker: 1 findings", "2 of 5 segments needed one queue tag", "wrote "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "workers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var workers []taskrouting.UpsertWorkerParams
	if err := json.Unmarshal(b, &workers); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range workers {
		ids = append(ids, w.ID)
	}
	if diff := cmp.Diff([]string{"WK01", "WK02", "WK03", "WK04", "WK05", "WK06"}, ids); diff != "" {
		t.Errorf("worker ids (-want +got):\n%s", diff)
	}
	b, err = os.ReadFile(filepath.Join(dir, "mapping.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m plan.Mapping
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Segments) != 5 || len(m.Rules) != 8 {
		t.Errorf("mapping: %d segments, %d rules", len(m.Segments), len(m.Rules))
	}
}

func TestPlanJSON(t *testing.T) {
	out, _, err := runCmd(t, "plan", "-workspace", testWorkspace, "-json")
	if err != nil {
		t.Fatal(err)
	}
	var m plan.Mapping
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var kinds []plan.Kind
	for _, k := range m.Summary {
		kinds = append(kinds, k.Kind)
	}
	want := []plan.Kind{plan.KindKnownWorker, plan.KindMaxReserved, plan.KindSkillTermsFallback, plan.KindTaskOrder, plan.KindTaskVsWorker, plan.KindTimeOfDay, plan.KindUnevenPriority}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}

func TestGenerateThenShadow(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCmd(t, "generate", "-out", dir, "-workers", "60", "-events", "3000", "-seed", "3"); err != nil {
		t.Fatal(err)
	}
	ws, ev := filepath.Join(dir, "workspace.json"), filepath.Join(dir, "events.jsonl")
	out, progress, err := runCmd(t, "shadow", "-workspace", ws, "-events", ev, "-at", "2026-11-02T08:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"plan: not translated", "replayed 3000 events", "summary: eligible"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(progress, "replayed 3000 events, compared ") {
		t.Errorf("no progress on stderr: %q", progress)
	}
	// By default the text lists 20 disagreements.
	var disagree, total int
	if _, err := fmt.Sscanf(out[strings.Index(out, "disagreements: "):], "disagreements: %d of %d", &disagree, &total); err != nil {
		t.Fatalf("no disagreement count: %v\n%s", err, out)
	}
	if got := strings.Count(out, "\n    here:  "); disagree <= 20 || got != 20 {
		t.Errorf("%d disagreements listed of %d, want 20", got, disagree)
	}
	out, _, err = runCmd(t, "shadow", "-workspace", ws, "-events", ev, "-at", "2026-11-02T08:00:00Z", "-json", "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	var rep shadowJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if rep.Shadow.Events != 3000 || rep.Shadow.Overall.Reservations == 0 || len(rep.Plan.Summary) == 0 {
		t.Errorf("report: %d events, %d reservations, %d finding kinds", rep.Shadow.Events, rep.Shadow.Overall.Reservations, len(rep.Plan.Summary))
	}
	// Every reservation is listed, with its standing and the reasons on both sides, and the
	// standings add up to the counts.
	if len(rep.Shadow.Reservations) != rep.Shadow.Overall.Reservations {
		t.Fatalf("%d reservations listed of %d", len(rep.Shadow.Reservations), rep.Shadow.Overall.Reservations)
	}
	count := map[string]int{}
	for _, r := range rep.Shadow.Reservations {
		count[r.Standing]++
		if r.WhyHere == "" || r.WhyThere == "" || (r.Standing == shadow.StandingTie) != (r.TieSize > 1 && r.Here != nil && r.There != nil && r.There.Score == r.Here.Score) {
			t.Fatalf("reservation without its reasons or with a wrong tie: %+v", r)
		}
	}
	o := rep.Shadow.Overall
	if diff := cmp.Diff([]int{o.FirstChoice, o.TiedFirst, o.EligibleHere, o.Unknown},
		[]int{count["first"] + count["tie"], count["tie"], count["first"] + count["tie"] + count["eligible"], count["unknown"]}); diff != "" {
		t.Errorf("first, tied first, eligible, unknown (-want +got):\n%s", diff)
	}
	if o.Ties < o.TiedFirst || o.TiedFirst == 0 {
		t.Errorf("ties %d, tied first %d: the generated workspace has workers of equal score", o.Ties, o.TiedFirst)
	}
	out, _, err = runCmd(t, "shadow", "-workspace", ws, "-events", ev, "-at", "2026-11-02T08:00:00Z", "-quiet", "-list", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"disagreements: ", "    here:  ", "    there: ", "more (-list sets how many; -json lists every reservation)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want error
		msg  string
	}{
		{nil, errUsage, ""},
		{[]string{"migrate"}, errUsage, ""},
		{[]string{"plan"}, errFlags, "-workspace is required"},
		{[]string{"plan", "-workspace", testWorkspace, "-at", "noon"}, errFlags, `-at "noon" is not an RFC 3339 time`},
		{[]string{"plan", "-workspace", testWorkspace, "extra"}, errFlags, `unexpected argument "extra"`},
		{[]string{"shadow", "-workspace", testWorkspace}, errFlags, "-events is required"},
		{[]string{"shadow", "-workspace", testWorkspace, "-events", "e.jsonl", "-shards", "-1"}, errFlags, "-shards -1 is negative"},
		{[]string{"shadow", "-workspace", testWorkspace, "-events", "e.jsonl", "-at", "noon"}, errFlags, `-at "noon" is not an RFC 3339 time`},
		{[]string{"shadow", "-workspace", "no-such-workspace.json", "-events", "e.jsonl"}, os.ErrNotExist, "no-such-workspace.json"},
		{[]string{"generate"}, errFlags, "-out is required"},
		{[]string{"expr"}, errFlags, "want EXPRESSION and at most one DOCUMENT.json, got 0 arguments"},
		{[]string{"expr", "1==1", "a.json", "b.json"}, errFlags, "got 3 arguments"},
		{[]string{"expr", "-scope", "queue", "1==1"}, errFlags, `-scope "queue" is neither worker nor task`},
		{[]string{"expr", "-at", "noon", "1==1"}, errFlags, `-at "noon" is not an RFC 3339 time`},
		{[]string{"plan", "-nope"}, flag.ErrHelp, ""},
	}
	for _, tt := range tests {
		_, _, err := runCmd(t, tt.args...)
		if tt.want == flag.ErrHelp {
			if err == nil || errors.Is(err, errFlags) {
				t.Errorf("%v: err = %v, want a flag error", tt.args, err)
			}
			continue
		}
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%v: err = %v, want %v %q", tt.args, err, tt.want, tt.msg)
		}
	}
}

func TestPlanRefusesMalformedWorkspace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ws.json")
	if err := os.WriteFile(path, []byte(`{"workers":[{"sid":"WK1","attributes":"{oops"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCmd(t, "plan", "-workspace", path)
	if err == nil || !strings.Contains(err.Error(), "workers[0].attributes: not a JSON object") {
		t.Errorf("err = %v", err)
	}
}

// writeFile writes content to name in a new temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// smallWorkspace has one worker, a queue nobody is in, a queue whose expression does not
// parse, and one workflow.
const smallWorkspace = `{
 "workers": [{"sid": "WK1", "attributes": "{\"skills\": [\"a\"]}", "available": true}],
 "task_queues": [
  {"sid": "WQa", "friendly_name": "A", "target_workers": "skills HAS 'a'"},
  {"sid": "WQnobody", "friendly_name": "Nobody", "target_workers": "skills HAS 'z'"},
  {"sid": "WQbad", "friendly_name": "Bad", "target_workers": "skills HAS"}
 ],
 "workflows": [{"sid": "WW1", "friendly_name": "All", "task_reservation_timeout": 30,
  "configuration": "{\"task_routing\": {\"filters\": [{\"filter_friendly_name\": \"broken\", \"expression\": \"type ==\", \"targets\": [{\"queue\": \"WQa\"}]}], \"default_filter\": {\"queue\": \"WQa\"}}}"}]
}`

// TestStrict: -strict turns what the report only notes (unparsable expressions, queues
// selecting nobody, empty exports) into exit status 1 naming the file and the place, after
// the report; without it those end with status 0 as before.
func TestStrict(t *testing.T) {
	ws := writeFile(t, "ws.json", smallWorkspace)
	clean := writeFile(t, "clean.json", `{"workers": [{"sid": "WK1", "attributes": "{\"skills\": [\"a\"]}"}],
	 "task_queues": [{"sid": "WQa", "friendly_name": "A", "target_workers": "skills HAS 'a'"}],
	 "workflows": [{"sid": "WW1", "configuration": "{\"task_routing\": {\"filters\": [], \"default_filter\": {\"queue\": \"WQa\"}}}"}]}`)
	noWorkflows := writeFile(t, "nowf.json", `{"workers": [], "task_queues": [{"sid": "WQa", "target_workers": "1==1"}]}`)
	empty := writeFile(t, "events.jsonl", "\n")
	tests := []struct {
		name    string
		args    []string
		want    []string // in the error; none: no error
		wantOut string   // in stdout
	}{
		{"plan, not strict", []string{"plan", "-workspace", ws}, nil, "unparsable: 2 findings"},
		{"plan, strict", []string{"plan", "-workspace", ws, "-strict"}, []string{
			"-strict: 3 problems",
			ws + `: task queue WQbad (Bad): unparsable "skills HAS": expression: column 11`,
			ws + `: workflow WW1 (All) filter "broken": unparsable "type =="`,
			ws + `: segment WQnobody: emptyQueue "skills HAS 'z'": no worker of the export is selected`,
		}, "unparsable: 2 findings"},
		{"plan -json, strict", []string{"plan", "-workspace", ws, "-strict", "-json"}, []string{"-strict: 3 problems"}, `"kind": "unparsable"`},
		{"plan, strict, clean", []string{"plan", "-workspace", clean, "-strict"}, nil, "1 workers, 1 queues"},
		{"plan, strict, empty workspace", []string{"plan", "-workspace", noWorkflows, "-strict"}, []string{noWorkflows + ": no workers", noWorkflows + ": no workflows"}, ""},
		{"shadow, empty events, not strict", []string{"shadow", "-workspace", clean, "-events", empty, "-quiet"}, nil, "replayed 0 events"},
		{"shadow, empty events, strict", []string{"shadow", "-workspace", clean, "-events", empty, "-quiet", "-strict"}, []string{"-strict: 1 problems", empty + ": no events"}, "replayed 0 events"},
		{"shadow -json, empty events, strict", []string{"shadow", "-workspace", clean, "-events", empty, "-quiet", "-strict", "-json"}, []string{"-strict: 1 problems", empty + ": no events"}, `"events": 0`},
		// Findings of constructs without a counterpart (LIFO, known workers, ...) are no problem.
		{"plan, strict, untranslated constructs only", []string{"plan", "-workspace", testWorkspace, "-strict"}, nil, "taskOrder: 1 findings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCmd(t, tt.args...)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
			} else {
				if !errors.Is(err, errStrict) {
					t.Fatalf("err = %v, want -strict's", err)
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q:\n%v", w, err)
					}
				}
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("output lacks %q:\n%s", tt.wantOut, out)
			}
		})
	}
	_, progress, err := runCmd(t, "shadow", "-workspace", clean, "-events", empty)
	if err != nil || !strings.Contains(progress, "warning: "+empty+" holds no events") {
		t.Errorf("no warning of an empty export: %v\n%s", err, progress)
	}
}

// TestShadowEventErrorsNameFileAndLine: an event file's error names the file, the line and
// the event.
func TestShadowEventErrorsNameFileAndLine(t *testing.T) {
	const ok = `{"event_type":"task.created","event_date_ms":1,"event_data":{"task_sid":"WT1","workflow_sid":"WWsupport"}}`
	tests := []struct{ name, content, want string }{
		{"missing member", ok + "\n\n" + `{"event_type":"reservation.created","event_date_ms":2,"event_data":{"task_sid":"WT1"}}`,
			":3: event 2: reservation.created without event_data.worker_sid"},
		{"broken JSON", ok + "\n" + `{"event_type": nope}`, ":2: after event 1: invalid character 'o'"},
		{"out of order", ok + "\n" + `{"event_type":"x","event_date_ms":0}`, ":2: event 2: at 1970-01-01T00:00:00Z, before the event before it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := writeFile(t, "events.jsonl", tt.content)
			_, _, err := runCmd(t, "shadow", "-workspace", testWorkspace, "-events", events, "-quiet")
			if err == nil || errors.Is(err, errUsage) || !strings.Contains(err.Error(), events+tt.want) {
				t.Errorf("err = %v, want %s%s", err, events, tt.want)
			}
		})
	}
}

func TestExpr(t *testing.T) {
	worker := writeFile(t, "worker.json", `{"skills": ["english", "billing"], "level": 3}`)
	task := writeFile(t, "task.json", `{"type": "billing", "min_level": 2}`)
	broken := writeFile(t, "broken.json", "{\"skills\": [\n\"english\",\n oops]}")
	tests := []struct {
		name    string
		args    []string
		wantOut string
		wantErr string
	}{
		{"worker, true", []string{`skills HAS "english" AND level >= 3`, worker}, "true\n", ""},
		{"worker, false", []string{`skills HAS "spanish"`, worker}, "false\nnote: as a queue's target_workers, one tag per term: skills:spanish", ""},
		{"task scope", []string{"-scope", "task", `type == 'billing'`, task}, "true\n", ""},
		{"task against worker", []string{"-task", task, "worker.level > task.min_level", worker}, "true\nnote: compares task and worker attributes", ""},
		{"time of day", []string{"-scope", "task", "-at", "2026-11-02T09:30:00Z", "taskrouter.currentHour == 9"}, "true\nnote: reads the time of day, taken from 2026-11-02T09:30:00Z", ""},
		{"no document", []string{"skills HAS 'a'"}, "false\n", ""},
		{"json", []string{"-json", "level > 2", worker}, `"parsed": "level > 2",` + "\n" + `  "scope": "worker",` + "\n" + `  "result": true`, ""},
		{"unparsable", []string{"skills HAS", worker}, "", "expression: column 11: expected a key or a constant (string, number, true, false, [list]), found end of expression\n  skills HAS\n            ^"},
		{"document not JSON", []string{"1==1", broken}, "", broken + ":3: not JSON"},
		{"no expression", nil, "", "want EXPRESSION"},
		{"bad scope", []string{"-scope", "queue", "1==1"}, "", `-scope "queue" is neither worker nor task`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCmd(t, append([]string{"expr"}, tt.args...)...)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("err = %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if !strings.HasPrefix(out, tt.wantOut) && !strings.Contains(out, tt.wantOut) {
				t.Errorf("output %q lacks %q", out, tt.wantOut)
			}
		})
	}
}

func TestVersionVerb(t *testing.T) {
	old := version
	version = "v9.8.7-test" // what -ldflags "-X main.version=..." stamps in a release build
	t.Cleanup(func() { version = old })
	for _, arg := range []string{"-version", "--version", "version"} {
		var out, errb bytes.Buffer
		if err := run(t.Context(), []string{arg}, &out, &errb, time.Now); err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		if diff := cmp.Diff("v9.8.7-test\n", out.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", arg, diff)
		}
	}
}

// TestShadowShardsBoundedByCPUs: -shards above the CPU count uses the CPU count and says so;
// the report is the same as with one shard.
func TestShadowShardsBoundedByCPUs(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCmd(t, "generate", "-out", dir, "-workers", "40", "-events", "1500", "-seed", "4"); err != nil {
		t.Fatal(err)
	}
	ws, ev := filepath.Join(dir, "workspace.json"), filepath.Join(dir, "events.jsonl")
	shadowJSONOf := func(shards string) (shadowJSON, string) {
		out, stderr, err := runCmd(t, "shadow", "-workspace", ws, "-events", ev, "-at", "2026-11-02T08:00:00Z", "-json", "-quiet", "-shards", shards)
		if err != nil {
			t.Fatal(err)
		}
		var rep shadowJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		return rep, stderr
	}
	one, note := shadowJSONOf("1")
	if note != "" {
		t.Errorf("-shards 1: stderr %q", note)
	}
	many, note := shadowJSONOf("5000")
	cpus := runtime.GOMAXPROCS(0)
	if want := fmt.Sprintf("note: -shards 5000: using %d, one per CPU", cpus); !strings.Contains(note, want) {
		t.Errorf("stderr %q lacks %q", note, want)
	}
	if many.Shadow.Shards > cpus || many.Shadow.Shards < 1 {
		t.Errorf("-shards 5000 on %d CPUs: %d shards", cpus, many.Shadow.Shards)
	}
	many.Shadow.Shards, many.Shadow.MockRequests = one.Shadow.Shards, one.Shadow.MockRequests
	if diff := cmp.Diff(one, many); diff != "" {
		t.Errorf("(-one shard +bounded):\n%s", diff)
	}
}

// TestHelpDocumentsBounds: -h says how -shards is bounded and what the defaults are.
func TestHelpDocumentsBounds(t *testing.T) {
	tests := []struct {
		verb string
		want []string
	}{
		{"shadow", []string{"-shards int\n", "0 to the CPU count; 0: one per CPU (at most 8); above the CPU count: the CPU count, with a note\n"}},
		{"generate", []string{"-queues int\n", "the workflows route to the first 30) (default 30)\n", "(at least 40) (default 240)\n",
			"-events int\n    \tevents (default 100000)\n", "the same seed gives the same files (default 1)\n"}},
	}
	for _, tt := range tests {
		_, help, err := runCmd(t, tt.verb, "-h")
		if !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s -h: err = %v", tt.verb, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(help, w) {
				t.Errorf("%s -h lacks %q:\n%s", tt.verb, w, help)
			}
		}
	}
}

// TestProgressLines: shadow's progress says how many events it has read (and up to when)
// while it reads the export, then how many reservations of how many it has compared.
func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	progress := progressPrinter(&b, time.Now())
	progress(shadow.Progress{Events: 10_000, At: time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)})
	progress(shadow.Progress{Events: 12_345, Reservations: 4_000, Compared: 1_000})
	lines := strings.Split(b.String(), "\n")
	if len(lines) != 3 || lines[0] != "read 10000 events (up to 2026-11-02T09:30:00Z)" ||
		!strings.HasPrefix(lines[1], "compared 1000 of 4000 reservations (") || lines[2] != "" {
		t.Errorf("progress lines:\n%s", b.String())
	}
}

// TestShadowListsUntranslatedOnlyWhenThereIsSome: shadow's text report starts with the
// plan's untranslated constructs by kind when there are any, and says nothing of them when
// the plan translates everything.
func TestShadowListsUntranslatedOnlyWhenThereIsSome(t *testing.T) {
	clean := writeFile(t, "clean.json", `{"workers": [{"sid": "WK1", "attributes": "{\"skills\": [\"a\"]}"}],
	 "task_queues": [{"sid": "WQa", "friendly_name": "A", "target_workers": "skills HAS 'a'"}],
	 "workflows": [{"sid": "WW1", "configuration": "{\"task_routing\": {\"filters\": [], \"default_filter\": {\"queue\": \"WQa\"}}}"}]}`)
	empty := writeFile(t, "events.jsonl", "\n")
	for _, tc := range []struct {
		name, workspace string
		listed          bool
	}{
		{"every construct translated", clean, false},
		{"untranslated constructs", testWorkspace, true},
	} {
		out, _, err := runCmd(t, "shadow", "-workspace", tc.workspace, "-events", empty, "-quiet")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.HasPrefix(out, "plan: not translated\n  "); got != tc.listed {
			t.Errorf("%s: untranslated listed %v, want %v:\n%s", tc.name, got, tc.listed, out)
		}
		if !tc.listed && strings.Contains(out, "not translated") {
			t.Errorf("%s: output speaks of untranslated constructs:\n%s", tc.name, out)
		}
	}
}
