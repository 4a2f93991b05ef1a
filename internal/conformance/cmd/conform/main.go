// Command conform plays seeded scenarios through the platform's published matching engine
// (assignment-user-matcher on a private redis-server) and through the reference matcher, and
// exits non-zero when any scenario ends differently, printing the first differing decision of
// each failing family with the scenario shrunk to its smallest failing form.
//
//	(cd conformance && npm ci)
//	go run ./internal/conformance/cmd/conform -families all -n 40 -seed 1
//	go run ./internal/conformance/cmd/conform -replay failing.json
//	go run ./internal/conformance/cmd/conform -record internal/conformance/testdata/engine-traces.jsonl.gz -n 12 -record-steps 1000
//	go run ./internal/conformance/cmd/conform -bench-engine -bench-workers 10000 -bench-tasks 100000
//
// -bench-engine ends with one result line per timed case in the format of `go test -bench`
// (conformance.EngineBenchLines), which scripts/bench.sh's report reads.
//
// It needs node and redis-server on PATH; see conformance/README.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/conformance"
)

func main() {
	os.Exit(run())
}

func run() int {
	families := flag.String("families", "all", "comma-separated families, or all")
	n := flag.Int("n", 30, "scenarios per family")
	seed := flag.Uint64("seed", 1, "generator seed")
	budget := flag.Duration("budget", 0, "stop starting new scenarios in a family after this long (0: no limit)")
	shrinkCalls := flag.Int("shrink", 400, "engine plays the shrinker may spend per failing family (0: do not shrink)")
	reports := flag.Int("reports", 1, "failing scenarios shrunk and printed per family")
	shrinkTime := flag.Duration("shrink-time", 30*time.Second, "time the shrinker may spend per failing family")
	engineDir := flag.String("engine-dir", "conformance", "directory holding engine-player.mjs and node_modules")
	replay := flag.String("replay", "", "play one scenario from this JSON file (as printed after a divergence) and exit")
	twice := flag.Bool("engine-twice", false, "also play each scenario through the engine a second time and count the plays that differ")
	benchEngine := flag.Bool("bench-engine", false, "time the engine's match pass on the BenchmarkScale workload and exit")
	benchWorkers := flag.Int("bench-workers", 10_000, "workers for -bench-engine")
	benchTasks := flag.Int("bench-tasks", 100_000, "queued tasks for -bench-engine (beyond the workers' filled backlogs)")
	benchProbes := flag.Int("bench-probes", 5, "timed passes per case for -bench-engine")
	redisDefaults := flag.Bool("redis-defaults", false, "run Redis with its default listpack limits, as the platform may (ties between workers then follow hash order), and accept, on each player, a first divergence that is a tie its decisions disclosed")
	record := flag.String("record", "", "play the families' scenarios through the engine on the pinned Redis and write them with its traces to this file (gzip JSON lines) for the replay tests, instead of comparing")
	recordSteps := flag.Int("record-steps", 1000, "with -record: a family stops once its recorded scenarios hold this many steps (0: no limit)")
	benchFairness := flag.String("bench-fairness", conformance.PlatformFairness, "engine fairness for -bench-engine")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	redisArgs := conformance.RedisArgs
	if *benchEngine || *redisDefaults {
		redisArgs = conformance.TimingRedisArgs
	}
	r, err := conformance.Start(ctx, *engineDir, redisArgs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer r.Close()

	switch {
	case *benchEngine:
		return runBench(r, *benchWorkers, *benchTasks, *benchProbes, *benchFairness)
	case *replay != "":
		return runReplay(r, *replay, shrinkLimits{*shrinkCalls, *shrinkTime})
	}

	list := conformance.Families
	if *families != "all" {
		list = strings.Split(*families, ",")
	}
	if *record != "" {
		if *redisDefaults {
			fmt.Fprintln(os.Stderr, "conform: -record plays on the pinned Redis only (ties in hash order cannot be replayed); drop -redis-defaults")
			return 2
		}
		return runRecord(r, *record, filepath.Join(*engineDir, "package-lock.json"), list, *seed, *n, *recordSteps)
	}
	if *redisDefaults {
		return runTies(r, list, *seed, *n, *budget)
	}
	total := tally{byPlayer: make([]int, len(conformance.Players))}
	start := time.Now()
	for _, fam := range list {
		t, err := runFamily(r, fam, *seed, *n, *budget, shrinkLimits{*shrinkCalls, *shrinkTime}, *twice, *reports)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		total.played += t.played
		total.same += t.same
		total.unstable += t.unstable
		total.excused += t.excused
		for i := range t.byPlayer {
			total.byPlayer[i] += t.byPlayer[i]
		}
		total.explores = total.explores || t.explores
	}
	fmt.Printf("total time %s\n", time.Since(start).Round(time.Millisecond))
	what := "identical"
	if total.explores {
		what = "identical (exploring families: reproducible per seed)"
	}
	for i, p := range conformance.Players {
		fmt.Printf("conformance %-6s %d/%d %s\n", p.Name+":", total.byPlayer[i], total.played-total.excused, what)
	}
	// One closing line in the form CI logs are read for: scenarios identical (on every
	// player), scenarios not.
	fmt.Printf("conformance: %d passed, %d failed\n", total.same, total.played-total.same-total.excused)
	if total.excused > 0 {
		fmt.Printf("conformance: %d scenarios not counted: the engine did not repeat its own outcome\n", total.excused)
	}
	if total.played == 0 || total.same+total.excused < total.played || total.unstable > 0 {
		return 1
	}
	return 0
}

// tally counts a family's scenarios: played, identical on every player, identical by
// player (conformance.Players' order), those the engine played differently the second time
// (with -engine-twice: failures), and diverging ones the engine did not reproduce (without
// it: excused).
type tally struct {
	played, same, unstable, excused int
	byPlayer                        []int
	// explores: the family explores, so byPlayer counts scenarios each player repeated
	// per seed (and the server decided as the go player); explored counts, for the engine
	// and then each player, the scenarios whose exploration changed a decision.
	explores bool
	explored []int
}

// runFamily plays n scenarios of one family and reports, for each player, the share that
// ended identically to the engine.
func runFamily(r *conformance.Runner, family string, seed uint64, n int, budget time.Duration, shrink shrinkLimits, twice bool, reports int) (tally, error) {
	start := time.Now()
	t := tally{byPlayer: make([]int, len(conformance.Players)), explored: make([]int, len(conformance.Players)+1)}
	type failure struct {
		sc conformance.Scenario
		d  *conformance.Divergence
	}
	failures := make([][]failure, len(conformance.Players))
	for i := range n {
		if budget > 0 && time.Since(start) > budget {
			break
		}
		sc, err := conformance.Generate(family, seed, i)
		if err != nil {
			return t, err
		}
		if sc.Options.Explores() {
			// Exploration draws differ between the engine and the reference matcher:
			// each side must repeat itself per seed instead (conformance.CheckReproducible).
			rep, err := conformance.CheckReproducible(r, sc)
			if err != nil {
				return t, fmt.Errorf("%s: %w", sc.Name(), err)
			}
			t.played++
			t.explores = true
			if rep.Engine != nil {
				t.unstable++
				fmt.Printf("  %s: the engine decided differently on a second play with the same seed, %s\n  replay: %s\n", sc.Name(), rep.Engine, sc.JSON())
			}
			ok := rep.Engine == nil
			for p, d := range rep.Players {
				if d == nil {
					t.byPlayer[p]++
				} else {
					ok = false
					fmt.Printf("  %s (%s player): not reproducible per seed, %s\n  replay: %s\n", sc.Name(), conformance.Players[p].Name, d, sc.JSON())
				}
			}
			if ok {
				t.same++
			}
			for k, e := range rep.Explored {
				if e {
					t.explored[k]++
				}
			}
			continue
		}
		divs, err := conformance.CheckAll(r, sc)
		if err != nil {
			return t, fmt.Errorf("%s: %w", sc.Name(), err)
		}
		if twice {
			again, err := conformance.EngineRepeats(r, sc)
			if err != nil {
				return t, fmt.Errorf("%s: %w", sc.Name(), err)
			}
			if again != nil {
				t.unstable++
				fmt.Printf("  %s: the engine decided differently on a second play, %s\n", sc.Name(), again)
			}
		}
		t.played++
		differs := slices.ContainsFunc(divs, func(d *conformance.Divergence) bool { return d != nil })
		if differs && !twice {
			// A divergence counts only if the engine itself repeats: its first-come claims
			// race, and a scenario whose outcome the engine does not reproduce cannot be
			// held against the reference matcher (it is printed, and -engine-twice fails it).
			again, err := conformance.EngineRepeats(r, sc)
			if err != nil {
				return t, fmt.Errorf("%s: %w", sc.Name(), err)
			}
			if again != nil {
				t.excused++
				fmt.Printf("  %s: the engine decided differently on a second play, %s; not counted\n", sc.Name(), again)
				continue
			}
		}
		if !differs {
			t.same++
		}
		for p, d := range divs {
			if d == nil {
				t.byPlayer[p]++
			} else if len(failures[p]) < reports {
				failures[p] = append(failures[p], failure{sc, d})
			}
		}
	}
	counted := t.played - t.excused
	for p, pl := range conformance.Players {
		pct := 0.0
		if counted > 0 {
			pct = 100 * float64(t.byPlayer[p]) / float64(counted)
		}
		what := "identical"
		if t.explores {
			what = "reproducible per seed"
		}
		fmt.Printf("%-22s %-6s %4d/%-4d %s (%5.1f%%)  %s\n", family, pl.Name, t.byPlayer[p], counted, what, pct, time.Since(start).Round(time.Millisecond))
	}
	if t.explores {
		fmt.Printf("%-22s engine %4d/%-4d reproducible per seed; exploration changed a decision in %d (engine), %d (go), %d (server)\n",
			"", t.played-t.unstable, t.played, t.explored[0], t.explored[1], t.explored[2])
	}
	if twice {
		fmt.Printf("%-22s %4d/%-4d engine plays not reproducible\n", "", t.unstable, t.played)
	}
	if t.excused > 0 {
		fmt.Printf("%-22s %4d/%-4d not counted: the engine did not repeat its own outcome\n", "", t.excused, t.played)
	}
	for p, fs := range failures {
		for _, f := range fs {
			report(r, conformance.Players[p], f.sc, f.d, shrink)
		}
	}
	return t, nil
}

// runTies plays the families on Redis's defaults against every player: a scenario passes
// on a player when it is identical, or when its first divergence is a tie that player's
// decisions disclosed (conformance.CheckTiesAll; the steps after it are not compared).
func runTies(r *conformance.Runner, families []string, seed uint64, n int, budget time.Duration) int {
	type count struct{ same, ties int }
	var played, passed int
	totals := make([]count, len(conformance.Players))
	for _, fam := range families {
		start := time.Now()
		p := 0
		counts := make([]count, len(conformance.Players))
		for i := range n {
			if budget > 0 && time.Since(start) > budget {
				break
			}
			sc, err := conformance.Generate(fam, seed, i)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			if sc.Options.Explores() {
				// Not compared with the engine on either Redis (conformance.CheckReproducible).
				break
			}
			checks, err := conformance.CheckTiesAll(r, sc)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", sc.Name(), err)
				return 2
			}
			p++
			ok := true
			for k, c := range checks {
				switch {
				case c.D == nil:
					counts[k].same++
				case c.Tie:
					counts[k].ties++
				default:
					ok = false
					fmt.Printf("  %s (Redis defaults, %s player): %s\n  replay: %s\n", sc.Name(), conformance.Players[k].Name, c.D, sc.JSON())
				}
			}
			if ok {
				passed++
			}
		}
		if p == 0 {
			fmt.Printf("%-22s not compared with the engine (it explores)\n", fam)
			continue
		}
		for k, pl := range conformance.Players {
			c := counts[k]
			fmt.Printf("%-22s %-6s %4d/%-4d identical, %4d a disclosed tie first, %4d other  %s\n", fam, pl.Name, c.same, p, c.ties, p-c.same-c.ties, time.Since(start).Round(time.Millisecond))
			totals[k].same += c.same
			totals[k].ties += c.ties
		}
		played += p
	}
	for k, pl := range conformance.Players {
		c := totals[k]
		fmt.Printf("conformance (Redis defaults) %-7s %d/%d within the disclosed ties (%d identical)\n", pl.Name+":", c.same+c.ties, played, c.same)
	}
	fmt.Printf("conformance (Redis defaults): %d passed, %d failed\n", passed, played-passed)
	if played == 0 || passed < played {
		return 1
	}
	return 0
}

// shrinkLimits bound the shrinker per failing family: engine plays and time.
type shrinkLimits struct {
	calls int
	time  time.Duration
}

func report(r *conformance.Runner, p conformance.Player, sc conformance.Scenario, d *conformance.Divergence, shrink shrinkLimits) {
	small, sd := sc, d
	if shrink.calls > 0 {
		if s, dd := conformance.ShrinkDivergence(r, sc, p, shrink.calls, shrink.time); dd != nil {
			small, sd = s, dd
		}
	}
	fmt.Printf("  divergence of %s (%s player), shrunk from %d to %d steps:\n", sc.Name(), p.Name, len(sc.Steps), len(small.Steps))
	for _, line := range strings.Split(strings.TrimRight(small.String(), "\n"), "\n") {
		fmt.Println("  " + line)
	}
	fmt.Println("  " + sd.String())
	fmt.Println("  replay: " + small.JSON())
}

// runRecord writes the engine's traces of the families' scenarios to path, through a
// temporary file beside it, so a failed run leaves the old recording in place.
func runRecord(r *conformance.Runner, path, lockfile string, families []string, seed uint64, n, maxSteps int) int {
	version, err := conformance.PinnedEngineVersion(lockfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	start := time.Now()
	recs, skips, err := conformance.Record(r, version, families, seed, n, maxSteps)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for _, s := range skips {
		fmt.Printf("  %s not recorded: %s\n", s.Name, s.Why)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".record-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.Remove(f.Name())
	if err := conformance.WriteRecordings(f, recs); err != nil {
		f.Close()
		fmt.Fprintln(os.Stderr, "conform: writing", path+":", err)
		return 2
	}
	if err := errors.Join(f.Chmod(0o644), f.Close()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := os.Rename(f.Name(), path); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	steps := 0
	for _, rec := range recs {
		steps += len(rec.Scenario.Steps)
	}
	fmt.Printf("recorded %d scenarios (%d steps) of %d families, %s %s, seed %d, in %s: %s\n",
		len(recs), steps, len(families), conformance.EnginePackage, version, seed, time.Since(start).Round(time.Millisecond), path)
	return 0
}

func runReplay(r *conformance.Runner, path string, shrink shrinkLimits) int {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var sc conformance.Scenario
	if err := json.Unmarshal(b, &sc); err != nil {
		fmt.Fprintln(os.Stderr, "conform: reading the scenario:", err)
		return 2
	}
	if sc.Options.Explores() {
		return replayExplore(r, sc)
	}
	engine, err := r.PlayEngine(sc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	traces := make([][]conformance.StepTrace, len(conformance.Players))
	for i, p := range conformance.Players {
		if traces[i], err = p.Play(sc); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	fmt.Print(sc.String())
	for i := range sc.Steps {
		fmt.Printf("  step %3d engine: %s\n", i+1, at(engine, i))
		for p, pl := range conformance.Players {
			fmt.Printf("           %-7s %s\n", pl.Name+":", at(traces[p], i))
		}
	}
	code := 0
	for p, pl := range conformance.Players {
		if d := conformance.Compare(engine, traces[p]); d != nil {
			report(r, pl, sc, d, shrink)
			code = 1
		}
	}
	if code == 0 {
		fmt.Println("identical")
	}
	return code
}

// replayExplore checks an exploring scenario as runFamily does: each side repeats itself per
// seed, and the server decides as the go player; it is not compared with the engine.
func replayExplore(r *conformance.Runner, sc conformance.Scenario) int {
	rep, err := conformance.CheckReproducible(r, sc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Print(sc.String())
	fmt.Println("  exploring: each side is played twice with the seed, not compared with the engine")
	code := 0
	if rep.Engine != nil {
		fmt.Printf("  engine: not reproducible per seed, %s\n", rep.Engine)
		code = 1
	}
	for p, d := range rep.Players {
		if d != nil {
			fmt.Printf("  %s player: not reproducible per seed, %s\n", conformance.Players[p].Name, d)
			code = 1
		}
	}
	if code == 0 {
		fmt.Println("reproducible")
	}
	return code
}

func at(t []conformance.StepTrace, i int) string {
	if i < len(t) {
		return t[i].String()
	}
	return "(no step)"
}

func runBench(r *conformance.Runner, workers, queued, probes int, fairness string) int {
	req, err := conformance.NewBenchRequest(workers, queued, probes, fairness)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Printf("engine timing: %d workers, %d tasks created (%d to stay queued), fairness %s\n",
		workers, len(req.Tasks), queued, req.Options.Fairness)
	res, err := r.TimeEngine(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Printf("  load (register workers, create tasks): %.0f ms\n", res.LoadMs)
	held := 0
	for _, ids := range req.Holds {
		held += len(ids)
	}
	fmt.Printf("  fill (%d offers of the benchmark's loading, by assignToUser): %.0f ms\n", held, res.FillMs)
	fmt.Printf("  queued after filling: %d\n", res.Queued)
	fmt.Printf("  create-and-match (addAssignment + one match pass): %s\n", formatMs(res.CreateAndMatchMs))
	fmt.Printf("  free-capacity (acceptAssignment + one match pass): %s\n", formatMs(res.FreeCapacityMs))
	// The same figures once more in `go test -bench` form, for scripts/bench.sh's report.
	for _, l := range conformance.EngineBenchLines(workers, queued, req.Options.Fairness, res) {
		fmt.Println(l)
	}
	return 0
}

// formatMs prints samples with their median and maximum.
func formatMs(v []float64) string {
	if len(v) == 0 {
		return "no samples"
	}
	s := slices.Clone(v)
	slices.Sort(s)
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("p50 %.0f ms, max %.0f ms (samples %s)", s[len(s)/2], s[len(s)-1], strings.Join(parts, " "))
}
