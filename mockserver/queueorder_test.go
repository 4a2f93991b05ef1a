package mockserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestQueueOrderOnOneInstant creates four tasks while the manual clock stands still and
// serves them one by one to a worker with room for one offer: equal priorities come out in
// creation order, whatever their ids.
func TestQueueOrderOnOneInstant(t *testing.T) {
	t.Parallel()
	// Creation order breaks ties under the every-tag rules; the platform's falls to the task
	// id (TestPlatformRules in internal/match).
	srv := Start(t, WithClock(NewManualClock(t0)), WithMatcher(MatcherConfig{Rules: RulesEveryTag}))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "maxBacklogSize": 1})
	for _, tk := range []struct {
		id       string
		priority int
	}{{"t4-low", 0}, {"t3-mid", 1}, {"t2-mid2", 1}, {"t1-high", 5}} {
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": tk.id, "tags": []string{"a"}, "priority": tk.priority})
	}
	mustAPI(t, srv, 200, "POST", "/workers/w1/availability", map[string]any{"available": true})
	var served []string
	for range 4 {
		q := mustAPI(t, srv, 200, "GET", "/workers/w1/queue", nil).json(t)
		ids, _ := q["taskIds"].([]any)
		if !assert.Len(t, ids, 1) {
			return
		}
		id := ids[0].(string)
		served = append(served, id)
		mustAPI(t, srv, 200, "POST", "/tasks/"+id+"/accept", map[string]any{"workerId": "w1"})
		mustAPI(t, srv, 200, "POST", "/tasks/"+id+"/complete", map[string]any{"workerId": "w1"})
	}
	assert.Equal(t, []string{"t1-high", "t3-mid", "t2-mid2", "t4-low"}, served)
}
