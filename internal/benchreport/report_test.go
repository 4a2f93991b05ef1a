package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleLog is a bench.sh log cut down to a few benchmarks, with the noise `go test`
// prints around results.
const sampleLog = `### LOAD 0.50 0.40 0.30 1/100 1
### CMD go test -run '^$' -bench . -count 3 ./webhook/
goos: linux
cpu: AMD EPYC
BenchmarkVerifier/size=1024/impl=keyed-hmac-2   100  1000 ns/op  0 B/op  0 allocs/op
BenchmarkVerifier/size=1024/impl=verifier-2     100  1100 ns/op  0 B/op  0 allocs/op
BenchmarkVerifier/size=1024/impl=keyed-hmac-2   100  3000 ns/op  0 B/op  0 allocs/op
BenchmarkVerifier/size=1024/impl=verifier-2     100  1300 ns/op  0 B/op  0 allocs/op
BenchmarkVerifier/size=1024/impl=keyed-hmac-2   100  1200 ns/op  0 B/op  0 allocs/op
BenchmarkVerifier/size=1024/impl=verifier-2     100  1200 ns/op  0 B/op  0 allocs/op
    bench_test.go:12: some log line
--- FAIL: BenchmarkOther
PASS
### CMD go test -run '^$' -bench PostTasks ./mockserver/
BenchmarkPostTasks-2   20   5000000 ns/op   30000 bare-req/s   12000 mock-req/s   0.40 ratio
BenchmarkScale/10k-workers-100k-tasks/platform/free-capacity-2  20000  50000 ns/op  1.000 matched/op  12.5 p50-µs  90.0 p99-µs
`

func TestParseLog(t *testing.T) {
	res, err := parseLog(strings.NewReader(sampleLog), 2)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff([]string{"go test -run '^$' -bench . -count 3 ./webhook/", "go test -run '^$' -bench PostTasks ./mockserver/"}, res.commands))
	assert.Empty(t, cmp.Diff([]string{"0.50 0.40 0.30 1/100 1"}, res.loads))
	assert.Equal(t, "AMD EPYC", res.cpu)
	assert.Len(t, res.raw, 8, "only result lines are kept")

	tests := []struct {
		name, unit string
		want       stat
	}{
		{"BenchmarkVerifier/size=1024/impl=keyed-hmac", "ns/op", stat{median: 1200, best: 1000, n: 3}},
		{"BenchmarkVerifier/size=1024/impl=verifier", "ns/op", stat{median: 1200, best: 1100, n: 3}},
		{"BenchmarkVerifier/size=1024/impl=verifier", "allocs/op", stat{median: 0, best: 0, n: 3}},
		{"BenchmarkPostTasks", "ratio", stat{median: 0.4, best: 0.4, n: 1}},
		{"BenchmarkScale/10k-workers-100k-tasks/platform/free-capacity", "p99-µs", stat{median: 90, best: 90, n: 1}},
		{"BenchmarkScale/10k-workers-100k-tasks/platform/free-capacity", unitIterations, stat{median: 20000, best: 20000, n: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name+"/"+tc.unit, func(t *testing.T) {
			got, ok := res.get(tc.name, tc.unit)
			require.True(t, ok)
			assert.Empty(t, cmp.Diff(tc.want, got, cmp.AllowUnexported(stat{})))
		})
	}
	_, ok := res.get("BenchmarkOther", "ns/op")
	assert.False(t, ok, "a failed benchmark has no result")
}

func TestSummarizeEvenCount(t *testing.T) {
	assert.Equal(t, stat{median: 2.5, best: 1, n: 4}, summarize([]float64{4, 1, 3, 2}))
}

func TestEvaluate(t *testing.T) {
	res, err := parseLog(strings.NewReader(sampleLog), 2)
	require.NoError(t, err)
	tests := []struct {
		name string
		row  row
		want verdict
	}{
		{
			name: "ratio judged by best",
			row:  row{impl: "BenchmarkVerifier/size=1024/impl=verifier", base: "BenchmarkVerifier/size=1024/impl=keyed-hmac", unit: "ns/op", target: atMost(1.15), byBest: true},
			want: verdict{measured: "1,200 ns/op", baseline: "1,200 ns/op", ratio: "1.00× (best 1.10×)", result: "PASS (by best)", ok: true, judged: true, ran: true},
		},
		{
			name: "ratio judged by median misses",
			row:  row{impl: "BenchmarkVerifier/size=1024/impl=verifier", base: "BenchmarkVerifier/size=1024/impl=keyed-hmac", unit: "ns/op", target: atMost(0.9)},
			want: verdict{measured: "1,200 ns/op", baseline: "1,200 ns/op", ratio: "1.00× (best 1.10×)", result: "FAIL", judged: true, ran: true},
		},
		{
			name: "floor missed",
			row:  row{impl: "BenchmarkPostTasks", unit: "ratio", target: atLeast(0.6)},
			want: verdict{measured: "0.400 ratio", baseline: "—", ratio: "—", result: "FAIL", judged: true, ran: true},
		},
		{
			name: "zero allocations",
			row:  row{impl: "BenchmarkVerifier/size=1024/impl=verifier", unit: "allocs/op", target: atMost(0)},
			want: verdict{measured: "0 allocs/op", baseline: "—", ratio: "—", result: "PASS", ok: true, judged: true, ran: true},
		},
		{
			name: "latency judged by its best run",
			row:  row{impl: "BenchmarkVerifier/size=1024/impl=keyed-hmac", unit: "ns/op", target: atMost(1100), byBest: true},
			want: verdict{measured: "1,200 ns/op (best 1,000)", baseline: "—", ratio: "—", result: "PASS (by best)", ok: true, judged: true, ran: true},
		},
		{
			name: "latency judged by its median",
			row:  row{impl: "BenchmarkVerifier/size=1024/impl=keyed-hmac", unit: "ns/op", target: atMost(1100)},
			want: verdict{measured: "1,200 ns/op", baseline: "—", ratio: "—", result: "FAIL", judged: true, ran: true},
		},
		{
			name: "reported only",
			row:  row{impl: "BenchmarkPostTasks", unit: "mock-req/s"},
			want: verdict{measured: "12,000 mock-req/s", baseline: "—", ratio: "—", result: "reported", ran: true},
		},
		{
			name: "failed its own check",
			row:  row{impl: "BenchmarkOther", unit: "ns/op", target: atMost(1)},
			want: verdict{measured: "benchmark failed", baseline: "—", ratio: "—", result: "FAIL (benchmark failed, see log)", judged: true, ran: true},
		},
		{
			name: "not run",
			row:  row{impl: matchPrefix1M + rulesPlatform + "create-and-match", unit: "p99-µs", target: atMost(1000)},
			want: verdict{measured: "not run", baseline: "—", ratio: "—", result: "not run"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Empty(t, cmp.Diff(tc.want, evaluate(res, tc.row), cmp.AllowUnexported(verdict{})))
		})
	}
}

func TestRenderCountsFailures(t *testing.T) {
	res, err := parseLog(strings.NewReader(sampleLog), 2)
	require.NoError(t, err)
	var b strings.Builder
	failed := render(&b, res, machine{cpu: "test cpu", goVersion: "go1.24", platform: "linux/amd64", date: "2026-01-01", nproc: 2})
	// In the sample: free-capacity p99 90 µs passes, p50 12.5 passes; the mock ratio 0.40 fails;
	// the verifier 1 KiB ratio passes by best and 0 allocs passes.
	assert.Equal(t, 1, failed)
	out := b.String()
	for _, want := range []string{
		"2 CPUs, test cpu, linux/amd64", "go test -run '^$' -bench PostTasks ./mockserver/",
		"| mock server / bare handler throughput, same load generator | 0.400 ratio | — | — | ≥ 0.6 | FAIL |",
		"| platform rules, free-capacity p99 latency | 90.00 p99-µs | — | — | ≤ 100 | PASS |",
		"| platform rules, free-capacity median latency | 12.50 p50-µs | — | — | ≤ 20 | PASS |",
		"| every-tag rules, free-capacity p99 latency | not run | — | — | ≤ 100 | not run |",
		"| free-capacity | — | 12.50 µs / 90.00 µs | p50 PASS, p99 PASS | not timed | — | — |",
		"The platform's engine was not timed in this run.",
		"| Verifier.Verify vs keyed HMAC floor, 1024 B | 1,200 ns/op | 1,200 ns/op | 1.00× (best 1.10×) | ≤ 1.15 | PASS (by best) |",
		"1 target(s) missed", "- mock server / bare handler throughput",
	} {
		assert.Contains(t, out, want)
	}
}

func TestNum(t *testing.T) {
	for in, want := range map[float64]string{
		0: "0", 0.4: "0.400", 1.154: "1.15", 90: "90.00", 145.94: "145.9", 1000: "1,000",
		2903519: "2,903,519", -12345: "-12,345", math.NaN(): "NaN",
	} {
		assert.Equal(t, want, num(in), "num(%v)", in)
	}
}

// TestRunKeepsHandWrittenTail: rewriting a report keeps what follows the hand-written
// marker in the old one, and replaces the generated part before it.
func TestRunKeepsHandWrittenTail(t *testing.T) {
	dir := t.TempDir()
	logPath, outPath := filepath.Join(dir, "bench.log"), filepath.Join(dir, "BENCHMARKS.md")
	require.NoError(t, os.WriteFile(logPath, []byte(sampleLog), 0o644))
	tail := handWrittenMarker + "\n\n## Measured by hand\n\nkept text\n"
	require.NoError(t, os.WriteFile(outPath, []byte("# stale generated part\n\n"+tail), 0o644))

	_, err := run(logPath, outPath, 2)
	require.NoError(t, err)
	got, err := os.ReadFile(outPath)
	require.NoError(t, err)
	assert.NotContains(t, string(got), "stale generated part")
	assert.True(t, strings.HasSuffix(string(got), "</details>\n\n"+tail), "tail not kept after the generated part:\n%s", got)

	_, err = run(logPath, outPath, 2) // a second rewrite keeps it once
	require.NoError(t, err)
	again, err := os.ReadFile(outPath)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(again), handWrittenMarker))
	assert.True(t, strings.HasSuffix(string(again), tail))
}

// matcherPlatformLog is BenchmarkScale's platform rules at 10k, two runs: create-and-match
// medians p50 6 µs / p99 25 µs (best 5 / 20), free-capacity p50 50 µs / p99 105 µs (best 40 / 90).
const matcherPlatformLog = `### LOAD 1.00 1.00 1.00 1/100 1
### CMD go test -run '^$' -bench '^BenchmarkScale$/^10k-workers-100k-tasks$' -benchtime 20000x -count 2 ./internal/match/
BenchmarkScale/10k-workers-100k-tasks/platform/create-and-match-2  20000  6000 ns/op  0 matched/op  5.0 p50-µs  20.0 p99-µs  80.0 max-µs  700 heap-B/task  100000 queued
BenchmarkScale/10k-workers-100k-tasks/platform/free-capacity-2  20000  50000 ns/op  1.000 matched/op  40.0 p50-µs  120.0 p99-µs  900.0 max-µs
BenchmarkScale/10k-workers-100k-tasks/platform/create-and-match-2  20000  6000 ns/op  0 matched/op  7.0 p50-µs  30.0 p99-µs  80.0 max-µs  700 heap-B/task  100000 queued
BenchmarkScale/10k-workers-100k-tasks/platform/free-capacity-2  20000  50000 ns/op  1.000 matched/op  60.0 p50-µs  90.0 p99-µs  900.0 max-µs
`

// engineCmd is how bench.sh logs the engine's timing; the result lines are those of
// conformance.EngineBenchLines.
const engineCmd = `### LOAD 1.50 1.20 1.00 1/100 1
### CMD go run ./internal/conformance/cmd/conform -bench-engine -bench-workers 10000 -bench-tasks 100000 -bench-probes 9 -bench-fairness best-match
engine timing: 10000 workers, 190000 tasks created (100000 to stay queued), fairness best-match
  create-and-match (addAssignment + one match pass): p50 210 ms, max 405 ms (samples 210 405 200 190 220 230 205 215 199)
`

const engineBestMatch = `BenchmarkEngine/10k-workers-100k-tasks/best-match/create-and-match 9 250000000 ns/op 210000 p50-µs 405000 max-µs 100000 queued
BenchmarkEngine/10k-workers-100k-tasks/best-match/free-capacity 9 400000000 ns/op 375000 p50-µs 900000 max-µs
`

func TestEngineSection(t *testing.T) {
	const (
		createBest = "| create-and-match | best-match (the platform rules' mode) | 6.00 µs / 25.00 µs | p50 PASS (by best), p99 PASS (by best) | 210.0 ms / 405.0 ms | 35,000× faster | 16,200× faster |"
		freeBest   = "| free-capacity | best-match (the platform rules' mode) | 50.00 µs / 105.0 µs | p50 FAIL (by best), p99 PASS (by best) | 375.0 ms / 900.0 ms | 7,500× faster | 8,571× faster |"
		createNone = "| create-and-match | — | 6.00 µs / 25.00 µs | p50 PASS (by best), p99 PASS (by best) | not timed | — | — |"
		freeNone   = "| free-capacity | — | 50.00 µs / 105.0 µs | p50 FAIL (by best), p99 PASS (by best) | not timed | — | — |"
	)
	tests := []struct {
		name     string
		log      string
		rows     []string
		meaning  string // a sentence the prose must hold
		notInAny string // and one it must not
	}{
		{
			name:    "engine on the same workload",
			log:     matcherPlatformLog + engineCmd + engineBestMatch,
			rows:    []string{createBest, freeBest},
			meaning: "then 100,000 tasks queued. Each engine sample is one command plus one whole match pass (`matchUsersAssignments`), as the platform runs after every change; the engine's p50 and max are over its 9 samples per case",
		},
		{
			name: "first-come timed as well: rows after the platform rules' mode",
			log: matcherPlatformLog + engineCmd + engineBestMatch +
				"### CMD go run ./internal/conformance/cmd/conform -bench-engine -bench-fairness first-come\n" +
				"BenchmarkEngine/10k-workers-100k-tasks/first-come/create-and-match 9 300000000 ns/op 300000 p50-µs 600000 max-µs 100000 queued\n" +
				"BenchmarkEngine/10k-workers-100k-tasks/first-come/free-capacity 9 500000000 ns/op 500000 p50-µs 650000 max-µs\n",
			rows: []string{createBest, freeBest,
				"| create-and-match | first-come | 6.00 µs / 25.00 µs | p50 PASS (by best), p99 PASS (by best) | 300.0 ms / 600.0 ms | 50,000× faster | 24,000× faster |",
				"| free-capacity | first-come | 50.00 µs / 105.0 µs | p50 FAIL (by best), p99 PASS (by best) | 500.0 ms / 650.0 ms | 10,000× faster | 6,190× faster |",
			},
			meaning: "over its 9 samples per case",
		},
		{
			name: "quick run: the engine on a smaller workload gets no ratio",
			log: matcherPlatformLog + engineCmd +
				"BenchmarkEngine/1k-workers-10k-tasks/best-match/create-and-match 5 3000000 ns/op 2994 p50-µs 24366 max-µs 10036 queued\n" +
				"BenchmarkEngine/1k-workers-10k-tasks/best-match/free-capacity 5 7000000 ns/op 7472 p50-µs 7996 max-µs\n",
			rows: []string{
				"| create-and-match | — | 6.00 µs / 25.00 µs | p50 PASS (by best), p99 PASS (by best) | other workload, below | — | — |",
				"| free-capacity | — | 50.00 µs / 105.0 µs | p50 FAIL (by best), p99 PASS (by best) | other workload, below | — | — |",
			},
			meaning: "The platform's engine was timed on a different workload in this run (1k-workers-10k-tasks, best-match, create-and-match: p50 2.99 ms, max 24.37 ms; " +
				"1k-workers-10k-tasks, best-match, free-capacity: p50 7.47 ms, max 8.00 ms), so no ratio is computed: the matcher ran 10k-workers-100k-tasks.",
			notInAny: "faster",
		},
		{
			name:     "engine skipped by bench.sh",
			log:      matcherPlatformLog + "### ENGINE-SKIPPED redis-server is not on PATH\n",
			rows:     []string{createNone, freeNone},
			meaning:  "The platform's engine was not timed in this run: redis-server is not on PATH.",
			notInAny: "faster",
		},
		{
			name:     "engine command failed",
			log:      matcherPlatformLog + engineCmd,
			rows:     []string{createNone, freeNone},
			meaning:  "The engine's timing command failed in this run (see the log): no engine figure, no ratio.",
			notInAny: "faster",
		},
		{
			name: "engine timed, matcher not run",
			log:  engineCmd + engineBestMatch,
			rows: []string{
				"| create-and-match | best-match (the platform rules' mode) | not run | not run | 210.0 ms / 405.0 ms | — | — |",
				"| free-capacity | best-match (the platform rules' mode) | not run | not run | 375.0 ms / 900.0 ms | — | — |",
			},
			meaning:  "over its 9 samples per case",
			notInAny: "faster",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := parseLog(strings.NewReader(tc.log), 2)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimRight(engineTable(res), "\n"), "\n")
			require.Greater(t, len(lines), 2, "no header")
			assert.Empty(t, cmp.Diff(tc.rows, lines[2:]), "table rows (-want +got)")
			meaning := meaningEngine(res)
			assert.Contains(t, meaning, tc.meaning)
			if tc.notInAny != "" {
				assert.NotContains(t, engineTable(res)+meaning, tc.notInAny)
			}
		})
	}
}

// TestEngineSectionCountsNoFailure: the comparison repeats the verdicts of the matcher
// section; a missed bar counts once, there.
func TestEngineSectionCountsNoFailure(t *testing.T) {
	res, err := parseLog(strings.NewReader(matcherPlatformLog+engineCmd+engineBestMatch), 2)
	require.NoError(t, err)
	var b strings.Builder
	failed := render(&b, res, machine{cpu: "test cpu", goVersion: "go1.24", platform: "linux/amd64", date: "2026-01-01", nproc: 2})
	// free-capacity's best p50 (40 µs) misses 20 µs; every other target of the log holds, and
	// the benchmarks that did not run are not judged.
	assert.Equal(t, 1, failed)
	out := b.String()
	assert.Contains(t, out, "## Matcher under the platform rules vs the platform's engine: same workload, same run\n\n"+
		"| 10,000 workers, 100,000 queued tasks | Engine fairness |")
	assert.Contains(t, out, "- platform rules, free-capacity median latency\n")
	assert.Contains(t, out, "-bench-fairness best-match\n", "the engine's command is listed with the others")
	assert.Contains(t, out, "(median 50.00 µs, p99 105.0 µs). For a test suite", "the matcher prose reads the platform rules alone when every-tag did not run")
}
