package mockserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResetIsABarrier resets the server while 8 clients create tasks that match at once.
// After Reset returns, nothing of the old state may surface: the new state has no worker, so
// it can emit no event, and any event recorded or delivered after Reset came from a request
// that resolved the old workspace.
func TestResetIsABarrier(t *testing.T) {
	const rounds, creators = 40, 8
	var resetDone atomic.Bool
	var mu sync.Mutex
	var late []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if resetDone.Load() {
			var ev struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(body, &ev)
			mu.Lock()
			late = append(late, ev.ID)
			mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	srv := Start(t, WithWebhookURL(recv.URL))

	for round := range rounds {
		resetDone.Store(false)
		mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true, "maxBacklogSize": 1000})
		stop := make(chan struct{})
		var started, finished sync.WaitGroup
		started.Add(creators)
		for range creators {
			finished.Add(1)
			go func() {
				defer finished.Done()
				var once sync.Once
				defer once.Do(started.Done)
				for {
					select {
					case <-stop:
						return
					default:
					}
					a := api(t, srv, "POST", "/tasks", map[string]any{"tags": []string{"english"}})
					assert.Equal(t, http.StatusAccepted, a.Status, "%s", a.Body)
					once.Do(started.Done)
				}
			}()
		}
		started.Wait()
		srv.Reset()
		resetDone.Store(true)
		evs, ds := srv.Events(), srv.Deliveries()
		close(stop)
		finished.Wait()
		require.NoError(t, srv.WaitForDeliveries(t.Context()))
		assert.Empty(t, evs, "round %d: events recorded at once after Reset", round)
		assert.Empty(t, ds, "round %d: deliveries recorded at once after Reset", round)
		assert.Empty(t, srv.Events(), "round %d: events of the old state recorded after Reset", round)
		assert.Empty(t, srv.Deliveries(), "round %d: deliveries recorded after Reset", round)
		mu.Lock()
		assert.Empty(t, late, "round %d: events delivered after Reset returned", round)
		late = nil
		mu.Unlock()
		if t.Failed() {
			return
		}
	}
}
