package mutation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Status is what the tests made of a mutant.
type Status string

// The statuses of a run mutant. A timed-out mutant counts as killed: the tests noticed
// something (a hang) that the unmutated code does not do.
const (
	Killed    Status = "killed"
	Survived  Status = "survived"
	NotViable Status = "not-viable" // the mutated package does not compile
	TimedOut  Status = "timed-out"
)

// Config says what to mutate and how to test it.
type Config struct {
	Dir      string   // the module's directory (a worktree); every go and git command runs there
	Packages []string // package patterns, as go list takes them (./webhook, ./migrate/...)
	Files    []string // if set, only files whose base name matches one of these globs
	Diff     string   // if set, only lines changed since the merge base with this revision, plus untracked files
	Kinds    []Kind   // if set, only these kinds
	Sample   int      // if > 0, at most this many mutants per package, drawn with Seed
	Seed     uint64
	Jobs     int           // mutants tested at once
	Run      string        // go test -run pattern
	Short    bool          // go test -short
	Race     bool          // go test -race
	Timeout  time.Duration // per mutant; 0: three times the baseline (or the chosen tests' time, if less) plus 30 s
	AllTests bool          // run the whole suite for every mutant instead of the tests that cover it
	Log      io.Writer     // progress, one line per mutant; nil: none
	ListOnly bool          // enumerate and sample, run nothing
}

// Result is one mutant's outcome.
type Result struct {
	Mutant
	Path     string  `json:"path"` // relative to Config.Dir
	Mutated  string  `json:"mutated_line"`
	Status   Status  `json:"status,omitempty"`
	KilledBy string  `json:"killed_by,omitempty"` // the first failing test, or the output's last lines when no test is named
	Seconds  float64 `json:"seconds,omitempty"`
	// Tests is how many top-level tests ran: those whose coverage holds the mutated position;
	// 0 when the whole suite ran or nothing ran.
	Tests int `json:"tests,omitempty"`
	// NotCovered marks a survivor no test reaches: it was not run, as no test runs its code.
	NotCovered bool `json:"not_covered,omitempty"`
}

// PackageReport is the outcome for one package.
type PackageReport struct {
	Package         string   `json:"package"`
	Enumerated      int      `json:"enumerated"` // after the file and diff filters
	Sampled         int      `json:"sampled"`
	Killed          int      `json:"killed"` // timed-out included
	Survived        int      `json:"survived"`
	NotViable       int      `json:"not_viable"`
	TimedOut        int      `json:"timed_out"`
	NotCovered      int      `json:"not_covered"` // survivors in code no test runs, included in Survived
	Score           float64  `json:"score"`       // killed / (killed + survived); 1 when nothing ran
	BaselineSeconds float64  `json:"baseline_seconds"`
	Selection       bool     `json:"selection"`         // each mutant ran only the tests covering it
	Partial         bool     `json:"partial,omitempty"` // interrupted: Results holds the mutants that ran
	Results         []Result `json:"results"`
}

// Report is a whole run.
type Report struct {
	Date     string          `json:"date"`
	Dir      string          `json:"dir"`
	Seed     uint64          `json:"seed"`
	Sample   int             `json:"sample"`
	Diff     string          `json:"diff,omitempty"`
	Packages []PackageReport `json:"packages"`
}

// Run enumerates, samples and tests the mutants of every package of cfg. The working tree is
// never written: each mutant reaches the compiler through go test -overlay, so the run can go
// on while people edit. The mutated file is the copy read at the start; the package's other
// files are read by each build, so edits to them during a run change what is tested.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Jobs < 1 {
		cfg.Jobs = 1
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	cfg.Dir = dir
	pkgs, err := listPackages(ctx, cfg.Dir, cfg.Packages)
	if err != nil {
		return nil, err
	}
	var changed map[string]lineSet
	if cfg.Diff != "" {
		if changed, err = changedLines(ctx, cfg.Dir, cfg.Diff); err != nil {
			return nil, err
		}
	}
	rep := &Report{Date: time.Now().UTC().Format(time.RFC3339), Dir: cfg.Dir, Seed: cfg.Seed, Sample: cfg.Sample, Diff: cfg.Diff}
	for _, p := range pkgs {
		pr, err := runPackage(ctx, cfg, p, changed)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", p.ImportPath, err)
		}
		rep.Packages = append(rep.Packages, *pr)
		if pr.Partial {
			return rep, ctx.Err()
		}
	}
	return rep, nil
}

type pkgInfo struct {
	ImportPath string
	Dir        string
	GoFiles    []string
}

func listPackages(ctx context.Context, dir string, patterns []string) ([]pkgInfo, error) {
	args := append([]string{"list", "-json=ImportPath,Dir,GoFiles"}, patterns...)
	out, err := goCmd(ctx, dir, args...)
	if err != nil {
		return nil, err
	}
	var pkgs []pkgInfo
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, errors.New("no package matches " + strings.Join(patterns, " "))
	}
	return pkgs, nil
}

func goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// fileMutants is a file's source with the mutants chosen in it.
type fileSource struct {
	abs string
	src []byte
}

func runPackage(ctx context.Context, cfg Config, p pkgInfo, changed map[string]lineSet) (*PackageReport, error) {
	pr := &PackageReport{Package: p.ImportPath}
	sources := map[string]fileSource{}
	var all []Result
	for _, name := range p.GoFiles {
		if !matchesAny(cfg.Files, name) {
			continue
		}
		abs := filepath.Join(p.Dir, name)
		src, err := os.ReadFile(abs)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(cfg.Dir, abs)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		ms, err := Enumerate(name, src)
		if err != nil {
			return nil, err
		}
		sources[name] = fileSource{abs: abs, src: src}
		for _, m := range ms {
			if len(cfg.Kinds) > 0 && !hasKind(cfg.Kinds, m.Kind) {
				continue
			}
			if changed != nil && !changed[abs].has(m.Line) {
				continue
			}
			all = append(all, Result{Mutant: m, Path: rel, Mutated: m.MutatedLine(src)})
		}
	}
	pr.Enumerated = len(all)
	chosen := sample(all, cfg.Sample, cfg.Seed)
	pr.Sampled = len(chosen)
	if cfg.ListOnly || len(chosen) == 0 {
		pr.Results = chosen
		pr.Score = 1
		return pr, nil
	}

	tmp, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	start := time.Now()
	cov, suite, err := baseline(ctx, cfg, p, tmp, len(chosen), len(all))
	if err != nil {
		return nil, err
	}
	pr.BaselineSeconds = time.Since(start).Seconds()
	pr.Selection = cov != nil
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = 3*suite + 30*time.Second
	}
	// A mutant's build is not under go test's -timeout; the deadline of the whole command
	// leaves room for it.
	slack := suite + 30*time.Second
	if cov != nil {
		fmt.Fprintf(cfg.Log, "%s: baseline %.1fs (%d tests, each alone with coverage), whole-suite timeout %s\n",
			p.ImportPath, pr.BaselineSeconds, len(cov.Tests), timeout.Round(time.Second))
	} else {
		fmt.Fprintf(cfg.Log, "%s: baseline %.1fs, per-mutant timeout %s\n", p.ImportPath, pr.BaselineSeconds, timeout.Round(time.Second))
	}

	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
		next = make(chan int)
	)
	for w := 0; w < cfg.Jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := &chosen[i]
				fs := sources[r.File]
				t0 := time.Now()
				how, tests := testRun{Run: cfg.Run, Timeout: timeout, Slack: slack}, "all tests"
				sel := selection{All: true}
				if cov != nil {
					sel = cov.selectFor(path.Join(p.ImportPath, r.File), r.Line, r.Col)
				}
				switch {
				case !sel.All && len(sel.Tests) == 0:
					how.BuildOnly, r.NotCovered, tests = true, true, "not covered"
				case !sel.All:
					how.Run, r.Tests, tests = runPattern(sel.Tests), len(sel.Tests), fmt.Sprintf("%d tests", len(sel.Tests))
					if cfg.Timeout == 0 {
						// Each test alone paid for a process of its own, so many chosen tests
						// can add up to more than the whole suite: its timeout is the cap.
						how.Timeout = min(timeout, time.Duration(3*sel.Seconds*float64(time.Second))+30*time.Second)
					}
				}
				r.Status, r.KilledBy = runMutant(ctx, cfg, p.ImportPath, tmp, i, fs, r.Mutant, how)
				if r.Status != Survived {
					r.NotCovered = false // not viable: the score leaves it out either way
				}
				r.Seconds = time.Since(t0).Round(100 * time.Millisecond).Seconds()
				mu.Lock()
				done++
				fmt.Fprintf(cfg.Log, "[%d/%d] %-10s %s:%d %s: %s (%.0fs, %s)\n", done, len(chosen), r.Status, r.Path, r.Line, r.Kind, r.Mutated, r.Seconds, tests)
				mu.Unlock()
			}
		}()
	}
	for i := range chosen {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		// Interrupted: report what ran, so a long run stopped early still tells something.
		pr.Partial = true
		ran := chosen[:0]
		for _, r := range chosen {
			if r.Status != "" {
				ran = append(ran, r)
			}
		}
		chosen = ran
	}
	for _, r := range chosen {
		switch r.Status {
		case Killed:
			pr.Killed++
		case TimedOut:
			pr.Killed++
			pr.TimedOut++
		case Survived:
			pr.Survived++
			if r.NotCovered {
				pr.NotCovered++
			}
		case NotViable:
			pr.NotViable++
		}
	}
	pr.Score = 1
	if n := pr.Killed + pr.Survived; n > 0 {
		pr.Score = float64(pr.Killed) / float64(n)
	}
	pr.Results = chosen
	return pr, nil
}

var failingTest = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// testRun says how a mutant is tested.
type testRun struct {
	Run     string        // go test -run pattern
	Timeout time.Duration // go test -timeout
	Slack   time.Duration // beyond Timeout, for the build, before the command is stopped
	// BuildOnly: no test reaches the mutant, so only the package is built, which tells a
	// survivor from a mutant that does not compile.
	BuildOnly bool
}

func runMutant(ctx context.Context, cfg Config, pkg, tmp string, i int, fs fileSource, m Mutant, how testRun) (Status, string) {
	dir := filepath.Join(tmp, fmt.Sprint(i))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return NotViable, err.Error()
	}
	defer os.RemoveAll(dir)
	mutated := filepath.Join(dir, filepath.Base(fs.abs))
	overlay := filepath.Join(dir, "overlay.json")
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {fs.abs: mutated}})
	if err := os.WriteFile(mutated, m.Apply(fs.src), 0o644); err != nil {
		return NotViable, err.Error()
	}
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		return NotViable, err.Error()
	}
	if how.BuildOnly {
		// A mutant in a function's body cannot break the test files' build, so building the
		// package alone decides whether it compiles.
		if _, err := goCmd(ctx, cfg.Dir, "build", "-o", os.DevNull, "-overlay="+overlay, pkg); err != nil {
			return NotViable, ""
		}
		return Survived, ""
	}
	tctx, cancel := context.WithTimeout(ctx, how.Timeout+how.Slack)
	defer cancel()
	out, err := goTest(tctx, cfg, pkg, overlay, how.Run, how.Timeout)
	switch {
	case err == nil:
		return Survived, ""
	case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")):
		return NotViable, ""
	case tctx.Err() != nil || bytes.Contains(out, []byte("panic: test timed out")):
		return TimedOut, ""
	}
	if sm := failingTest.FindSubmatch(out); sm != nil {
		return Killed, string(sm[1])
	}
	// No test named (a panic outside a test, a failing TestMain): keep the end of the output, so
	// a kill that is not the mutant's doing (a timing-sensitive test on a loaded machine) shows.
	return Killed, tail(out, 5)
}

// goTest runs the package's tests once, failing fast, without vet (a mutant vet dislikes still
// tells whether the tests see it).
func goTest(ctx context.Context, cfg Config, pkg, overlay, run string, timeout time.Duration) ([]byte, error) {
	args := []string{"test", "-count=1", "-failfast", "-vet=off"}
	if overlay != "" {
		args = append(args, "-overlay="+overlay)
	}
	if timeout > 0 {
		args = append(args, "-timeout="+timeout.String())
	}
	if run != "" {
		args = append(args, "-run="+run)
	}
	if cfg.Short {
		args = append(args, "-short")
	}
	if cfg.Race {
		args = append(args, "-race")
	}
	args = append(args, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = cfg.Dir
	cmd.WaitDelay = 10 * time.Second
	return cmd.CombinedOutput()
}

// sample draws at most n results with a generator seeded by seed, and returns them in source
// order; n <= 0 keeps them all. The same inputs and seed always give the same sample.
func sample(all []Result, n int, seed uint64) []Result {
	if n <= 0 || n >= len(all) {
		return append([]Result(nil), all...)
	}
	idx := rand.New(rand.NewPCG(seed, 0x6d757461)).Perm(len(all))[:n]
	sort.Ints(idx)
	out := make([]Result, n)
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}

func matchesAny(globs []string, name string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := filepath.Match(g, name); ok {
			return true
		}
	}
	return false
}

func hasKind(kinds []Kind, k Kind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
