package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/taskrouting/taskrouting-go/migrate/taskrouter"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/gen"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/plan"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/shadow"
)

// errUsage is a command line that names no known verb; the usage was printed.
var errUsage = errors.New("usage")

const usage = `usage:
  taskrouter-migrate plan     -workspace PATH [-out DIR] [-at TIME] [-json] [-strict]
  taskrouter-migrate shadow   -workspace PATH -events PATH [-at TIME] [-shards N] [-json] [-quiet] [-strict] [-list N]
  taskrouter-migrate expr     [-scope worker|task] [-task PATH] [-worker PATH] [-at TIME] [-json] EXPRESSION [PATH]
  taskrouter-migrate generate -out DIR [-workers N] [-queues N] [-events N] [-seed N]
  taskrouter-migrate -version
run a verb with -h for its flags`

// run is the command; now gives the default of -at (the time queue expressions that read
// the time of day are evaluated at).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "plan":
		return runPlan(ctx, args[1:], stdout, stderr, now)
	case "shadow":
		return runShadow(ctx, args[1:], stdout, stderr, now)
	case "generate":
		return runGenerate(args[1:], stdout, stderr)
	case "expr":
		return runExpr(args[1:], stdout, stderr, now)
	case "-version", "--version", "version":
		fmt.Fprintln(stdout, versionString())
		return nil
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "unknown verb %q\n%s\n", args[0], usage)
	return errUsage
}

// planFlags are the flags plan and shadow share.
type planFlags struct {
	workspace string
	at        string
	json      bool
	strict    bool
}

func (pf *planFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&pf.workspace, "workspace", "", "workspace export: a JSON file with workers, task_queues, workflows, activities, or a directory of the four list answers (required)")
	fs.StringVar(&pf.at, "at", "", "time (RFC 3339) at which queue expressions reading the time of day are evaluated; default now")
	fs.BoolVar(&pf.json, "json", false, "print the JSON report instead of the text one")
	fs.BoolVar(&pf.strict, "strict", false, "after the report, exit 1 when an expression does not parse, a queue selects no worker, or an export is empty")
}

// load reads the workspace and builds the verified plan.
func (pf *planFlags) load(ctx context.Context, now func() time.Time) (*taskrouter.Workspace, *plan.Plan, []shadow.Mismatch, error) {
	if pf.workspace == "" {
		return nil, nil, nil, fmt.Errorf("%w: -workspace is required", errFlags)
	}
	at := now()
	if pf.at != "" {
		t, err := time.Parse(time.RFC3339, pf.at)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: -at %q is not an RFC 3339 time", errFlags, pf.at)
		}
		at = t
	}
	ws, err := taskrouter.ReadWorkspace(pf.workspace)
	if err != nil {
		return nil, nil, nil, err
	}
	p, fell, err := shadow.PlanVerified(ctx, ws, plan.Options{Now: at})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("verify the plan against the mock server: %w", err)
	}
	return ws, p, fell, nil
}

// errFlags is a flag value that is missing or wrong.
var errFlags = errors.New("bad flags")

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("taskrouter-migrate "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errFlags, fs.Arg(0))
	}
	return nil
}

func runPlan(ctx context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) error {
	fs := newFlagSet("plan", stderr)
	var pf planFlags
	pf.register(fs)
	out := fs.String("out", "", "directory to write workers.json and mapping.json to (created if missing)")
	if err := parse(fs, args); err != nil {
		return err
	}
	ws, p, fell, err := pf.load(ctx, now)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := writePlan(*out, p); err != nil {
			return err
		}
	}
	if pf.json {
		b, err := p.MappingJSON()
		if err != nil {
			return err
		}
		if _, err = fmt.Fprintf(stdout, "%s\n", b); err != nil {
			return err
		}
		return pf.checkStrict(ws, p)
	}
	if err := p.WriteReport(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nchecked against the mock server's default matching rules: %d of %d segments needed one queue tag instead of skill tags\n", len(fell), len(p.Segments))
	if *out != "" {
		fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(*out, "workers.json"), filepath.Join(*out, "mapping.json"))
	}
	return pf.checkStrict(ws, p)
}

func writePlan(dir string, p *plan.Plan) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	workers, err := p.WorkersJSON()
	if err != nil {
		return err
	}
	mapping, err := p.MappingJSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "workers.json"), append(workers, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "mapping.json"), append(mapping, '\n'), 0o644)
}

// shadowJSON is shadow's -json report.
type shadowJSON struct {
	Plan struct {
		Summary   []plan.KindSummary `json:"summary"`
		Findings  []plan.Finding     `json:"findings"`
		Fallbacks []shadow.Mismatch  `json:"skillTermsFallbacks"`
	} `json:"plan"`
	Shadow *shadow.Report `json:"shadow"`
}

func runShadow(ctx context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) error {
	fs := newFlagSet("shadow", stderr)
	var pf planFlags
	pf.register(fs)
	events := fs.String("events", "", "event export: JSON lines of Event resources, a JSON array, or Events list pages, in time order (required)")
	shards := fs.Int("shards", 0, "mock servers comparing side by side, 0 to the CPU count; 0: one per CPU (at most 8); above the CPU count: the CPU count, with a note")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	list := fs.Int("list", 20, "disagreements the text report lists, with the reasons on both sides; -1: all (-json lists every reservation)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *events == "" {
		return fmt.Errorf("%w: -events is required", errFlags)
	}
	if *shards < 0 {
		return fmt.Errorf("%w: -shards %d is negative", errFlags, *shards)
	}
	// Each shard is an in-process mock server holding every worker and keeps one CPU busy:
	// past the CPU count more shards only add their setup (the result does not change).
	if cpus := runtime.GOMAXPROCS(0); *shards > cpus {
		fmt.Fprintf(stderr, "note: -shards %d: using %d, one per CPU (more shards do not make it faster)\n", *shards, cpus)
		*shards = cpus
	}
	ws, p, fell, err := pf.load(ctx, now)
	if err != nil {
		return err
	}
	f, err := os.Open(*events)
	if err != nil {
		return err
	}
	defer f.Close()
	var empty []string
	opts := shadow.Options{Shards: *shards}
	began := time.Now()
	if !*quiet {
		opts.Progress = progressPrinter(stderr, began)
	}
	rep, err := shadow.Replay(ctx, ws, p, f, opts)
	if err != nil {
		return taskrouter.NameFile(err, *events)
	}
	if !*quiet {
		fmt.Fprintf(stderr, "replayed %d events, compared %d reservations in %s\n", rep.Events, rep.Overall.Reservations, time.Since(began).Round(time.Millisecond))
	}
	if rep.Events == 0 {
		empty = append(empty, *events+": no events")
		fmt.Fprintf(stderr, "warning: %s holds no events: nothing was compared\n", *events)
	}
	if pf.json {
		var out shadowJSON
		out.Plan.Summary, out.Plan.Findings, out.Plan.Fallbacks, out.Shadow = p.Summary(), p.Findings, fell, rep
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		if _, err = fmt.Fprintf(stdout, "%s\n", b); err != nil {
			return err
		}
		return pf.checkStrict(ws, p, empty...)
	}
	if len(p.Findings) > 0 {
		fmt.Fprintln(stdout, "plan: not translated")
		for _, k := range p.Summary() {
			fmt.Fprintf(stdout, "  %s: %d findings, %d queues, %d workers affected\n", k.Kind, k.Findings, k.Queues, k.Workers)
		}
		fmt.Fprintln(stdout)
	}
	if err := rep.WriteDisagreements(stdout, *list); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if err := rep.WriteSummary(stdout); err != nil {
		return err
	}
	return pf.checkStrict(ws, p, empty...)
}

// progressPrinter prints a replay's progress on w: while the export is read, the events
// read so far; then the reservations compared, with the time since began.
func progressPrinter(w io.Writer, began time.Time) func(shadow.Progress) {
	return func(pr shadow.Progress) {
		if pr.Reservations == 0 {
			fmt.Fprintf(w, "read %d events (up to %s)\n", pr.Events, pr.At.Format(time.RFC3339))
			return
		}
		fmt.Fprintf(w, "compared %d of %d reservations (%s)\n", pr.Compared, pr.Reservations, time.Since(began).Round(time.Second))
	}
}

func runGenerate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("generate", stderr)
	out := fs.String("out", "", "directory to write workspace.json and events.jsonl to (required)")
	workers := fs.Int("workers", 240, "workers (at least 40)")
	queues := fs.Int("queues", 30, "task queues (at least 30; the workflows route to the first 30)")
	events := fs.Int("events", 100_000, "events")
	seed := fs.Uint64("seed", 1, "seed: the same seed gives the same files")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%w: -out is required", errFlags)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	cfg := gen.Config{Seed: *seed, Workers: *workers, Queues: *queues, Events: *events}
	if err := os.WriteFile(filepath.Join(*out, "workspace.json"), gen.Workspace(cfg), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(*out, "events.jsonl"))
	if err != nil {
		return err
	}
	if err := gen.Events(cfg, f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(*out, "workspace.json"), filepath.Join(*out, "events.jsonl"))
	return nil
}
