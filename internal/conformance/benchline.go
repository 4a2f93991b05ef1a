package conformance

import (
	"fmt"
	"slices"
	"strconv"
)

// EngineBenchPrefix starts the name of every result line the engine timing prints.
const EngineBenchPrefix = "BenchmarkEngine/"

// BenchName is the engine timing's name for a workload size, spelled as BenchmarkScale names
// its sub-benchmarks (internal/match/bench_test.go), so a report can tell whether the engine
// and the reference matcher ran the same workload: 10000 workers and 100000 queued tasks are
// "10k-workers-100k-tasks".
func BenchName(workers, queued int) string {
	return sizeLabel(workers) + "-workers-" + sizeLabel(queued) + "-tasks"
}

func sizeLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// EngineBenchLines renders a timing as lines in the format of `go test -bench` output, one
// per case that has samples, so the tools that read benchmark logs (internal/benchreport)
// read them unchanged:
//
//	BenchmarkEngine/10k-workers-100k-tasks/best-match/create-and-match 9 209123456 ns/op 209123 p50-µs 405012 max-µs 100000 queued
//	BenchmarkEngine/10k-workers-100k-tasks/best-match/free-capacity 9 376000000 ns/op 376000 p50-µs 905000 max-µs
//
// The count is the number of samples, ns/op their mean, p50-µs the median (the upper one of
// an even count) and max-µs the slowest; queued is how many tasks waited once the backlogs
// were filled. Microseconds, like BenchmarkScale's percentiles, so the two divide directly.
func EngineBenchLines(workers, queued int, fairness string, res BenchResult) []string {
	prefix := EngineBenchPrefix + BenchName(workers, queued) + "/" + fairness + "/"
	var lines []string
	if l, ok := engineBenchLine(prefix+"create-and-match", res.CreateAndMatchMs); ok {
		lines = append(lines, l+fmt.Sprintf(" %d queued", res.Queued))
	}
	if l, ok := engineBenchLine(prefix+"free-capacity", res.FreeCapacityMs); ok {
		lines = append(lines, l)
	}
	return lines
}

func engineBenchLine(name string, ms []float64) (string, bool) {
	if len(ms) == 0 {
		return "", false
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	mean := sum / float64(len(s))
	return fmt.Sprintf("%s %d %.0f ns/op %.0f p50-µs %.0f max-µs", name, len(s), mean*1e6, s[len(s)/2]*1e3, s[len(s)-1]*1e3), true
}
