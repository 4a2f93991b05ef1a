package match

import (
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/race"
)

// benchConfig is the engine configuration of every scale benchmark: the defaults under the
// given rules, with an offer timeout long enough that loading never expires an offer.
func benchConfig(rules Rules) Config { return Config{Rules: rules, OfferTimeout: time.Hour} }

// The scale benchmarks model a busy workspace: tags Zipf-distributed over 300 names, workers with
// 3-8 tags, tasks with 1-3 tags, a fixed seed. They run under both rule sets
// (BenchmarkScale/<size>/platform/... and .../every-tag/...), report per-operation latency
// percentiles (measured around each engine call) and memory per queued task, and fail
// when a sampled choice differs from a brute-force scan written apart from the engine.
// With TASKROUTING_BENCH_STRICT=1 the 10k cases also fail above the latency targets
// (p50 20 µs, p99 100 µs).
//
//	go test -run '^$' -bench '^BenchmarkScale$/^10k-workers-100k-tasks$' -benchtime 20000x ./internal/match/
//	go test -run '^$' -bench '^BenchmarkScale$/^10k-workers-100k-tasks$/^platform$' -benchtime 20000x ./internal/match/
//	TASKROUTING_BENCH_STRICT=1 go test -run '^$' -bench '^BenchmarkScale$/^10k-workers-100k-tasks$' -benchtime 20000x ./internal/match/
//	TASKROUTING_LONG=1 go test -run '^$' -bench '^BenchmarkScale$/^100k-workers-1M-tasks$' -benchtime 20000x -timeout 40m ./internal/match/

const benchTags = 300

type workload struct {
	rng  *rand.Rand
	zipf *rand.Zipf
	now  time.Time
	n    int
}

func newWorkload(seed uint64) *workload {
	rng := rand.New(rand.NewPCG(seed, 42))
	return &workload{rng: rng, zipf: rand.NewZipf(rng, 1.1, 1, benchTags-1), now: t0}
}

func (w *workload) tags(lo, hi int) []string {
	n := lo + w.rng.IntN(hi-lo+1)
	out := make([]string, 0, n)
	for len(out) < n {
		tag := "tag" + strconv.FormatUint(w.zipf.Uint64(), 10)
		if !slices.Contains(out, tag) {
			out = append(out, tag)
		}
	}
	return out
}

// tick moves the clock by a microsecond per command: distinct times keep the queue order
// realistic, and even the largest load stays far below the offer timeout, so no expiry
// fires inside a measured command.
func (w *workload) tick() time.Time {
	w.now = w.now.Add(time.Microsecond)
	return w.now
}

func (w *workload) task() TaskInput {
	w.n++
	return TaskInput{ID: "task" + strconv.Itoa(w.n), Tags: w.tags(1, 3), Priority: float64(w.rng.IntN(3))}
}

// loadScale builds an engine with the given workers, each filled to its cap, and about
// queued tasks waiting. Workers start unavailable so the tasks load without matching, then
// each worker comes online and fills its backlog through the normal matching path.
func loadScale(tb testing.TB, rules Rules, workers, queued int) (*Engine, *workload, float64) {
	tb.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e := New(benchConfig(rules))
	wl := newWorkload(1)
	for i := range workers {
		if _, err := e.UpsertWorker(wl.tick(), WorkerInput{ID: "worker" + strconv.Itoa(i), Tags: wl.tags(3, 8)}); err != nil {
			tb.Fatal(err)
		}
	}
	for range queued + workers*defaultMaxBacklog {
		if _, err := e.CreateTask(wl.tick(), wl.task()); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range workers {
		if _, err := e.SetAvailability(wl.tick(), "worker"+strconv.Itoa(i), true, false); err != nil {
			tb.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return e, wl, float64(after.HeapAlloc-before.HeapAlloc) / float64(len(e.tasks))
}

// oracleEvery is how often a benchmark checks the engine's choice against a brute-force
// scan (outside the timer): often enough that a wrong result fails the run, rarely
// enough that the scans do not dominate it.
const oracleEvery = 97

// oracleTaskEvery is oracleEvery for a freed slot, whose scan reads every task (about
// 40 ms at 100,000 tasks).
const oracleTaskEvery = 997

// benchCreate measures CreateTask on a loaded engine and fails when the engine's choice
// differs from want, a brute-force scan of every worker for a new task with these tags.
func benchCreate(b *testing.B, e *Engine, wl *workload, oracle func(b *testing.B, e *Engine, tags []string) string) (lat latencies, matched int) {
	lat = make(latencies, 0, 1<<16)
	for b.Loop() {
		in := wl.task()
		now := wl.tick()
		var want string
		check := len(lat)%oracleEvery == 0
		if check {
			b.StopTimer()
			want = oracle(b, e, in.Tags)
			b.StartTimer()
		}
		start := time.Now()
		res, err := e.CreateTask(now, in)
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		matched += len(res.DecisionIDs)
		if check {
			got := ""
			if len(res.DecisionIDs) > 0 {
				got = decisionOf(b, e, res.DecisionIDs[0]).WorkerID
			}
			if got != want {
				b.Fatalf("task %s %v went to %q; a scan of every worker picks %q", in.ID, in.Tags, got, want)
			}
		}
	}
	return lat, matched
}

// decisionOf reads a decision the last command made back from the engine's log.
func decisionOf(tb testing.TB, e *Engine, id string) Decision {
	tb.Helper()
	d, ok := e.Decision(id)
	if !ok {
		tb.Fatalf("decision %s of the last command is not retained", id)
	}
	return d
}

func benchReady(b *testing.B, workers, queued int, fullScan bool) {
	e, wl := loadReady(b, workers, queued)
	e.fullScan = fullScan
	lat, matched := benchCreate(b, e, wl, oracleBestWorker)
	lat.report(b, !fullScan)
	b.ReportMetric(float64(matched)/float64(len(lat)), "matched/op")
	if matched == 0 {
		b.Fatal("no create was matched: the workload is not measuring matching")
	}
}

// oracleBestWorker returns the worker best-match must choose for a new task with these
// tags, by scanning every worker with rules written apart from the engine's: available,
// not on a break, below the cap, carries every tag; then most tags (every weight is 1),
// fewer pending offers, longest idle, lowest id. The scale workloads have no routing
// weights, vetoes, thresholds or learning; it fails the benchmark if that ever changes.
func oracleBestWorker(b *testing.B, e *Engine, tags []string) string {
	var best *worker
	for _, w := range e.workers {
		if len(w.weights) > 0 || len(w.stats) > 0 {
			b.Fatalf("worker %s has weights or learning, which the oracle does not model", w.id)
		}
		limit := e.cfg.DefaultMaxBacklog
		if w.maxBack != nil {
			limit = *w.maxBack
		}
		if !w.available || w.onBreak || len(w.pending) >= limit {
			continue
		}
		carriesAll := true
		for _, tag := range tags {
			carriesAll = carriesAll && slices.Contains(w.tags, tag)
		}
		if !carriesAll {
			continue
		}
		if best == nil || len(w.pending) < len(best.pending) ||
			len(w.pending) == len(best.pending) && (w.lastMatch < best.lastMatch || w.lastMatch == best.lastMatch && w.id < best.id) {
			best = w
		}
	}
	if best == nil {
		return ""
	}
	return best.id
}

// oracleFirstTask returns the queued task a worker freeing a slot must get: the first in
// queue order (priority, first queued, id) whose tags it all carries, by scanning every
// task.
func oracleFirstTask(e *Engine, w *worker) string {
	var first *task
	for _, t := range e.tasks {
		if t.status != StatusQueued || len(t.vetoed) > 0 || len(t.rejected) > 0 {
			continue
		}
		carriesAll := true
		for _, tag := range t.tagsIn {
			carriesAll = carriesAll && slices.Contains(w.tags, tag)
		}
		if !carriesAll {
			continue
		}
		if first == nil || t.priority > first.priority ||
			t.priority == first.priority && (t.queued < first.queued || t.queued == first.queued && t.id < first.id) {
			first = t
		}
	}
	if first == nil {
		return ""
	}
	return first.id
}

// loadReady builds the opposite case: every worker online with room to spare, and the
// queued tasks all need a tag nobody carries, so every new task is matched at once and the
// measured create pays the whole scan, scoring and explanation.
func loadReady(tb testing.TB, workers, queued int) (*Engine, *workload) {
	tb.Helper()
	e := New(benchConfig(RulesEveryTag))
	wl := newWorkload(2)
	for range queued {
		in := wl.task()
		in.Tags = append(in.Tags, "unserved")
		if _, err := e.CreateTask(wl.tick(), in); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range workers {
		in := WorkerInput{ID: "worker" + strconv.Itoa(i), Tags: wl.tags(3, 8), MaxBacklogSize: ptr(1 << 20), Available: ptr(true)}
		if _, err := e.UpsertWorker(wl.tick(), in); err != nil {
			tb.Fatal(err)
		}
	}
	return e, wl
}

// latencies collects per-operation durations and reports their percentiles.
type latencies []time.Duration

// The latency targets (see BENCHMARKS.md) for one create-and-match or one freed slot at 10,000 workers and
// 100,000 queued tasks. With TASKROUTING_BENCH_STRICT=1 a benchmark above them fails;
// by default they are only reported, because a shared or loaded machine moves the tail.
const (
	targetP50 = 20.0  // µs
	targetP99 = 100.0 // µs
)

// report sorts the latencies, reports their percentiles and, with target set and
// TASKROUTING_BENCH_STRICT=1 and without the race detector, fails the benchmark above the
// targets.
func (l latencies) report(b *testing.B, target bool) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	pct := func(p float64) float64 { return float64(l[int(p*float64(len(l)-1))].Nanoseconds()) / 1e3 }
	p50, p99 := pct(0.50), pct(0.99)
	b.ReportMetric(p50, "p50-µs")
	b.ReportMetric(p99, "p99-µs")
	b.ReportMetric(pct(1.0), "max-µs")
	if target && os.Getenv("TASKROUTING_BENCH_STRICT") == "1" && !race.Enabled && (p50 > targetP50 || p99 > targetP99) {
		b.Errorf("p50 %.1f µs, p99 %.1f µs: above the targets (%.0f, %.0f µs)", p50, p99, targetP50, targetP99)
	}
}

func queuedCount(e *Engine) int {
	n := 0
	for _, t := range e.taskList {
		if t.status == StatusQueued {
			n++
		}
	}
	return n
}

func BenchmarkScale(b *testing.B) {
	sizes := []struct {
		name            string
		workers, queued int
		long            bool
	}{
		{"10k-workers-100k-tasks", 10_000, 100_000, false},
		{"100k-workers-1M-tasks", 100_000, 1_000_000, true},
	}
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			if size.long && os.Getenv("TASKROUTING_LONG") != "1" {
				b.Skip("set TASKROUTING_LONG=1 for the 1M-task scale")
			}
			for _, rs := range scaleRules {
				b.Run(rs.name, func(b *testing.B) {
					b.Run("create-and-match", func(b *testing.B) {
						e, wl, perTask := loadScale(b, rs.rules, size.workers, size.queued)
						queued := queuedCount(e)
						lat, matched := benchCreate(b, e, wl, rs.bestWorker)
						lat.report(b, !size.long)
						b.ReportMetric(float64(matched)/float64(len(lat)), "matched/op")
						b.ReportMetric(perTask, "heap-B/task")
						b.ReportMetric(float64(queued), "queued")
					})
					if rs.rules == RulesEveryTag {
						// The ready case matches every create at once from the ordered
						// heap of ready workers, which only the every-tag rules keep.
						b.Run("create-and-match-ready", func(b *testing.B) {
							benchReady(b, size.workers, size.queued, false)
						})
						// Its baseline: the same engine scanning every ready carrier of the
						// rarest tag instead of walking the ordered heap.
						b.Run("create-and-match-ready-fullscan", func(b *testing.B) {
							benchReady(b, size.workers, size.queued, true)
						})
					}
					b.Run("free-capacity", func(b *testing.B) {
						benchFreeCapacity(b, rs.rules, rs.firstTask, size.workers, size.queued, !size.long)
					})
				})
			}
		})
	}
}

// scaleRules are the rule sets BenchmarkScale runs under, each with its brute-force oracles.
var scaleRules = []struct {
	name       string
	rules      Rules
	bestWorker func(b *testing.B, e *Engine, tags []string) string
	firstTask  func(e *Engine, w *worker) string
}{
	{"platform", RulesPlatform, oraclePlatformWorker, oraclePlatformTask},
	{"every-tag", RulesEveryTag, oracleBestWorker, oracleFirstTask},
}

// benchFreeCapacity measures an accept that frees one slot on a loaded engine: the worker
// is matched again from the queue. It fails when a sampled offer differs from firstTask, a
// scan of every task.
func benchFreeCapacity(b *testing.B, rules Rules, firstTask func(e *Engine, w *worker) string, workers, queued int, target bool) {
	e, wl, _ := loadScale(b, rules, workers, queued)
	ids := e.WorkerIDs()
	lat := make(latencies, 0, 1<<16)
	matched, i := 0, 0
	for b.Loop() {
		// The next worker holding an offer accepts it; that frees one slot and the worker
		// is matched again from the queued tasks it can serve.
		var w *worker
		for w == nil || len(w.pending) == 0 {
			w = e.workers[ids[i%len(ids)]]
			i++
		}
		taskID := w.pending[0].id
		now := wl.tick()
		var want string
		check := len(lat)%oracleTaskEvery == 0
		if check {
			b.StopTimer()
			want = firstTask(e, w)
			b.StartTimer()
		}
		start := time.Now()
		res, err := e.Accept(now, taskID, w.id)
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		matched += len(res.DecisionIDs)
		if check {
			var got []string
			for _, id := range res.DecisionIDs {
				d := decisionOf(b, e, id)
				got = append(got, d.TaskID+" to "+d.WorkerID)
			}
			if want == "" || !slices.Equal(got, []string{want + " to " + w.id}) {
				b.Fatalf("worker %s freed a slot: offers %v; a scan of every task picks %q", w.id, got, want)
			}
		}
	}
	lat.report(b, target)
	b.ReportMetric(float64(matched)/float64(len(lat)), "matched/op")
	if matched != len(lat) {
		b.Fatalf("%d of %d freed slots were not refilled from the queue", len(lat)-matched, len(lat))
	}
}

// TestScaleSmoke runs the benchmark's load and both operations at a small size, so the
// normal test run covers the benchmark code and the indexes under bulk load.
func TestScaleSmoke(t *testing.T) {
	for _, rs := range scaleRules {
		t.Run(rs.name, func(t *testing.T) { scaleSmoke(t, rs.rules, rs.firstTask) })
	}
}

func scaleSmoke(t *testing.T, rules Rules, firstTask func(e *Engine, w *worker) string) {
	e, wl, _ := loadScale(t, rules, 300, 3000)
	if err := verifyInternal(e); err != nil {
		t.Fatal(err)
	}
	if q := queuedCount(e); q < 2000 {
		t.Fatalf("only %d tasks queued after the load", q)
	}
	matched := 0
	for _, id := range e.WorkerIDs()[:100] {
		w := e.workers[id]
		if len(w.pending) == 0 {
			continue
		}
		want := firstTask(e, w)
		res, err := e.Accept(wl.tick(), w.pending[0].id, id)
		if err != nil {
			t.Fatal(err)
		}
		matched += len(res.DecisionIDs)
		if len(res.DecisionIDs) != 1 || decisionOf(t, e, res.DecisionIDs[0]).TaskID != want {
			t.Fatalf("worker %s freed a slot: decisions %v; a scan of every task picks %q", id, res.DecisionIDs, want)
		}
		if _, err := e.CreateTask(wl.tick(), wl.task()); err != nil {
			t.Fatal(err)
		}
	}
	if matched == 0 {
		t.Error("freeing capacity never matched a queued task")
	}
	if err := verifyInternal(e); err != nil {
		t.Fatal(err)
	}
}
