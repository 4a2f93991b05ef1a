package mockserver

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/internal/match"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// checkInvariants reads every workspace under its lock and lists broken matcher invariants:
// a pending task has exactly one worker holding it in its queue, no worker is over its cap,
// and unavailable workers hold no new offers.
func checkInvariants(srv *Server, defaultCap int) []string {
	var broken []string
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	for _, k := range srv.keys {
		ws := srv.workspaces[k]
		ws.mu.Lock()
		holders := map[string][]string{}
		for _, id := range ws.engine.WorkerIDs() {
			w, _ := ws.engine.Worker(id)
			q, _ := ws.engine.WorkerQueue(id)
			capacity := defaultCap
			if w.MaxBacklogSize != nil {
				capacity = *w.MaxBacklogSize
			}
			if len(q) > capacity {
				broken = append(broken, fmt.Sprintf("worker %s holds %d offers, cap %d", id, len(q), capacity))
			}
			for _, tid := range q {
				holders[tid] = append(holders[tid], id)
			}
		}
		page, _ := ws.engine.Tasks(match.TaskQuery{Status: match.FilterPending, Limit: 100_000})
		for _, tk := range page.Tasks {
			if h := holders[tk.ID]; len(h) != 1 || h[0] != tk.WorkerID {
				broken = append(broken, fmt.Sprintf("pending task %s offered to %s but held by %v", tk.ID, tk.WorkerID, h))
			}
		}
		ws.mu.Unlock()
	}
	return broken
}

// TestConcurrentClients runs 32 SDK clients creating, accepting and completing at once (run
// it under -race). Afterwards the matcher invariants hold, every task is completed exactly
// once, and every event reached the webhook receiver exactly once, in emission order.
func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	const goroutines, perGoroutine, workers = 32, 8, 8
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	srv := Start(t, WithWebhookURL(hook.URL))
	rc.verify = func(body []byte, header string) error { return webhook.Verify(body, header, srv.SigningSecret()) }
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	admin, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	for i := range workers {
		_, err := admin.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: fmt.Sprintf("agent_%d", i), Tags: []string{"x"}, Available: taskrouting.Ptr(true)})
		require.NoError(t, err)
	}

	stop := make(chan struct{})
	var monitor sync.WaitGroup
	var violations []string
	monitor.Add(1)
	go func() {
		defer monitor.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			violations = append(violations, checkInvariants(srv, 9)...)
		}
	}()

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithMaxRetries(0))
			if !assert.NoError(t, err) {
				return
			}
			for i := range perGoroutine {
				id := fmt.Sprintf("task_%d_%d", g, i)
				if _, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: id, Tags: []string{"x"}}); !assert.NoError(t, err) {
					return
				}
				tk, err := c.Tasks.Get(ctx, id)
				if !assert.NoError(t, err) || !assert.Equal(t, taskrouting.TaskStatusPending, tk.Status) {
					return
				}
				other := "agent_0"
				if tk.WorkerID == other {
					other = "agent_1"
				}
				_, err = c.Decisions.Accept(ctx, id, other)
				assert.ErrorIs(t, err, taskrouting.ErrInvalidState, "only the offered worker accepts")
				if _, err := c.Decisions.Accept(ctx, id, tk.WorkerID); !assert.NoError(t, err) {
					return
				}
				if _, err := c.Decisions.Complete(ctx, id, tk.WorkerID, map[string]any{"n": i}); !assert.NoError(t, err) {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	monitor.Wait()
	assert.Empty(t, violations)
	assert.Empty(t, checkInvariants(srv, 9))

	var statuses []string
	for tk, err := range admin.Tasks.List(ctx, taskrouting.ListTasksParams{Status: taskrouting.TaskStatusAll, Limit: 100}) {
		require.NoError(t, err)
		statuses = append(statuses, string(tk.Status))
	}
	want := make([]string, goroutines*perGoroutine)
	for i := range want {
		want[i] = "completed"
	}
	assert.Empty(t, cmp.Diff(want, statuses))

	require.NoError(t, srv.WaitForDeliveries(ctx))
	evs := srv.Events()
	assert.Len(t, evs, 3*goroutines*perGoroutine, "matched, accepted, completed per task")
	assert.Empty(t, cmp.Diff(eventIDs(evs), rc.acceptedIDs()), "every event delivered once, in order")
	seen := map[string]bool{}
	for _, e := range evs {
		assert.False(t, seen[e.ID], "duplicate event id %s", e.ID)
		seen[e.ID] = true
	}
}
