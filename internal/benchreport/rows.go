package main

import (
	"fmt"
	"math"
	"strings"
)

// bound is a performance target of the project (or of the package that owns the benchmark): a ceiling,
// or a floor when floor is set.
type bound struct {
	value float64
	floor bool
}

func atMost(v float64) *bound  { return &bound{value: v} }
func atLeast(v float64) *bound { return &bound{value: v, floor: true} }

func (b *bound) String() string {
	if b == nil {
		return "—"
	}
	if b.floor {
		return fmt.Sprintf("≥ %g", b.value)
	}
	return fmt.Sprintf("≤ %g", b.value)
}

func (b *bound) holds(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	if b.floor {
		return v >= b.value
	}
	return v <= b.value
}

// row is one line of a results table: either the ratio of one unit between an
// implementation and its baseline benchmark, or a metric a benchmark reports itself (a
// percentile, or a ratio it measured by interleaving the two calls).
type row struct {
	claim      string
	impl, base string // base empty: a metric of impl alone
	unit       string
	target     *bound // nil: reported, not judged
	// byBest judges the best (smallest) samples rather than the medians: used where
	// implementation and baseline ran as separate benchmarks, and for absolute latencies,
	// so that a burst of load from other processes during one run does not decide the
	// verdict (such load only ever adds time). Only for rows where lower is better. Both
	// numbers are shown.
	byBest bool
}

// BenchmarkScale names a size, then a rule set, then a case:
// BenchmarkScale/10k-workers-100k-tasks/platform/free-capacity.
const (
	matchPrefix10k = "BenchmarkScale/10k-workers-100k-tasks/"
	matchPrefix1M  = "BenchmarkScale/100k-workers-1M-tasks/"
	rulesPlatform  = "platform/"  // RulesPlatform, the default
	rulesEveryTag  = "every-tag/" // RulesEveryTag
)

// section is one table of BENCHMARKS.md with what its numbers mean for a user.
type section struct {
	title string
	rows  []row
	// table, when set, is written instead of rows: a comparison whose verdicts are judged
	// in another section, so it counts no failure of its own.
	table   func(r *results) string
	meaning func(r *results) string
}

// latencyRows are a rule set's percentile rows for some cases; p50 nil: the median is
// reported, not judged.
func latencyRows(prefix, rules string, cases []string, p50, p99 *bound) []row {
	var rows []row
	for _, c := range cases {
		rows = append(rows,
			row{claim: rules + ", " + c + " median latency", impl: prefix + c, unit: "p50-µs", target: p50, byBest: true},
			row{claim: rules + ", " + c + " p99 latency", impl: prefix + c, unit: "p99-µs", target: p99, byBest: true})
	}
	return rows
}

// matcherRows are one size of BenchmarkScale: both rule sets against the same latency bar,
// the every-tag indexes against a full scan, and the memory each rule set holds per task.
func matcherRows(prefix string, p50, p99 *bound) []row {
	rows := platformTargetRows(prefix, p50, p99)
	rows = append(rows, row{claim: "platform rules, heap per task (whole engine / tasks held)", impl: prefix + rulesPlatform + "create-and-match", unit: "heap-B/task"})
	rows = append(rows, latencyRows(prefix+rulesEveryTag, "every-tag rules", []string{"create-and-match", "create-and-match-ready", "free-capacity"}, p50, p99)...)
	return append(rows,
		row{claim: "every-tag rules, create-and-match-ready vs full scan of ready workers", impl: prefix + rulesEveryTag + "create-and-match-ready",
			base: prefix + rulesEveryTag + "create-and-match-ready-fullscan", unit: "ns/op"},
		row{claim: "every-tag rules, heap per task (whole engine / tasks held)", impl: prefix + rulesEveryTag + "create-and-match", unit: "heap-B/task"})
}

func sections() []section {
	webhookRows := []row{}
	for _, s := range []struct {
		size, note string
		bar        float64
	}{{"256", "", 1.3}, {"1024", "", 1.15}, {"16384", " (bar of the webhook package)", 1.1}} {
		webhookRows = append(webhookRows, row{
			claim: "Verifier.Verify vs keyed HMAC floor, " + s.size + " B" + s.note,
			impl:  "BenchmarkVerifier/size=" + s.size + "/impl=verifier", base: "BenchmarkVerifier/size=" + s.size + "/impl=keyed-hmac",
			unit: "ns/op", target: atMost(s.bar), byBest: true,
		}, row{
			claim: "Verifier.Verify allocations, " + s.size + " B",
			impl:  "BenchmarkVerifier/size=" + s.size + "/impl=verifier", unit: "allocs/op", target: atMost(0),
		})
	}
	for _, size := range []string{"256", "1024", "16384"} {
		webhookRows = append(webhookRows, row{
			claim: "one-shot webhook.Verify vs hmac.New+Write+Equal, " + size + " B",
			impl:  "BenchmarkVerifyOneShot/size=" + size + "/impl=verify", base: "BenchmarkVerifyOneShot/size=" + size + "/impl=hmac-new",
			unit: "ns/op", target: atMost(1.1), byBest: true,
		})
	}
	return []section{
		{
			title: "Client overhead: Tasks.Create vs a hand-written net/http + encoding/json call",
			rows: []row{
				{claim: "Tasks.Create / hand-written call, alternated call by call", impl: "BenchmarkTasksCreate/interleaved", unit: "client/nethttp", target: atMost(1.15)},
				{claim: "Tasks.Create vs hand-written, separate runs", impl: "BenchmarkTasksCreate/client", base: "BenchmarkTasksCreate/nethttp", unit: "ns/op"},
				{claim: "Tasks.Create allocations vs hand-written", impl: "BenchmarkTasksCreate/client", base: "BenchmarkTasksCreate/nethttp", unit: "allocs/op"},
				{claim: "WorkerClient.Accept / hand-written call, alternated", impl: "BenchmarkWorkerAccept", unit: "client/nethttp"},
			},
			meaning: meaningClient,
		},
		{title: "Webhook verification vs the HMAC it cannot avoid", rows: webhookRows, meaning: meaningWebhook},
		{title: "Matcher: 10,000 workers, 100,000 queued tasks (Zipf tags over 300), platform rules (the default) and every-tag rules", rows: matcherRows(matchPrefix10k, atMost(20), atMost(100)), meaning: meaningMatcher},
		{title: "Matcher under the platform rules vs the platform's engine: same workload, same run", table: engineTable, meaning: meaningEngine},
		{title: "Matcher: 100,000 workers, 1,000,000 tasks (optional run)", rows: matcherRows(matchPrefix1M, nil, atMost(1000)), meaning: meaningMatcher1M},
		{
			title: "Mock server: POST /v1/tasks throughput vs a bare net/http JSON handler",
			rows: []row{
				{claim: "mock server / bare handler throughput, same load generator", impl: "BenchmarkPostTasks", unit: "ratio", target: atLeast(0.6)},
				{claim: "mock server requests per second", impl: "BenchmarkPostTasks", unit: "mock-req/s"},
				{claim: "bare handler requests per second", impl: "BenchmarkPostTasks", unit: "bare-req/s"},
			},
			meaning: meaningMock,
		},
		{title: "Bulk backfill: 100,000 tasks with Tasks.CreateAll vs one Tasks.Create per task from 64 goroutines", rows: bulkRows, meaning: meaningBulk},
	}
}

// verdict is the evaluation of one row.
type verdict struct {
	measured, baseline, ratio, result string
	ok, judged, ran                   bool
}

func evaluate(r *results, rw row) verdict {
	impl, ok := r.get(rw.impl, rw.unit)
	if !ok {
		if r.failedAny(rw.impl) {
			// A benchmark that fails its own check prints no result: count it as missed.
			return verdict{measured: "benchmark failed", baseline: "—", ratio: "—", result: "FAIL (benchmark failed, see log)", judged: rw.target != nil, ran: true}
		}
		return verdict{measured: "not run", baseline: "—", ratio: "—", result: "not run"}
	}
	v := verdict{ran: true, measured: fmt.Sprintf("%s %s", num(impl.median), rw.unit), baseline: "—", ratio: "—"}
	judged := impl.median
	if rw.byBest {
		judged = impl.best
	}
	// "best" is the smallest sample, which means something only where lower is better.
	if rw.byBest && impl.n > 1 && rw.base == "" && impl.best != impl.median {
		v.measured += fmt.Sprintf(" (best %s)", num(impl.best))
	}
	if rw.base != "" {
		base, ok := r.get(rw.base, rw.unit)
		if !ok {
			return verdict{measured: v.measured, baseline: "not run", ratio: "—", result: "not run"}
		}
		v.baseline = fmt.Sprintf("%s %s", num(base.median), rw.unit)
		q := ratio(impl, base)
		v.ratio = fmt.Sprintf("%s× (best %s×)", num(q.median), num(q.best))
		judged = q.median
		if rw.byBest {
			judged = q.best
		}
	}
	if rw.target == nil {
		v.result = "reported"
		return v
	}
	v.judged, v.ok = true, rw.target.holds(judged)
	v.result = "FAIL"
	if v.ok {
		v.result = "PASS"
	}
	if rw.byBest && impl.n > 1 {
		v.result += " (by best)"
	}
	return v
}

// num prints a number with as many digits as a reader needs.
func num(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "NaN"
	case a == 0:
		return "0"
	case a >= 1000:
		return grouped(fmt.Sprintf("%.0f", v))
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

// grouped puts thousands separators into an integer's digits: 2903519 -> 2,903,519.
func grouped(digits string) string {
	sign := ""
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return sign + b.String()
}
