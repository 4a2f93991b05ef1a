package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/race"
)

// benchBody is the create request both servers receive.
var benchBody = []byte(`{"tags":["english","billing"],"priority":5,"title":"Refund request","meta":{"orderId":"o_123"}}`)

// bareCreateInput is what the baseline decodes: the same JSON, into a plain struct.
type bareCreateInput struct {
	Tags     []string       `json:"tags"`
	Priority float64        `json:"priority"`
	Title    string         `json:"title"`
	Meta     map[string]any `json:"meta"`
}

// bareHandler is the baseline: a net/http handler that decodes the body and encodes an
// answer of the same shape, and nothing else.
func bareHandler() http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in bareCreateInput
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Tags) == 0 {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_ = json.NewEncoder(w).Encode(taskRef{ID: fmt.Sprintf("task_%d", n.Add(1)), Status: "queued"})
	})
}

// loadGen sends total POSTs over loopback from `conns` goroutines with keep-alive
// connections, as a client with an Idempotency-Key per request would, and returns the wall
// time. Any answer other than 202 fails the benchmark.
func loadGen(b *testing.B, url, key string, total, conns int) time.Duration {
	b.Helper()
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
				i := next.Add(1)
				if i > int64(total) {
					return
				}
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(benchBody))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", fmt.Sprintf("bench-%d", i))
				resp, err := hc.Do(req)
				if err != nil {
					failed.Store(err.Error())
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					failed.Store(fmt.Sprintf("status %d", resp.StatusCode))
					return
				}
			}
		}()
	}
	wg.Wait()
	if msg := failed.Load(); msg != nil {
		b.Fatalf("load generator: %v", msg)
	}
	return time.Since(start)
}

// BenchmarkPostTasks measures POST /v1/tasks throughput of the mock server against the bare
// handler with the same load generator in the same run. Each iteration runs small batches in
// the order bare, mock, mock, bare, so a change in machine load during the run weighs on both
// alike. It reports both rates and their ratio, and fails below the 0.5x bar.
//
//	go test -run '^$' -bench PostTasks -benchtime 20x ./mockserver/
func BenchmarkPostTasks(b *testing.B) {
	const batch, conns = 500, 8
	bare := httptest.NewServer(bareHandler())
	defer bare.Close()
	srv, err := New(WithRequestLog(1000), withoutResponseChecks())
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()

	var bareTime, mockTime time.Duration
	b.ResetTimer()
	for b.Loop() {
		bareTime += loadGen(b, bare.URL+"/v1/tasks", "sk_test_bench", batch, conns)
		mockTime += loadGen(b, srv.URL()+"/tasks", srv.APIKey(), batch, conns)
		mockTime += loadGen(b, srv.URL()+"/tasks", srv.APIKey(), batch, conns)
		bareTime += loadGen(b, bare.URL+"/v1/tasks", "sk_test_bench", batch, conns)
	}
	n := float64(b.N * 2 * batch)
	bareRate, mockRate := n/bareTime.Seconds(), n/mockTime.Seconds()
	b.ReportMetric(bareRate, "bare-req/s")
	b.ReportMetric(mockRate, "mock-req/s")
	b.ReportMetric(mockRate/bareRate, "ratio")
	// Under the race detector the mock server's extra instrumented work slows it more than
	// the bare handler, so the bar is only reported there.
	if mockRate/bareRate < 0.5 && !race.Enabled {
		b.Errorf("mock server throughput is %.2fx the bare handler's, below the 0.5x bar", mockRate/bareRate)
	}
}
