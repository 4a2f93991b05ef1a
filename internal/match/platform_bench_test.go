package match

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkPlatformPass measures commands under RulesPlatform on BenchmarkScale's workload
// (Zipf tags over 300, workers with 3-8 tags, tasks with 1-3, every worker filled to its
// cap, then more tasks queued). A pass looks at the workers a command marked and, for each
// one below its cap, reads its window from the per-tag orders (platform_window.go):
// create-and-match pays the queueing (every worker is full), free-capacity an accept that
// frees one slot, that worker's window and its offer.
//
//	go test -run '^$' -bench '^BenchmarkPlatformPass$/^1k' -benchtime 2000x ./internal/match/
//	go test -run '^$' -bench '^BenchmarkPlatformPass$/^10k-workers-100k-tasks/create-and-match$' -benchtime 20000x ./internal/match/
//	go test -run '^$' -bench '^BenchmarkPlatformPass$/^10k-workers-100k-tasks/free-capacity$' -benchtime 20000x ./internal/match/
func BenchmarkPlatformPass(b *testing.B) {
	for _, size := range []struct {
		name            string
		workers, queued int
	}{{"1k-workers-10k-tasks", 1_000, 10_000}, {"10k-workers-100k-tasks", 10_000, 100_000}} {
		b.Run(size.name+"/create-and-match", func(b *testing.B) {
			e, wl := loadPlatform(b, size.workers, size.queued)
			lat := make(latencies, 0, 1<<12)
			for b.Loop() {
				in, now := wl.task(), wl.tick()
				start := time.Now()
				if _, err := e.CreateTask(now, in); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			lat.report(b, false)
		})
		b.Run(size.name+"/free-capacity", func(b *testing.B) {
			e, wl := loadPlatform(b, size.workers, size.queued)
			lat := make(latencies, 0, 1<<12)
			matched, i := 0, 0
			for b.Loop() {
				var w *worker
				for w == nil || len(w.pending) == 0 {
					w = e.workers["worker"+strconv.Itoa(i%size.workers)]
					i++
				}
				now := wl.tick()
				start := time.Now()
				res, err := e.Accept(now, w.pending[0].id, w.id)
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				matched += len(res.DecisionIDs)
			}
			lat.report(b, false)
			b.ReportMetric(float64(matched)/float64(len(lat)), "matched/op")
		})
	}
}

// loadPlatform is loadScale under RulesPlatform.
func loadPlatform(tb testing.TB, workers, queued int) (*Engine, *workload) {
	tb.Helper()
	e := New(Config{Rules: RulesPlatform, OfferTimeout: time.Hour})
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
	return e, wl
}
