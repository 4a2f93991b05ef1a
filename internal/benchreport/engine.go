package main

import (
	"fmt"
	"slices"
	"strings"
)

// The platform's engine (assignment-user-matcher on Redis) is timed in the same run by
// `conform -bench-engine`, which prints its results as benchmark lines named
// BenchmarkEngine/SIZE/FAIRNESS/CASE with p50-µs and max-µs (conformance.EngineBenchLines).
// SIZE is spelled as BenchmarkScale's, so a ratio is computed only when both ran the same
// workload.
const (
	enginePrefix = "BenchmarkEngine/"
	engineSize   = "10k-workers-100k-tasks"
	// engineFairness is the engine's mode that the platform rules reproduce
	// (conformance.PlatformFairness); other modes timed in the run get rows of their own.
	engineFairness = "best-match"
	// engineFlag marks the engine's command among the commands of the log.
	engineFlag = "-bench-engine"
)

// engineCases are the cases both sides time: a create that waits (every worker full) and an
// accept that frees one slot, each followed by the match it causes.
var engineCases = []string{"create-and-match", "free-capacity"}

// platformTargetRows are the latency bar of the matcher under the platform rules at one
// size; the matcher section judges them and the engine section shows the same verdicts.
func platformTargetRows(prefix string, p50, p99 *bound) []row {
	return latencyRows(prefix+rulesPlatform, "platform rules", engineCases, p50, p99)
}

// engineFairnesses lists the fairness modes timed at size, the platform's first.
func engineFairnesses(r *results, size string) []string {
	var modes []string
	for name := range r.samples {
		rest, ok := strings.CutPrefix(name, enginePrefix+size+"/")
		if !ok {
			continue
		}
		if mode, _, ok := strings.Cut(rest, "/"); ok && !slices.Contains(modes, mode) {
			modes = append(modes, mode)
		}
	}
	slices.SortFunc(modes, func(a, b string) int {
		if (a == engineFairness) != (b == engineFairness) {
			if a == engineFairness {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return modes
}

// engineSizes lists the workloads the engine was timed on, whatever their size.
func engineSizes(r *results) []string {
	var sizes []string
	for name := range r.samples {
		if rest, ok := strings.CutPrefix(name, enginePrefix); ok {
			if size, _, ok := strings.Cut(rest, "/"); ok && !slices.Contains(sizes, size) {
				sizes = append(sizes, size)
			}
		}
	}
	slices.Sort(sizes)
	return sizes
}

// latency prints microseconds, as milliseconds from 1,000 µs on.
func latency(us float64) string {
	if us >= 1000 {
		return num(us/1000) + " ms"
	}
	return num(us) + " µs"
}

// times prints how many times slower the engine is: "N× faster" for the matcher.
func times(engine, matcher float64) string {
	switch {
	case matcher <= 0 || engine <= 0:
		return "—"
	case engine >= matcher:
		return num(engine/matcher) + "× faster"
	}
	return num(matcher/engine) + "× slower"
}

// engineTable compares the matcher under the platform rules with the engine on the same
// workload: one row per case and engine fairness, the matcher's latency bar beside them.
func engineTable(r *results) string {
	var b strings.Builder
	b.WriteString("| 10,000 workers, 100,000 queued tasks | Engine fairness | Matcher p50 / p99 | Matcher latency bar | Engine p50 / max | Engine / matcher, p50 | Engine max / matcher p99 |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	targets := platformTargetRows(matchPrefix10k, atMost(20), atMost(100))
	modes := engineFairnesses(r, engineSize)
	missing := "not timed"
	if len(modes) == 0 {
		modes = []string{""}
		if len(engineSizes(r)) > 0 {
			missing = "other workload, below"
		}
	}
	for _, mode := range modes {
		for i, c := range engineCases {
			matcher, bar := "not run", "not run"
			p50, ok1 := median(r, matchPrefix10k+rulesPlatform+c, "p50-µs")
			p99, ok2 := median(r, matchPrefix10k+rulesPlatform+c, "p99-µs")
			if ok1 && ok2 {
				matcher = latency(p50) + " / " + latency(p99)
			}
			if v50, v99 := evaluate(r, targets[2*i]), evaluate(r, targets[2*i+1]); v50.ran || v99.ran {
				bar = "p50 " + v50.result + ", p99 " + v99.result
			}
			engine, ratio50, ratioTail := missing, "—", "—"
			e50, ok3 := median(r, enginePrefix+engineSize+"/"+mode+"/"+c, "p50-µs")
			eMax, ok4 := median(r, enginePrefix+engineSize+"/"+mode+"/"+c, "max-µs")
			if ok3 && ok4 {
				engine = latency(e50) + " / " + latency(eMax)
				if ok1 && ok2 {
					ratio50, ratioTail = times(e50, p50), times(eMax, p99)
				}
			}
			label := mode
			switch mode {
			case "":
				label = "—"
			case engineFairness:
				label += " (the platform rules' mode)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", c, label, matcher, bar, engine, ratio50, ratioTail)
		}
	}
	return b.String()
}

func meaningEngine(r *results) string {
	var b strings.Builder
	if len(engineFairnesses(r, engineSize)) > 0 {
		queued, _ := median(r, enginePrefix+engineSize+"/"+engineFairness+"/create-and-match", "queued")
		n, _ := median(r, enginePrefix+engineSize+"/"+engineFairness+"/create-and-match", unitIterations)
		fmt.Fprintf(&b, "The platform's engine (`assignment-user-matcher` on a private `redis-server` over loopback, "+
			"`conform -bench-engine`, conformance/README.md \"Timing the engine\") ran in this same run on BenchmarkScale's "+
			"workload: the same generator and seed, so the same 10,000 workers and tasks, every backlog filled with "+
			"the offers the benchmark's own platform-rules loading makes, then %s tasks queued. Each engine sample is one command plus one whole "+
			"match pass (`matchUsersAssignments`), as the platform runs after every change; the engine's p50 and max are "+
			"over its %.0f samples per case, the matcher's p50 and p99 are the medians over the runs of "+
			"`BenchmarkScale/10k-workers-100k-tasks/platform`. "+
			"With every backlog full a create matches nothing on either side, and a freed slot is refilled from the queue. "+
			"The tail ratio divides the engine's slowest of a few samples by the matcher's p99 over thousands, "+
			"which understates the engine's tail. The latency bar (p50 ≤ 20 µs, p99 ≤ 100 µs) is the matcher's own, "+
			"judged in the section above.", num(queued), n)
		return b.String()
	}
	switch sizes := engineSizes(r); {
	case len(sizes) > 0:
		b.WriteString("The platform's engine was timed on a different workload in this run (")
		var parts []string
		for _, size := range sizes {
			for _, mode := range engineFairnesses(r, size) {
				for _, c := range engineCases {
					name := enginePrefix + size + "/" + mode + "/" + c
					if p50, ok := median(r, name, "p50-µs"); ok {
						eMax, _ := median(r, name, "max-µs")
						parts = append(parts, fmt.Sprintf("%s, %s, %s: p50 %s, max %s", size, mode, c, latency(p50), latency(eMax)))
					}
				}
			}
		}
		b.WriteString(strings.Join(parts, "; "))
		b.WriteString("), so no ratio is computed: the matcher ran " + engineSize + ". " +
			"`scripts/bench.sh` without `--quick` times the engine on the matcher's workload.")
	case r.engineSkipped != "":
		b.WriteString("The platform's engine was not timed in this run: " + r.engineSkipped + ". " +
			"`scripts/bench.sh` times it when `node`, `npm` and `redis-server` are on PATH (conformance/README.md).")
	case r.ranCommand(engineFlag):
		b.WriteString("The engine's timing command failed in this run (see the log): no engine figure, no ratio.")
	default:
		b.WriteString("The platform's engine was not timed in this run. `scripts/bench.sh` times it when `node`, " +
			"`npm` and `redis-server` are on PATH (conformance/README.md).")
	}
	return b.String()
}
