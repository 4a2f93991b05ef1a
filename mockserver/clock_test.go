package mockserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestManualClock(t *testing.T) {
	t.Parallel()
	clk := NewManualClock(t0)
	a := Start(t, WithClock(clk))
	b := Start(t, WithClock(clk))
	for _, srv := range []*Server{a, b} {
		mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w", "tags": []string{"x"}, "available": true})
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t", "tags": []string{"x"},
			"escalation": map[string]any{"respondWithinMs": 10_000}})
	}

	clk.Advance(-time.Hour)
	assert.Equal(t, t0, clk.Now(), "a negative advance does nothing")
	clk.Set(t0.Add(-time.Minute))
	assert.Equal(t, t0.Add(-time.Minute), clk.Now(), "Set may go back")
	assert.Len(t, a.Events(), 1, "going back fires nothing")

	clk.Set(t0.Add(10 * time.Second))
	for _, srv := range []*Server{a, b} {
		var kinds []string
		for _, e := range srv.Events() {
			kinds = append(kinds, string(e.Kind))
		}
		assert.Equal(t, []string{"task.matched", "task.expired", "task.matched"}, kinds, "one clock drives both servers")
	}
}
