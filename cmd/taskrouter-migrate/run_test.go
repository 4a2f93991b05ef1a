package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
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
		{[]string{"generate"}, errFlags, "-out is required"},
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
