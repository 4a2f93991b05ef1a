package mockserver

import (
	"fmt"
	"net/http"
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
