package mockserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRetentionCapsWhatGrows: with WithRetention(10), 30 tasks offered and rejected produce
// far more events, offers, task records and worker outcomes than 10; Events returns the
// newest 10 and the ledger and the time record hold between 10 and 20 of each, the newest
// kept. The stats reads still answer.
func TestRetentionCapsWhatGrows(t *testing.T) {
	const keep = 10
	clk := NewManualClock(time.UnixMilli(1_700_000_000_000))
	srv := Start(t, WithClock(clk), WithRetention(keep))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"english"}, "available": true})
	for i := range 30 {
		id := fmt.Sprintf("t%02d", i)
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": id, "tags": []string{"english"}})
		mustAPI(t, srv, 200, "POST", "/tasks/"+id+"/accept", map[string]any{"workerId": "w1"})
		mustAPI(t, srv, 200, "POST", "/tasks/"+id+"/complete", map[string]any{"workerId": "w1"})
	}
	evs := srv.Events()
	require.Len(t, evs, keep)
	assert.Equal(t, "t29", evs[len(evs)-1].TaskID, "the newest event is kept")

	ws := srv.workspaces[srv.keys[0]]
	ws.mu.Lock()
	offers, tasks, outcomes := len(ws.ledger.offers), len(ws.ledger.tasks), len(ws.time.logs["w1"].outcomes)
	newestOffer := ws.ledger.offers[len(ws.ledger.offers)-1].taskID
	_, oldestKept := ws.ledger.tasks["t00"]
	ws.mu.Unlock()
	for name, n := range map[string]int{"ledger offers": offers, "ledger tasks": tasks, "w1 outcomes": outcomes} {
		assert.GreaterOrEqual(t, n, keep, name)
		assert.Less(t, n, 2*keep, name)
	}
	assert.Equal(t, "t29", newestOffer)
	assert.False(t, oldestKept, "the oldest task's milestones were dropped")
	for _, path := range []string{"/stats", "/stats/sla", "/stats/workers?from=2023-11-14T00:00:00Z&to=2023-11-16T00:00:00Z"} {
		a := api(t, srv, "GET", path, nil)
		assert.Equal(t, http.StatusOK, a.Status, "%s: %s", path, a.Body)
	}
}

// TestRetentionNegativeKeepsEverything: a negative retention turns the bound off.
func TestRetentionNegativeKeepsEverything(t *testing.T) {
	srv := Start(t, WithRetention(-1))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"english"}, "available": true})
	for i := range 5 {
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": fmt.Sprintf("t%d", i), "tags": []string{"english"}})
	}
	assert.Len(t, srv.Events(), 5)
}

// heapHeld is the heap memory the process holds from the OS: live and dead objects, and
// free pages not yet returned.
func heapHeld() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	metrics.Read(s)
	var n uint64
	for _, x := range s {
		n += x.Value.Uint64()
	}
	return n
}

// TestResetReturnsMemory: after POST /_mock/reset the heap the dropped state took is handed
// back to the OS at once, not held at its peak until the runtime's slow scavenger gets to it.
func TestResetReturnsMemory(t *testing.T) {
	srv := Start(t)
	// Garbage the earlier tests left (and pages freed but not yet returned) would count in
	// the base and may be collected during the load, so the base is taken after a full
	// collection that returns what it frees.
	debug.FreeOSMemory()
	base := heapHeld()
	for i := range 100 {
		batch := make([]map[string]any, 200)
		for j := range batch {
			batch[j] = map[string]any{"id": fmt.Sprintf("t%d_%d", i, j), "tags": []string{"english", "billing"}, "title": "a task with a title"}
		}
		mustAPI(t, srv, 200, "POST", "/tasks/bulk", map[string]any{"tasks": batch})
	}
	peak := heapHeld()
	require.Greater(t, peak, base+8<<20, "the load should take some memory")
	req, err := http.NewRequest("POST", srv.AdminURL()+"/reset", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	after := heapHeld()
	t.Logf("heap held from the OS: %d MiB before the load, %d MiB at its peak, %d MiB after the reset", base>>20, peak>>20, after>>20)
	assert.Less(t, after, base+(peak-base)/2, "most of the load's memory is still held after the reset")
}

// TestKeepNewestTrimsAtTwiceTheRetention: appended one at a time, a record never reaches 2n
// entries (it grows to 2n-1, then the next append drops it to exactly the newest n), and
// what is kept is the newest, in order.
func TestKeepNewestTrimsAtTwiceTheRetention(t *testing.T) {
	for _, n := range []int{1, 3, 10} {
		var s []int
		longest, trims := 0, 0
		for i := range 7 * n {
			before := len(s)
			s = keepNewest(append(s, i), n)
			longest = max(longest, len(s))
			if len(s) < before+1 {
				trims++
				require.Len(t, s, n, "n=%d: a trim keeps exactly the newest n", n)
			}
			require.Equal(t, i, s[len(s)-1], "n=%d: the newest entry is kept", n)
			for j := 1; j < len(s); j++ {
				require.Equal(t, s[j-1]+1, s[j], "n=%d: the kept entries are the newest, in order", n)
			}
		}
		assert.Equal(t, 2*n-1, longest, "n=%d: the record grows to 2n-1 and is trimmed when it reaches 2n", n)
		assert.Equal(t, 6, trims, "n=%d: 7n appends trim at 2n, 3n, ..., 7n", n)
	}
	assert.Len(t, keepNewest(make([]int, 50), 0), 50, "n <= 0 keeps everything")
}

// TestEventsAndDeliveriesReturnTheNewestN: with WithRetention(n), Events and Deliveries
// return exactly the newest n, also while the store holds more than n (between trims).
func TestEventsAndDeliveriesReturnTheNewestN(t *testing.T) {
	const keep = 4
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer hook.Close()
	srv := Start(t, WithRetention(keep), WithWebhookURL(hook.URL))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"english"}, "available": true})
	// Each create emits task.matched: 6 events, more than keep and fewer than 2 * keep, so
	// the store holds all six and returns four.
	for i := range 6 {
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": fmt.Sprintf("t%d", i), "tags": []string{"english"}})
	}
	require.NoError(t, srv.WaitForDeliveries(t.Context()))
	evs, ds := srv.Events(), srv.Deliveries()
	require.Len(t, evs, keep)
	require.Len(t, ds, keep)
	srv.deliver.mu.Lock()
	stored, attempts := srv.deliver.events, srv.deliver.log
	wantEvents := stored[len(stored)-keep:]
	wantLog := attempts[len(attempts)-keep:]
	srv.deliver.mu.Unlock()
	require.Greater(t, len(stored), keep, "the store holds more than it returns")
	assert.Equal(t, wantEvents[0].ID, evs[0].ID, "Events starts at the newest keep-th event")
	assert.Equal(t, wantLog[0].EventID, ds[0].EventID, "Deliveries starts at the newest keep-th attempt")
}

// TestRetentionForgetsAnOpenOfferTrimmedOffTheLedger: an offer still open when the ledger
// trims it is forgotten: ending it later (accept, reject, cancel) neither fails nor writes
// into another offer's record, and the stats keep answering.
func TestRetentionForgetsAnOpenOfferTrimmedOffTheLedger(t *testing.T) {
	const keep = 3
	srv := Start(t, WithRetention(keep))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"english"}, "available": true, "maxBacklogSize": 100})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "open", "tags": []string{"english"}})
	for i := range 2 * keep {
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": fmt.Sprintf("t%d", i), "tags": []string{"english"}})
	}
	ws := srv.workspaces[srv.keys[0]]
	ws.mu.Lock()
	_, tracked := ws.ledger.open["open"]
	for id, i := range ws.ledger.open {
		require.GreaterOrEqual(t, i, ws.ledger.dropped, "open offer of %s points before the kept offers", id)
	}
	ws.mu.Unlock()
	assert.False(t, tracked, "the trimmed open offer is no longer tracked")
	mustAPI(t, srv, 200, "POST", "/tasks/open/accept", map[string]any{"workerId": "w1"})
	mustAPI(t, srv, 200, "POST", "/tasks/open/complete", map[string]any{"workerId": "w1"})
	ws.mu.Lock()
	for _, o := range ws.ledger.offers {
		assert.NotEqual(t, "open", o.taskID, "no kept offer is the trimmed one's")
		assert.Empty(t, o.outcome, "%s: the kept offers are all still open", o.taskID)
	}
	ws.mu.Unlock()
	for _, path := range []string{"/stats", "/stats/sla"} {
		mustAPI(t, srv, 200, "GET", path, nil)
	}
}
