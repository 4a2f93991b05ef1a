package mutation

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunTinyModule mutates testdata/tiny for real (go test with an overlay) and checks that a
// killed, a surviving and a not-viable mutant are each reported as such. Three kinds keep it to
// one build per mutant.
func TestRunTinyModule(t *testing.T) {
	t.Setenv("GOWORK", "off") // the tiny module is not part of the repository's go.work
	rep, err := Run(context.Background(), Config{
		Dir:      filepath.Join("testdata", "tiny"),
		Packages: []string{"."},
		Kinds:    []Kind{SwapOperands, Boundary, ConstPlus},
		Jobs:     3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 1 {
		t.Fatalf("packages = %d, want 1", len(rep.Packages))
	}
	p := rep.Packages[0]
	type outcome struct {
		Where    string
		Kind     Kind
		Status   Status
		KilledBy string
	}
	var got []outcome
	for _, r := range p.Results {
		got = append(got, outcome{Where: r.Path + ":" + r.Mutated, Kind: r.Kind, Status: r.Status, KilledBy: r.KilledBy})
	}
	want := []outcome{
		{Where: "tiny.go:if b > a {", Kind: SwapOperands, Status: Killed, KilledBy: "TestMax"},
		{Where: "tiny.go:if a >= b {", Kind: Boundary, Status: Survived},
		{Where: "tiny.go:return xs[1]", Kind: ConstPlus, Status: NotViable},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	counts := [4]int{p.Killed, p.Survived, p.NotViable, p.Enumerated}
	if counts != [4]int{1, 1, 1, 3} {
		t.Errorf("killed, survived, not viable, enumerated = %v, want [1 1 1 3]", counts)
	}
	if p.Score != 0.5 {
		t.Errorf("score = %v, want 0.5", p.Score)
	}
}

func TestSampleIsSeededAndInSourceOrder(t *testing.T) {
	var all []Result
	for i := 0; i < 100; i++ {
		all = append(all, Result{Mutant: Mutant{Line: i}})
	}
	lines := func(rs []Result) []int {
		var out []int
		for _, r := range rs {
			out = append(out, r.Line)
		}
		return out
	}
	a, b, c := lines(sample(all, 10, 1)), lines(sample(all, 10, 1)), lines(sample(all, 10, 2))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different samples (-first +second):\n%s", diff)
	}
	if cmp.Equal(a, c) {
		t.Errorf("seeds 1 and 2 drew the same sample %v", a)
	}
	for i := 1; i < len(a); i++ {
		if a[i] <= a[i-1] {
			t.Errorf("sample not in source order: %v", a)
		}
	}
	if got := len(sample(all, 0, 1)); got != 100 {
		t.Errorf("sample 0 kept %d, want all 100", got)
	}
}

func TestParseDiff(t *testing.T) {
	diff := `diff --git a/x/a.go b/x/a.go
--- a/x/a.go
+++ b/x/a.go
@@ -3,0 +4,2 @@ func f() {
+	a()
+	b()
@@ -10 +12 @@ func g() {
-	c()
+	d()
diff --git a/gone.go b/gone.go
--- a/gone.go
+++ /dev/null
@@ -1,3 +0,0 @@
-package x
`
	got, err := parseDiff("/r", []byte(diff))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("files = %v, want only /r/x/a.go", got)
	}
	set := got[filepath.Join("/r", "x", "a.go")]
	var lines []int
	for l := 1; l <= 20; l++ {
		if set.has(l) {
			lines = append(lines, l)
		}
	}
	if diff := cmp.Diff([]int{4, 5, 12}, lines); diff != "" {
		t.Errorf("changed lines (-want +got):\n%s", diff)
	}
}

// TestRunDiffKeepsChangedLines lists (runs nothing) the mutants of a copy of the tiny module in
// a fresh git repository after one line changed since the commit: only that line's remain.
func TestRunDiffKeepsChangedLines(t *testing.T) {
	t.Setenv("GOWORK", "off")
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "tiny.go", "tiny_test.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tiny", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "tiny")
	src, err := os.ReadFile(filepath.Join(dir, "tiny.go"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(src), "return b\n", "return b + 0\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "tiny.go"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Config{Dir: dir, Packages: []string{"."}, Diff: "HEAD", ListOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Packages[0].Results {
		got = append(got, r.Mutated)
	}
	want := []string{"return b - 0", "return b + 1", "return b + (-1)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mutants on changed lines (-want +got):\n%s", diff)
	}
}
