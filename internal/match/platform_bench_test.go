package match

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The brute-force oracles of BenchmarkScale under RulesPlatform, written from the rules in
// docs/contract.md ("How the platform matches") for the scale workload alone: workers
// with tags and no weights, patterns, thresholds, routing rules, vetoes or learning (they
// fail the benchmark if that changes), every worker registered in id order.

// oraclePlatformWorker returns the worker a new task with these tags must be offered to:
// among the available workers below their cap that share a tag with it, the highest
// priority + share of the worker's tags the task carries, ties to the first registered.
func oraclePlatformWorker(b *testing.B, e *Engine, tags []string) string {
	best, bestScore := -1, 0.0
	for _, w := range e.workers {
		requirePlainWorker(b, w)
		if !w.available || w.onBreak || len(w.pending) >= e.capOf(w) {
			continue
		}
		score := shareOf(w.tags, tags)
		n, _ := strconv.Atoi(strings.TrimPrefix(w.id, "worker"))
		if score > 0 && (best < 0 || score > bestScore || score == bestScore && n < best) {
			best, bestScore = n, score
		}
	}
	if best < 0 {
		return ""
	}
	return "worker" + strconv.Itoa(best)
}

// oraclePlatformTask returns the task w must be offered when it frees one slot: rank every
// queued task sharing a tag with it (priority × tags shared), keep the 50 lowest (ties by
// id as a string), and take the highest priority + share among them, ties to the one the
// worker walks first (higher priority, then the window's order).
func oraclePlatformTask(e *Engine, w *worker) string {
	type cand struct {
		id                string
		prio, rank, total float64
	}
	less := func(a, b cand) bool { return a.rank < b.rank || a.rank == b.rank && a.id < b.id }
	// Only the window's size of lowest candidates is kept, so the oracle allocates next to
	// nothing: its garbage would start the collector inside the timed accepts.
	k := e.cfg.CandidateWindow
	window := make([]cand, 0, k+1)
	for _, t := range e.tasks {
		if t.status != StatusQueued || containsID(t.rejected, w.id) || containsID(t.vetoed, w.id) {
			continue
		}
		shared := 0
		for _, tag := range t.tagsIn {
			if slices.Contains(w.tags, tag) {
				shared++
			}
		}
		if shared == 0 {
			continue
		}
		c := cand{id: t.id, prio: t.priority, rank: t.priority * float64(shared),
			total: t.priority + shareOf(w.tags, t.tagsIn)}
		if len(window) == k && !less(c, window[k-1]) {
			continue
		}
		i := len(window)
		for i > 0 && less(c, window[i-1]) {
			i--
		}
		window = slices.Insert(window, i, c)
		window = window[:min(len(window), k)]
	}
	// The walk: priority, highest first, ties in window order; the first best total wins.
	slices.SortStableFunc(window, func(a, b cand) int { return cmp.Compare(b.prio, a.prio) })
	best := -1
	for i, c := range window {
		if c.total != 0 && (best < 0 || c.total > window[best].total) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return window[best].id
}

// shareOf is the share of the worker's tags that the task's tags include.
func shareOf(workerTags, taskTags []string) float64 {
	n := 0
	for _, tag := range workerTags {
		if slices.Contains(taskTags, tag) {
			n++
		}
	}
	return float64(n) / float64(len(workerTags))
}

func requirePlainWorker(b *testing.B, w *worker) {
	if len(w.weights) > 0 || len(w.stats) > 0 || w.platPatternTags() {
		b.Fatalf("worker %s has weights, learning or patterns, which the oracle does not model", w.id)
	}
}

// BenchmarkPlatformWindow reads one worker's window on BenchmarkScale's 10k-workers-100k-tasks
// load under RulesPlatform, without changing anything: the part of a freed slot that
// depends on the queue (platform_window.go). Workers are visited in a fixed scattered order.
//
//	go test -run '^$' -bench '^BenchmarkPlatformWindow$' -benchtime 50000x ./internal/match/
func BenchmarkPlatformWindow(b *testing.B) {
	e, _, _ := loadScale(b, RulesPlatform, 10_000, 100_000)
	ids := e.WorkerIDs()
	read, i := 0, 0
	for b.Loop() {
		w := e.workers[ids[(i*7919)%len(ids)]]
		i++
		read += len(e.platWindow(w))
		clear(e.plat.met)
		e.plat.met = e.plat.met[:0]
	}
	if read == 0 {
		b.Fatal("no window held a task: the load is not measuring the window")
	}
	b.ReportMetric(float64(read)/float64(b.N), "tasks/window")
}
