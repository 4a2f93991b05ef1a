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
	Timeout  time.Duration // per mutant; 0: three times the baseline plus 30 s
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
	Score           float64  `json:"score"` // killed / (killed + survived); 1 when nothing ran
	BaselineSeconds float64  `json:"baseline_seconds"`
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
	fmt.Fprintf(cfg.Log, "%s: baseline go test (%d of %d mutants to run)\n", p.ImportPath, len(chosen), len(all))
	if out, err := goTest(ctx, cfg, p.ImportPath, "", 0); err != nil {
		return nil, fmt.Errorf("the tests fail before any mutation: %w\n%s", err, tail(out, 30))
	}
	baseline := time.Since(start)
	pr.BaselineSeconds = baseline.Seconds()
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = 3*baseline + 30*time.Second
	}
	fmt.Fprintf(cfg.Log, "%s: baseline %.1fs, per-mutant timeout %s\n", p.ImportPath, baseline.Seconds(), timeout.Round(time.Second))

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
				r.Status, r.KilledBy = runMutant(ctx, cfg, p.ImportPath, tmp, i, fs, r.Mutant, timeout)
				r.Seconds = time.Since(t0).Round(100 * time.Millisecond).Seconds()
				mu.Lock()
				done++
				fmt.Fprintf(cfg.Log, "[%d/%d] %-10s %s:%d %s: %s (%.0fs)\n", done, len(chosen), r.Status, r.Path, r.Line, r.Kind, r.Mutated, r.Seconds)
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

func runMutant(ctx context.Context, cfg Config, pkg, tmp string, i int, fs fileSource, m Mutant, timeout time.Duration) (Status, string) {
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
	tctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second)
	defer cancel()
	out, err := goTest(tctx, cfg, pkg, overlay, timeout)
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
func goTest(ctx context.Context, cfg Config, pkg, overlay string, timeout time.Duration) ([]byte, error) {
	args := []string{"test", "-count=1", "-failfast", "-vet=off"}
	if overlay != "" {
		args = append(args, "-overlay="+overlay)
	}
	if timeout > 0 {
		args = append(args, "-timeout="+timeout.String())
	}
	if cfg.Run != "" {
		args = append(args, "-run="+cfg.Run)
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
