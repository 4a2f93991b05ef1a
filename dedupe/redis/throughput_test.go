package redisdedupe

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// The three receivers the throughput benchmark compares, in the order of
// receivers.urls.
const (
	targetBare   = iota // net/http handler that only reads the body: the baseline
	targetMemory        // webhook.Handler with webhook.NewMemoryDeduper
	targetRedis         // webhook.Handler with this module's Deduper
	targetCount
)

var targetNames = [targetCount]string{"bare", "memory", "redis"}

const benchSecret = "whsec_receiver_throughput"

// delivery is one signed webhook request as a sender would post it.
type delivery struct {
	body []byte
	sig  string
}

// signedDeliveries returns n task.completed deliveries signed at `at`, with
// event ids distinct across batches (the batch name is part of the id), so
// that a deduper never answers from an earlier batch.
func signedDeliveries(batch string, n int, at time.Time) []delivery {
	out := make([]delivery, n)
	for i := range out {
		body := fmt.Appendf(nil,
			`{"event":"task.completed","id":"evt_%s_%d","createdAt":%d,"taskId":"task_%s_%d","workerId":"wrk_%d","result":{"resolved":true}}`,
			batch, i, at.UnixMilli(), batch, i, i%16)
		out[i] = delivery{body: body, sig: webhook.Sign(body, benchSecret, at)}
	}
	return out
}

// receivers are the three endpoints, each on its own loopback server. note
// is called once per delivery a receiver processed: with the event id for
// the webhook handlers, with the signature header for the bare handler
// (which does not parse the body, so it has no id).
type receivers struct {
	urls [targetCount]string
}

func startReceivers(tb testing.TB, rdb goredis.Scripter, at time.Time, note func(target int, key string)) *receivers {
	tb.Helper()
	// The clock is fixed at the signing time, so the signatures stay fresh
	// however long the run takes.
	now := func() time.Time { return at }
	verifier, err := webhook.NewVerifier(benchSecret, webhook.WithClock(now))
	require.NoError(tb, err)
	memory, err := webhook.NewMemoryDeduper(1 << 16)
	require.NoError(tb, err)
	shared, err := New(rdb, WithClock(now), WithLease(time.Minute), WithWindow(time.Hour))
	require.NoError(tb, err)

	handler := func(target int, d webhook.Deduper) http.Handler {
		return webhook.Handler(verifier, func(_ context.Context, ev webhook.Event) error {
			note(target, ev.ID)
			return nil
		}, webhook.WithDeduper(d))
	}
	handlers := [targetCount]http.Handler{
		targetBare: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Read the whole body, as webhook.Handler must before verifying.
			if _, err := io.ReadAll(r.Body); err != nil {
				http.Error(w, "read", http.StatusBadRequest)
				return
			}
			note(targetBare, r.Header.Get(webhook.SignatureHeader))
			w.WriteHeader(http.StatusNoContent)
		}),
		targetMemory: handler(targetMemory, memory),
		targetRedis:  handler(targetRedis, shared),
	}
	rs := &receivers{}
	for i, h := range handlers {
		srv := httptest.NewServer(h)
		tb.Cleanup(srv.Close)
		rs.urls[i] = srv.URL
	}
	return rs
}

// post sends every delivery to url from conns goroutines over keep-alive
// connections and returns the wall time. Any answer other than 204 fails
// the caller: a receiver that refused or deferred a delivery did not
// process it.
func post(tb testing.TB, url string, ds []delivery, conns int) time.Duration {
	tb.Helper()
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(ds) {
					return
				}
				req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(ds[i].body))
				if err != nil {
					failed.Store(err.Error())
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(webhook.SignatureHeader, ds[i].sig)
				resp, err := hc.Do(req)
				if err != nil {
					failed.Store(err.Error())
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusNoContent {
					failed.Store(fmt.Sprintf("status %d", resp.StatusCode))
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if msg := failed.Load(); msg != nil {
		tb.Fatalf("posting to %s: %v", url, msg)
	}
	return elapsed
}

// TestReceiverThroughputSmoke runs the benchmark's setup on a few events:
// each receiver processes every delivery exactly once, and the two
// de-duplicating receivers answer a redelivery of the whole batch with 204
// without processing anything again (so the deduper really is in the
// measured path).
func TestReceiverThroughputSmoke(t *testing.T) {
	rdb := startRedis(t)
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	seen := [targetCount]map[string]int{{}, {}, {}}
	rs := startReceivers(t, rdb, at, func(target int, key string) {
		mu.Lock()
		defer mu.Unlock()
		seen[target][key]++
	})
	ds := signedDeliveries("smoke", 12, at)
	for _, url := range rs.urls {
		post(t, url, ds, 4)
	}
	post(t, rs.urls[targetMemory], ds, 4)
	post(t, rs.urls[targetRedis], ds, 4)

	want := [targetCount]map[string]int{{}, {}, {}}
	for i, d := range ds {
		want[targetBare][d.sig] = 1
		want[targetMemory][fmt.Sprintf("evt_smoke_%d", i)] = 1
		want[targetRedis][fmt.Sprintf("evt_smoke_%d", i)] = 1
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range targetCount {
		assert.Equal(t, want[i], seen[i], "%s receiver", targetNames[i])
	}
}

// BenchmarkReceiverThroughput measures how many signed deliveries per second
// a receiver absorbs over loopback: webhook.Handler with this module's
// Redis deduper and with webhook.NewMemoryDeduper, against a bare net/http
// handler that only reads the body. All three get the same deliveries
// (real signatures, a distinct event id each) from the same load generator
// in the same run. Each iteration posts a fresh batch to bare, memory, redis
// and another to redis, memory, bare, so a change in machine load weighs on
// all three alike. It reports each rate and the two ratios to the bare rate.
//
//	go test -run '^$' -bench ReceiverThroughput -benchtime 10x -count 5 .
func BenchmarkReceiverThroughput(b *testing.B) {
	const batch, conns = 500, 8
	rdb := startRedis(b)
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var processed [targetCount]atomic.Int64
	rs := startReceivers(b, rdb, at, func(target int, _ string) { processed[target].Add(1) })

	var elapsed [targetCount]time.Duration
	round := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		forward := signedDeliveries(fmt.Sprintf("%da", round), batch, at)
		backward := signedDeliveries(fmt.Sprintf("%db", round), batch, at)
		round++
		b.StartTimer()
		for _, target := range []int{targetBare, targetMemory, targetRedis} {
			elapsed[target] += post(b, rs.urls[target], forward, conns)
		}
		for _, target := range []int{targetRedis, targetMemory, targetBare} {
			elapsed[target] += post(b, rs.urls[target], backward, conns)
		}
	}
	b.StopTimer()

	n := int64(round * 2 * batch)
	var rate [targetCount]float64
	for target := range targetCount {
		if got := processed[target].Load(); got != n {
			b.Fatalf("%s receiver processed %d deliveries, want %d", targetNames[target], got, n)
		}
		rate[target] = float64(n) / elapsed[target].Seconds()
	}
	b.ReportMetric(rate[targetMemory]/rate[targetBare], "memory/bare")
	b.ReportMetric(rate[targetRedis]/rate[targetBare], "redis/bare")
	b.ReportMetric(rate[targetBare], "bare-ev/s")
	b.ReportMetric(rate[targetMemory], "memory-ev/s")
	b.ReportMetric(rate[targetRedis], "redis-ev/s")
}
