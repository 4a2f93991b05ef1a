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
BenchmarkScale/10k-workers-100k-tasks/free-capacity-2  20000  50000 ns/op  1.000 matched/op  12.5 p50-µs  90.0 p99-µs
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
		{"BenchmarkScale/10k-workers-100k-tasks/free-capacity", "p99-µs", stat{median: 90, best: 90, n: 1}},
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
			row:  row{impl: matchPrefix1M + "create-and-match", unit: "p99-µs", target: atMost(1000)},
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
		"| free-capacity p99 latency | 90.00 p99-µs | — | — | ≤ 100 | PASS |",
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
