package mockserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestQACloseLeavesNoGoroutines: after Close, nothing the server started keeps running —
// with the real clock (its timer loop) and a manual one, with webhook retries pending and
// connections (API and webhook) open. Not parallel: it counts the process's goroutines.
func TestQACloseLeavesNoGoroutines(t *testing.T) {
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError) // so retries stay scheduled at Close
	}))
	defer hook.Close()
	before := runtime.NumGoroutine()

	for _, manual := range []bool{false, true} {
		opts := []mockserver.Option{mockserver.WithWebhookURL(hook.URL)}
		if manual {
			opts = append(opts, mockserver.WithClock(mockserver.NewManualClock(time.Now())))
		}
		srv, err := mockserver.New(opts...)
		require.NoError(t, err)
		tr := &http.Transport{}
		c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithHTTPClient(&http.Client{Transport: tr}))
		require.NoError(t, err)
		ctx := context.Background()
		_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w", Tags: []string{"x"}, Available: taskrouting.Ptr(true)})
		require.NoError(t, err)
		_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"x"}})
		require.NoError(t, err)
		require.NoError(t, srv.Flush(ctx))
		srv.Close()
		tr.CloseIdleConnections()
	}
	hook.CloseClientConnections()

	// Connection goroutines end just after their sockets close; give them a bounded moment
	// by yielding, never by sleeping a guessed time.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines before %d, after Close %d:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// TestQACloseTwiceDuringDelivery: Close is idempotent even when called twice at once while a
// webhook attempt is in flight; both calls return once the attempt finished.
func TestQACloseTwiceDuringDelivery(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		once.Do(func() { close(arrived) })
		<-release
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(hook.Close)
	srv, err := mockserver.New(mockserver.WithWebhookURL(hook.URL))
	require.NoError(t, err)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w", Tags: []string{"x"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"x"}})
	require.NoError(t, err)
	<-arrived

	var wg sync.WaitGroup
	closed := make(chan struct{}, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv.Close()
			closed <- struct{}{}
		}()
	}
	select {
	case <-closed:
		t.Fatal("Close returned while a webhook attempt was in flight")
	default:
	}
	close(release)
	wg.Wait()
	srv.Close() // a third, later call is a no-op too
	ds := srv.Deliveries()
	require.NotEmpty(t, ds)
	assert.Equal(t, mockserver.OutcomeDelivered, ds[0].Outcome)
}
