// Command mutate breaks the rules of a package on purpose, one at a time, and reports the
// breaks its tests did not notice (survivors). See package internal/mutation for the kinds of
// mutant and how they are run, and CONTRIBUTING.md for when to run it.
//
// From the repository root:
//
//	nice -n 10 go run ./internal/mutation/cmd/mutate -pkg ./webhook
//	nice -n 10 go run ./internal/mutation/cmd/mutate -pkg ./internal/match -sample 60 -seed 1
//	nice -n 10 go run ./internal/mutation/cmd/mutate -pkg ./... -diff main
//
// It prints one line per mutant as it goes (on stderr), then per package the counts and score
// and every survivor as path:line with the mutated line (on stdout). -json FILE writes the
// whole report. The exit status is 0 when the run completed, whatever the score; 1 on an error
// (including tests that fail before any mutation); 2 on bad flags.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/mutation"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg     mutation.Config
		pkgs    = fs.String("pkg", "", "package patterns to mutate, comma-separated (./webhook,./migrate/...)")
		files   = fs.String("files", "", "only files whose base name matches one of these comma-separated globs")
		kinds   = fs.String("kinds", "", "only these kinds, comma-separated (boundary,equality,swap,logical,negate-if,drop-if,drop-call,const+1,const-1,arithmetic,incdec)")
		jsonOut = fs.String("json", "", "write the whole report as JSON to this file")
		quiet   = fs.Bool("q", false, "no progress lines")
	)
	fs.StringVar(&cfg.Dir, "C", ".", "run in this directory (a worktree of the module)")
	fs.StringVar(&cfg.Diff, "diff", "", "only lines changed since the merge base with this git revision, plus untracked files")
	fs.IntVar(&cfg.Sample, "sample", 0, "at most this many mutants per package, drawn with -seed (0: all)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the sample")
	fs.IntVar(&cfg.Jobs, "j", 1, "mutants tested at once")
	fs.StringVar(&cfg.Run, "run", "", "go test -run pattern")
	fs.BoolVar(&cfg.Short, "short", false, "go test -short")
	fs.BoolVar(&cfg.Race, "race", false, "go test -race (slower; a mutant is rarely caught only by it)")
	fs.DurationVar(&cfg.Timeout, "timeout", 0, "per-mutant timeout (0: three times the baseline run, or the selected tests' run, plus 30s)")
	fs.BoolVar(&cfg.AllTests, "all-tests", false, "run the whole suite for every mutant, not only the tests whose coverage reaches it")
	fs.BoolVar(&cfg.ListOnly, "list", false, "list the mutants that would run, run nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *pkgs == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "mutate: -pkg is required, and there are no positional arguments")
		return 2
	}
	cfg.Packages = split(*pkgs)
	cfg.Files = split(*files)
	for _, k := range split(*kinds) {
		cfg.Kinds = append(cfg.Kinds, mutation.Kind(k))
	}
	if !*quiet {
		cfg.Log = stderr
	}
	start := time.Now()
	rep, err := mutation.Run(ctx, cfg)
	if rep != nil {
		printReport(stdout, rep, cfg.ListOnly, time.Since(start))
		if *jsonOut != "" {
			b, _ := json.MarshalIndent(rep, "", "  ")
			if werr := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); werr != nil {
				fmt.Fprintln(stderr, "mutate:", werr)
				return 1
			}
		}
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "mutate: interrupted; the counts above cover the mutants that ran")
		} else {
			fmt.Fprintln(stderr, "mutate:", err)
		}
		return 1
	}
	return 0
}

func printReport(w io.Writer, rep *mutation.Report, list bool, took time.Duration) {
	for _, p := range rep.Packages {
		if list {
			fmt.Fprintf(w, "%s: %d mutants, %d chosen\n", p.Package, p.Enumerated, p.Sampled)
			for _, r := range p.Results {
				fmt.Fprintf(w, "  %s:%d: %s: %s\n", r.Path, r.Line, r.Kind, r.Mutated)
			}
			continue
		}
		partial := ""
		if p.Partial {
			partial = " (interrupted)"
		}
		tests := "covering tests only"
		if !p.Selection {
			tests = "all tests per mutant"
		}
		fmt.Fprintf(w, "%s: %d of %d mutants run%s: killed %d (timed out %d), survived %d (not covered %d), not viable %d; score %.1f%%; baseline %.1fs, %s\n",
			p.Package, len(p.Results), p.Enumerated, partial, p.Killed, p.TimedOut, p.Survived, p.NotCovered, p.NotViable, 100*p.Score, p.BaselineSeconds, tests)
		for _, r := range p.Results {
			if r.Status == mutation.Survived {
				status := "survived"
				if r.NotCovered {
					status = "survived (not covered)"
				}
				fmt.Fprintf(w, "  %s %s:%d: %s: %s\n", status, r.Path, r.Line, r.Kind, r.Mutated)
			}
		}
	}
	if !list {
		fmt.Fprintf(w, "took %s\n", took.Round(time.Second))
	}
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
