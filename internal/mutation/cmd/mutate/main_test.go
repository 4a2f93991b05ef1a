package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taskrouting/taskrouting-go/internal/mutation"
)

func TestRunRejectsBadUse(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no package", args: nil, want: "-pkg is required"},
		{name: "positional argument", args: []string{"-pkg", ".", "extra"}, want: "-pkg is required"},
		{name: "unknown flag", args: []string{"-pkg", ".", "-nope"}, want: "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tt.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit = %d, want 2", code)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr = %q, want it to hold %q", stderr.String(), tt.want)
			}
		})
	}
}

// TestListNamesEveryMutant runs -list on the tiny test module: nothing is tested, every mutant
// is printed with its path, line, kind and mutated line.
func TestListNamesEveryMutant(t *testing.T) {
	t.Setenv("GOWORK", "off")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-C", "../../testdata/tiny", "-pkg", ".", "-list", "-kinds", "swap,boundary"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit = %d, stderr:\n%s", code, stderr.String())
	}
	want := "example.com/tiny: 2 mutants, 2 chosen\n" +
		"  tiny.go:7: swap: if b > a {\n" +
		"  tiny.go:7: boundary: if a >= b {\n"
	if got := stdout.String(); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
}

// TestReportMarksNotCovered: a survivor no test reaches reads "survived (not covered)", apart
// from a survivor the tests ran and missed.
func TestReportMarksNotCovered(t *testing.T) {
	rep := &mutation.Report{Packages: []mutation.PackageReport{{
		Package: "example.com/m", Enumerated: 9, Killed: 1, Survived: 2, NotCovered: 1, Score: 1.0 / 3,
		BaselineSeconds: 2, Selection: true,
		Results: []mutation.Result{
			{Mutant: mutation.Mutant{Line: 3, Kind: mutation.Boundary}, Path: "a.go", Mutated: "a <= b", Status: mutation.Survived, Tests: 2},
			{Mutant: mutation.Mutant{Line: 5, Kind: mutation.Equality}, Path: "a.go", Mutated: "a != b", Status: mutation.Killed, Tests: 1},
			{Mutant: mutation.Mutant{Line: 8, Kind: mutation.ConstPlus}, Path: "a.go", Mutated: "n = 2", Status: mutation.Survived, NotCovered: true},
		},
	}}}
	var out bytes.Buffer
	printReport(&out, rep, false, 3*time.Second)
	want := "example.com/m: 3 of 9 mutants run: killed 1 (timed out 0), survived 2 (not covered 1), not viable 0; score 33.3%; baseline 2.0s, covering tests only\n" +
		"  survived a.go:3: boundary: a <= b\n" +
		"  survived (not covered) a.go:8: const+1: n = 2\n" +
		"took 3s\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}
