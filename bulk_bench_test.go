package taskrouting_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// countingTransport counts the calls a client makes: the distinct Idempotency-Key
// values it sends. A retry sends its call's key again, so a call retried on a loaded
// machine still counts once.
type countingTransport struct {
	mu   sync.Mutex
	keys map[string]bool
	next http.RoundTripper
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	t.keys[r.Header.Get("Idempotency-Key")] = true
	t.mu.Unlock()
	return t.next.RoundTrip(r)
}

func (t *countingTransport) calls() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return int64(len(t.keys))
}

// backfill is one way of creating every task in tasks; it returns how many were created.
type backfill func(ctx context.Context, c *taskrouting.Client, tasks []taskrouting.CreateTaskParams) (int, error)

// bulkBackfill is CreateAll with its defaults (chunks of 200, 4 calls at once).
func bulkBackfill(ctx context.Context, c *taskrouting.Client, tasks []taskrouting.CreateTaskParams) (int, error) {
	rep, err := c.Tasks.CreateAll(ctx, tasks, taskrouting.BulkOptions{})
	if err != nil {
		return 0, err
	}
	return rep.Created, nil
}

// singleBackfill is one Create per task from 64 goroutines: the baseline.
func singleBackfill(ctx context.Context, c *taskrouting.Client, tasks []taskrouting.CreateTaskParams) (int, error) {
	var (
		wg      sync.WaitGroup
		created atomic.Int64
		next    atomic.Int64
		errOnce sync.Once
		first   error
	)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(tasks)); i = next.Add(1) - 1 {
				if _, err := c.Tasks.Create(ctx, tasks[i]); err != nil {
					errOnce.Do(func() { first = err })
					return
				}
				created.Add(1)
			}
		}()
	}
	wg.Wait()
	return int(created.Load()), first
}

// timeBackfill creates n tasks in a fresh mock server with run and returns
// the wall time and the calls made (retries not counted again).
func timeBackfill(tb testing.TB, n int, run backfill) (time.Duration, int64) {
	tb.Helper()
	srv, err := mockserver.New(mockserver.WithRequestLog(0))
	require.NoError(tb, err)
	defer srv.Close()
	ct := &countingTransport{keys: map[string]bool{}, next: &http.Transport{MaxIdleConnsPerHost: 64}}
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithHTTPClient(&http.Client{Transport: ct}))
	require.NoError(tb, err)
	start := time.Now()
	created, err := run(context.Background(), c, tasksNamed("", n))
	took := time.Since(start)
	require.NoError(tb, err)
	require.Equal(tb, n, created)
	return took, ct.calls()
}

// TestBulkBackfillSmoke runs both backfills of BenchmarkBulkBackfill at a
// small size: each creates every task, and the pipeline makes one call per
// 200 tasks where the baseline makes one per task.
func TestBulkBackfillSmoke(t *testing.T) {
	const n = 1000
	_, bulkCalls := timeBackfill(t, n, bulkBackfill)
	_, singleCalls := timeBackfill(t, n, singleBackfill)
	assert.Equal(t, int64(n/taskrouting.MaxBulkTasks), bulkCalls)
	assert.Equal(t, int64(n), singleCalls)
}

// BenchmarkBulkBackfill creates 100,000 tasks in a fresh mock server twice
// per iteration, with CreateAll and with one Create per task from 64
// goroutines, and reports both wall times, both call counts and
// speedup = single-s / bulk-s, measured in the same run.
func BenchmarkBulkBackfill(b *testing.B) {
	const n = 100_000
	var bulk, single time.Duration
	var bulkCalls, singleCalls int64
	for b.Loop() {
		d, calls := timeBackfill(b, n, bulkBackfill)
		bulk, bulkCalls = bulk+d, bulkCalls+calls
		d, calls = timeBackfill(b, n, singleBackfill)
		single, singleCalls = single+d, singleCalls+calls
	}
	b.ReportMetric(bulk.Seconds()/float64(b.N), "bulk-s")
	b.ReportMetric(single.Seconds()/float64(b.N), "single-s")
	b.ReportMetric(float64(bulkCalls)/float64(b.N), "bulk-calls")
	b.ReportMetric(float64(singleCalls)/float64(b.N), "single-calls")
	b.ReportMetric(single.Seconds()/bulk.Seconds(), "speedup")
}
