package mutation

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// block is one block of a coverage profile: the source from start to end (end exclusive) of
// one file, named as the profile names it (import path/file name).
type block struct {
	File                string
	StartLine, StartCol int
	EndLine, EndCol     int
}

// contains reports whether the position line:col lies in b.
func (b block) contains(line, col int) bool {
	after := line > b.StartLine || line == b.StartLine && col >= b.StartCol
	before := line < b.EndLine || line == b.EndLine && col < b.EndCol
	return after && before
}

// parseProfile reads a coverage profile (go test -coverprofile) and returns every block in it
// with whether it ran. A block listed more than once ran if it ran in any listing.
func parseProfile(r io.Reader) (map[block]bool, error) {
	out := map[block]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if !strings.HasPrefix(line, "mode: ") {
				return nil, fmt.Errorf("coverage profile: first line %q is not a mode", line)
			}
			continue
		}
		if line == "" {
			continue
		}
		// file.go:startLine.startCol,endLine.endCol statements count; the file name may
		// hold a colon, the rest cannot.
		colon := strings.LastIndexByte(line, ':')
		fields := strings.Fields(line[colon+1:])
		if colon < 0 || len(fields) != 3 {
			return nil, fmt.Errorf("coverage profile: unreadable line %q", line)
		}
		b := block{File: line[:colon]}
		from, to, ok := strings.Cut(fields[0], ",")
		if !ok || !lineCol(from, &b.StartLine, &b.StartCol) || !lineCol(to, &b.EndLine, &b.EndCol) {
			return nil, fmt.Errorf("coverage profile: unreadable line %q", line)
		}
		count, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, fmt.Errorf("coverage profile: unreadable line %q", line)
		}
		out[b] = out[b] || count > 0
	}
	return out, sc.Err()
}

func lineCol(s string, line, col *int) bool {
	l, c, ok := strings.Cut(s, ".")
	var err1, err2 error
	*line, err1 = strconv.Atoi(l)
	*col, err2 = strconv.Atoi(c)
	return ok && err1 == nil && err2 == nil
}

// testCoverage is what the baseline learned about a package's tests: which blocks each
// top-level test covers when run alone, which the whole suite covers, and how long each test
// took.
type testCoverage struct {
	Tests   []string        // top-level tests, examples and fuzz targets, in listing order
	Seconds []float64       // per test, its run alone
	Covered map[block][]int // per block, the indexes of the tests that ran it
	Suite   map[block]bool  // the blocks of the profile of the whole suite, and whether they ran
}

// selection is the tests a mutant needs.
type selection struct {
	All     bool     // run the whole suite: the position is in no block, or coverage alone cannot tell
	Tests   []string // otherwise these tests (none: no test reaches the mutant)
	Seconds float64  // their summed durations
}

// selectFor returns the tests whose coverage holds the block containing the position line:col
// of file (the profile's name of it). Should blocks nest, the innermost is the one that runs
// the code there; go's coverage splits the statement around a function literal's body today.
func (c *testCoverage) selectFor(file string, line, col int) selection {
	var in block
	found := false
	for b := range c.Suite {
		if b.File != file || !b.contains(line, col) {
			continue
		}
		if !found || in.contains(b.StartLine, b.StartCol) && b != in {
			in, found = b, true
		}
	}
	if !found {
		// Package-level declarations and whatever the coverage tool does not instrument.
		return selection{All: true}
	}
	idx := c.Covered[in]
	if (len(idx) > 0) != c.Suite[in] {
		// The whole suite and the tests alone disagree on whether the block runs: it depends
		// on state a test leaves behind for the next (a cache, a flag, a sync.Once) or on
		// timing (a goroutine). The whole suite is what the verdict must agree with.
		return selection{All: true}
	}
	sel := selection{Tests: []string{}}
	for _, i := range idx {
		sel.Tests = append(sel.Tests, c.Tests[i])
		sel.Seconds += c.Seconds[i]
	}
	return sel
}

// runPattern is the go test -run pattern matching exactly the given top-level tests.
func runPattern(tests []string) string {
	quoted := make([]string, len(tests))
	for i, t := range tests {
		quoted[i] = regexp.QuoteMeta(t)
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}

// errNoSelection says why a package's mutants run the whole suite each.
type errNoSelection struct{ reason string }

func (e errNoSelection) Error() string { return e.reason }

// baseline runs the package's tests unmutated; they must pass. With selection it measures the
// coverage of each test (measureCoverage); without, or when selection is not sound for the
// package (said on the log), it runs go test once as each mutant will. It returns the coverage
// (nil: every mutant runs the whole suite) and the time of one whole-suite run with its build.
func baseline(ctx context.Context, cfg Config, p pkgInfo, tmp string, chosen, all int) (*testCoverage, time.Duration, error) {
	suite := time.Duration(0)
	if !cfg.AllTests {
		fmt.Fprintf(cfg.Log, "%s: baseline: the suite, then each test alone, with coverage (%d of %d mutants to run)\n", p.ImportPath, chosen, all)
		cov, d, err := measureCoverage(ctx, cfg, p, tmp)
		var no errNoSelection
		if !errors.As(err, &no) {
			return cov, d, err
		}
		fmt.Fprintf(cfg.Log, "%s: every mutant runs the whole suite (no test selection): %s\n", p.ImportPath, no.reason)
		suite = d
	} else {
		fmt.Fprintf(cfg.Log, "%s: baseline go test (%d of %d mutants to run)\n", p.ImportPath, chosen, all)
	}
	if suite == 0 {
		start := time.Now()
		if out, err := goTest(ctx, cfg, p.ImportPath, "", cfg.Run, 0); err != nil {
			return nil, 0, fmt.Errorf("the tests fail before any mutation: %w\n%s", err, tail(out, 30))
		}
		suite = time.Since(start)
	}
	return nil, suite, nil
}

// measureCoverage builds the package's test binary with coverage of the package, runs the
// whole suite once (it must pass), lists the top-level tests and runs each alone with its own
// coverage profile. It returns the time of the build plus the whole suite (the timeout of a
// mutant that runs everything derives from it, as without selection), and an errNoSelection
// when the tests cannot be selected soundly (with that time if the suite ran).
func measureCoverage(ctx context.Context, cfg Config, p pkgInfo, tmp string) (*testCoverage, time.Duration, error) {
	if strings.Contains(cfg.Run, "/") {
		// A subtest pattern cannot be combined with a list of top-level names.
		return nil, 0, errNoSelection{"-run names subtests"}
	}
	dir := filepath.Join(tmp, "cover")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, 0, err
	}
	bin := filepath.Join(dir, "pkg.test")
	mode := "set"
	if cfg.Race {
		mode = "atomic" // go test accepts no other mode with -race
	}
	args := []string{"test", "-c", "-vet=off", "-cover", "-covermode=" + mode, "-coverpkg=" + p.ImportPath, "-o", bin}
	if cfg.Race {
		args = append(args, "-race")
	}
	start := time.Now()
	if _, err := goCmd(ctx, cfg.Dir, append(args, p.ImportPath)...); err != nil {
		return nil, 0, err
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, 0, errNoSelection{"the package has no test files"}
	}
	suiteProfile := filepath.Join(dir, "suite.out")
	if out, err := runTestBinary(ctx, cfg, p.Dir, bin, cfg.Run, suiteProfile); err != nil {
		return nil, 0, fmt.Errorf("the tests fail before any mutation: %w\n%s", err, tail(out, 30))
	}
	suiteTime := time.Since(start)
	cov := &testCoverage{Covered: map[block][]int{}}
	var err error
	if cov.Suite, err = readProfile(suiteProfile); err != nil {
		return nil, 0, err
	}
	list := cfg.Run
	if list == "" {
		list = "."
	}
	cmd := exec.CommandContext(ctx, bin, "-test.list="+list)
	cmd.Dir = p.Dir
	out, err := cmd.Output()
	if err != nil {
		return nil, 0, fmt.Errorf("%s -test.list: %w", bin, err)
	}
	for _, name := range strings.Fields(string(out)) {
		if !strings.HasPrefix(name, "Benchmark") { // -test.list names benchmarks too; -run never runs them
			cov.Tests = append(cov.Tests, name)
		}
	}
	cov.Seconds = make([]float64, len(cov.Tests))
	profiles := make([]map[block]bool, len(cov.Tests))
	failed := make([]string, len(cov.Tests))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < cfg.Jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				prof := filepath.Join(dir, fmt.Sprintf("%d.out", i))
				// A second try tells a test that needs another's state (it fails again)
				// from one that failed once on a loaded machine.
				for try := 0; try < 2; try++ {
					t0 := time.Now()
					out, err := runTestBinary(ctx, cfg, p.Dir, bin, runPattern(cov.Tests[i:i+1]), prof)
					cov.Seconds[i] = time.Since(t0).Seconds()
					if err == nil {
						profiles[i], err = readProfile(prof)
					}
					failed[i] = ""
					if err == nil {
						break
					}
					failed[i] = fmt.Sprintf("%s fails alone: %v\n%s", cov.Tests[i], err, tail(out, 10))
				}
			}
		}()
	}
	for i := range cov.Tests {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return nil, 0, ctx.Err()
	}
	for i, f := range failed {
		if f != "" {
			return nil, suiteTime, errNoSelection{f}
		}
		for b, ran := range profiles[i] {
			if ran {
				cov.Covered[b] = append(cov.Covered[b], i)
			}
		}
	}
	return cov, suiteTime, nil
}

func readProfile(name string) (map[block]bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer os.Remove(name)
	return parseProfile(f)
}

// runTestBinary runs a test binary built by go test -c in the package's directory, as go test
// would, writing a coverage profile.
func runTestBinary(ctx context.Context, cfg Config, pkgDir, bin, run, profile string) ([]byte, error) {
	args := []string{"-test.count=1", "-test.paniconexit0", "-test.coverprofile=" + profile}
	if run != "" {
		args = append(args, "-test.run="+run)
	}
	if cfg.Short {
		args = append(args, "-test.short")
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = 10 * time.Minute // go test's default
	}
	args = append(args, "-test.timeout="+timeout.String())
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = pkgDir
	cmd.WaitDelay = 10 * time.Second
	return cmd.CombinedOutput()
}
