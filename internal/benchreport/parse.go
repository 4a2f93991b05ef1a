package main

import (
	"bufio"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Markers bench.sh writes into the log between the outputs of `go test -bench`.
const (
	markCommand = "### CMD "  // the exact command whose output follows
	markLoad    = "### LOAD " // /proc/loadavg when the command started
	// markEngineSkipped says why the platform's engine was not timed (tools missing,
	// --no-engine); what follows it is the reason, as a reader should see it.
	markEngineSkipped = "### ENGINE-SKIPPED "
)

// unitIterations holds the iteration count of each result line (b.N; for the engine's
// lines, its number of samples).
const unitIterations = "iterations"

// results holds every sample of every benchmark metric in a log: one sample per line of
// `go test -bench` output, so -count N gives N samples.
type results struct {
	samples  map[string]map[string][]float64 // benchmark name -> unit -> samples
	commands []string                        // in the order they ran
	loads    []string                        // load average before each command
	raw      []string                        // the benchmark lines as printed
	failed   map[string]bool                 // benchmarks that reported "--- FAIL"
	cpu      string                          // the "cpu:" line of the first package
	// engineSkipped is the reason bench.sh gave for not timing the engine, "" if it did not skip it.
	engineSkipped string
}

// parseLog reads a bench.sh log. procs is GOMAXPROCS of the run: `go test` appends "-procs"
// to every benchmark name when it is above 1, and that suffix is removed so names read as
// in the source.
func parseLog(r io.Reader, procs int) (*results, error) {
	res := &results{samples: map[string]map[string][]float64{}, failed: map[string]bool{}}
	suffix := "-" + strconv.Itoa(procs)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, markCommand):
			res.commands = append(res.commands, strings.TrimPrefix(line, markCommand))
		case strings.HasPrefix(line, markEngineSkipped):
			res.engineSkipped = strings.TrimPrefix(line, markEngineSkipped)
		case strings.HasPrefix(line, markLoad):
			res.loads = append(res.loads, strings.TrimPrefix(line, markLoad))
		case strings.HasPrefix(line, "cpu: ") && res.cpu == "":
			res.cpu = strings.TrimPrefix(line, "cpu: ")
		case strings.HasPrefix(strings.TrimSpace(line), "--- FAIL: Benchmark"):
			f := strings.Fields(line)
			name := f[2]
			if procs > 1 {
				name = strings.TrimSuffix(name, suffix)
			}
			res.failed[name] = true
		case strings.HasPrefix(line, "Benchmark"):
			name, metrics, ok := parseBenchLine(line)
			if !ok {
				continue
			}
			if procs > 1 {
				name = strings.TrimSuffix(name, suffix)
			}
			res.raw = append(res.raw, line)
			units := res.samples[name]
			if units == nil {
				units = map[string][]float64{}
				res.samples[name] = units
			}
			for unit, v := range metrics {
				units[unit] = append(units[unit], v)
			}
		}
	}
	return res, sc.Err()
}

// parseBenchLine splits "BenchmarkX-2  1000  123 ns/op  4 allocs/op" into the name and its
// value/unit pairs. Lines that are not results (a benchmark's log output, "--- FAIL") are
// refused.
func parseBenchLine(line string) (string, map[string]float64, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f)%2 != 0 {
		return "", nil, false
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return "", nil, false
	}
	metrics := map[string]float64{unitIterations: float64(n)}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return "", nil, false
		}
		metrics[f[i+1]] = v
	}
	return f[0], metrics, true
}

// stat is the summary of one benchmark metric over its samples.
type stat struct {
	median, best float64 // best is the smallest sample: load from other processes only adds time
	n            int
}

// get summarises a metric; ok is false when the benchmark did not run (or was skipped).
func (r *results) get(name, unit string) (stat, bool) {
	s := r.samples[name][unit]
	if len(s) == 0 {
		return stat{}, false
	}
	return summarize(s), true
}

func summarize(samples []float64) stat {
	s := slices.Clone(samples)
	slices.Sort(s)
	mid := len(s) / 2
	med := s[mid]
	if len(s)%2 == 0 {
		med = (s[mid-1] + s[mid]) / 2
	}
	return stat{median: med, best: s[0], n: len(s)}
}

// ratio divides two summaries: median by median, best by best.
func ratio(impl, base stat) stat {
	div := func(a, b float64) float64 {
		if b == 0 {
			return math.NaN()
		}
		return a / b
	}
	return stat{median: div(impl.median, base.median), best: div(impl.best, base.best), n: min(impl.n, base.n)}
}

// ranCommand reports whether a command of the log contains flag.
func (r *results) ranCommand(flag string) bool {
	return slices.ContainsFunc(r.commands, func(c string) bool { return slices.Contains(strings.Fields(c), flag) })
}

// failedAny reports whether the benchmark or one of its parents reported "--- FAIL".
func (r *results) failedAny(name string) bool {
	for {
		if r.failed[name] {
			return true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return false
		}
		name = name[:i]
	}
}
