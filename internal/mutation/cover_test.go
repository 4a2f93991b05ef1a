package mutation

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseProfile(t *testing.T) {
	tests := []struct {
		name    string
		profile string
		want    map[block]bool
		wantErr string
	}{
		{
			name: "set mode",
			profile: "mode: set\n" +
				"example.com/m/a.go:6.24,7.11 1 1\n" +
				"example.com/m/a.go:7.11,9.3 1 0\n",
			want: map[block]bool{
				{File: "example.com/m/a.go", StartLine: 6, StartCol: 24, EndLine: 7, EndCol: 11}: true,
				{File: "example.com/m/a.go", StartLine: 7, StartCol: 11, EndLine: 9, EndCol: 3}:  false,
			},
		},
		{
			// -race profiles count; a block listed twice ran if either listing ran.
			name: "atomic mode, a block listed twice",
			profile: "mode: atomic\n" +
				"example.com/m/b.go:3.2,4.9 2 7\n" +
				"example.com/m/b.go:3.2,4.9 2 0\n" +
				"\n",
			want: map[block]bool{{File: "example.com/m/b.go", StartLine: 3, StartCol: 2, EndLine: 4, EndCol: 9}: true},
		},
		{name: "no mode line", profile: "example.com/m/a.go:6.24,7.11 1 1\n", wantErr: "is not a mode"},
		{name: "missing count", profile: "mode: set\nexample.com/m/a.go:6.24,7.11 1\n", wantErr: "unreadable line"},
		{name: "bad position", profile: "mode: set\nexample.com/m/a.go:6,7.11 1 1\n", wantErr: "unreadable line"},
		{name: "bad count", profile: "mode: set\nexample.com/m/a.go:6.24,7.11 1 x\n", wantErr: "unreadable line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProfile(strings.NewReader(tt.profile))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to hold %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSelectFor(t *testing.T) {
	const f = "example.com/m/a.go"
	var (
		fn        = block{File: f, StartLine: 10, StartCol: 20, EndLine: 20, EndCol: 2} // a function's first block
		lit       = block{File: f, StartLine: 12, StartCol: 30, EndLine: 14, EndCol: 3} // a block nested inside it
		none      = block{File: f, StartLine: 22, StartCol: 10, EndLine: 24, EndCol: 3} // run by no test
		suiteOnly = block{File: f, StartLine: 26, StartCol: 10, EndLine: 28, EndCol: 3} // run only after another test
		aloneOnly = block{File: f, StartLine: 30, StartCol: 10, EndLine: 32, EndCol: 3} // run alone, not in the suite
		other     = block{File: "example.com/m/b.go", StartLine: 10, StartCol: 1, EndLine: 20, EndCol: 1}
	)
	cov := &testCoverage{
		Tests:   []string{"TestA", "TestB", "ExampleC"},
		Seconds: []float64{1, 2, 4},
		Covered: map[block][]int{fn: {0, 1}, lit: {1}, aloneOnly: {2}, other: {0}},
		Suite:   map[block]bool{fn: true, lit: true, none: false, suiteOnly: true, aloneOnly: false, other: true},
	}
	tests := []struct {
		name      string
		file      string
		line, col int
		want      selection
	}{
		{name: "start of a block", file: f, line: 10, col: 20, want: selection{Tests: []string{"TestA", "TestB"}, Seconds: 3}},
		{name: "inside a block", file: f, line: 15, col: 5, want: selection{Tests: []string{"TestA", "TestB"}, Seconds: 3}},
		{name: "last column of a block", file: f, line: 20, col: 1, want: selection{Tests: []string{"TestA", "TestB"}, Seconds: 3}},
		{name: "end of a block is outside it", file: f, line: 20, col: 2, want: selection{All: true}},
		{name: "nested blocks: the innermost", file: f, line: 13, col: 4, want: selection{Tests: []string{"TestB"}, Seconds: 2}},
		{name: "before the nested block, in the outer", file: f, line: 12, col: 29, want: selection{Tests: []string{"TestA", "TestB"}, Seconds: 3}},
		{name: "run by no test", file: f, line: 23, col: 1, want: selection{Tests: []string{}}},
		{name: "run by the suite, by no test alone", file: f, line: 27, col: 1, want: selection{All: true}},
		{name: "run alone, not in the suite", file: f, line: 31, col: 1, want: selection{All: true}},
		{name: "package-level declaration", file: f, line: 5, col: 7, want: selection{All: true}},
		{name: "other file", file: "example.com/m/b.go", line: 12, col: 1, want: selection{Tests: []string{"TestA"}, Seconds: 1}},
		{name: "file without blocks", file: "example.com/m/c.go", line: 12, col: 1, want: selection{All: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, cov.selectFor(tt.file, tt.line, tt.col)); diff != "" {
				t.Errorf("selection (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunPatternMatchesExactlyTheTests(t *testing.T) {
	re := regexp.MustCompile(runPattern([]string{"TestA", "ExampleB_x", "FuzzC"}))
	for name, want := range map[string]bool{
		"TestA": true, "ExampleB_x": true, "FuzzC": true,
		"TestAB": false, "XTestA": false, "ExampleB": false, "TestB": false,
	} {
		if got := re.MatchString(name); got != want {
			t.Errorf("%s matches %v, want %v", re, got, want)
		}
	}
}

// TestRunSelection mutates testdata/selection for real: each mutant runs the tests whose
// coverage reaches it, the whole suite where coverage cannot tell, nothing where no test
// reaches it; a package with a test that fails alone runs the whole suite for every mutant.
// The verdicts are those of the whole suite.
func TestRunSelection(t *testing.T) {
	t.Setenv("GOWORK", "off")
	type outcome struct {
		Where      string
		Status     Status
		KilledBy   string
		Tests      int
		NotCovered bool
	}
	want := []outcome{
		{Where: "selection.go:6:const limit = 11", Status: Killed, KilledBy: "TestClamp"},           // package level: all tests
		{Where: "selection.go:18:total := 1", Status: Killed, KilledBy: "TestSum", Tests: 2},        // TestSum, TestSumEmpty
		{Where: "selection.go:20:total = total - x", Status: Killed, KilledBy: "TestSum", Tests: 1}, // the literal: TestSum
		{Where: "selection.go:33:return x / 2", Status: Survived, NotCovered: true},                 // no test
		{Where: "selection.go:33:return x * 3", Status: Survived, NotCovered: true},                 // no test
		{Where: "selection.go:47:return 2", Status: Survived},                                       // TestGet alone reaches it, the suite (TestWarm first) does not: all tests
		{Where: "selection.go:51:return 2", Status: Killed, KilledBy: "TestGet"},                    // reached after TestWarm only: all tests
		{Where: "shared/shared.go:8:count--", Status: Killed, KilledBy: "TestFirst"},                // TestSecond fails alone: all tests
	}
	for _, allTests := range []bool{false, true} {
		var log bytes.Buffer
		rep, err := Run(context.Background(), Config{
			Dir:      filepath.Join("testdata", "selection"),
			Packages: []string{"./..."},
			Kinds:    []Kind{Arithmetic, ConstPlus, IncDec},
			Jobs:     4,
			AllTests: allTests,
			Log:      &log,
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []outcome
		for _, p := range rep.Packages {
			for _, r := range p.Results {
				got = append(got, outcome{Where: r.Path + ":" + strconv.Itoa(r.Line) + ":" + r.Mutated, Status: r.Status, KilledBy: r.KilledBy, Tests: r.Tests, NotCovered: r.NotCovered})
			}
		}
		w := want
		if allTests {
			w = nil
			for _, o := range want {
				o.Tests, o.NotCovered = 0, false
				w = append(w, o)
			}
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("all tests %v: outcomes (-want +got):\n%s", allTests, diff)
		}
		selected := []bool{rep.Packages[0].Selection, rep.Packages[1].Selection}
		if diff := cmp.Diff([]bool{!allTests, false}, selected); diff != "" {
			t.Errorf("all tests %v: selection per package (-want +got):\n%s", allTests, diff)
		}
		if nc := rep.Packages[0].NotCovered; allTests && nc != 0 || !allTests && nc != 2 {
			t.Errorf("all tests %v: not covered = %d", allTests, nc)
		}
		if fallback := "TestSecond fails alone"; !allTests && !strings.Contains(log.String(), fallback) {
			t.Errorf("log does not say %q:\n%s", fallback, log.String())
		}
	}
}

// TestSubtestPatternTurnsSelectionOff: a -run pattern naming subtests cannot be joined to a
// list of top-level names, so the package runs the whole suite per mutant (before any build).
func TestSubtestPatternTurnsSelectionOff(t *testing.T) {
	for _, run := range []string{"TestClamp/small", "/x"} {
		_, _, err := measureCoverage(context.Background(), Config{Run: run}, pkgInfo{}, t.TempDir())
		var no errNoSelection
		if !errors.As(err, &no) {
			t.Errorf("-run %q: err = %v, want selection off", run, err)
		}
	}
}
