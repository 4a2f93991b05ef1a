package main

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBinaryDelayDistribution injects a seeded uniform delay over HTTP and reads the delays
// drawn back from the journal: within the bounds, spread, and the same again for the same
// seed. The delays are below half a millisecond, so the test waits about 10 ms in all.
func TestBinaryDelayDistribution(t *testing.T) {
	t.Parallel()
	c, _, _ := startBinary(t, plainBinary(t), nil, "-manual-clock")
	const fault = `{"method":"GET","path":"/v1/workers","seed":3,"delayDistribution":{"type":"uniform","minMs":0.1,"maxMs":0.4}}`
	draw := func(since int) []float64 {
		st, _ := c.do("POST", "/_mock/faults", fault)
		require.Equal(t, 201, st)
		for range 20 {
			st, _ := c.do("GET", "/v1/workers", "")
			require.Equal(t, 200, st)
		}
		st, _ = c.do("DELETE", "/_mock/faults", "")
		require.Equal(t, 204, st)
		st, page := c.do("GET", "/_mock/requests?path=/v1/workers&since="+strconv.Itoa(since), "")
		require.Equal(t, 200, st)
		var out []float64
		for _, r := range page["requests"].([]any) {
			out = append(out, r.(map[string]any)["Delay"].(float64))
		}
		return out
	}
	first := draw(0)
	require.Len(t, first, 20)
	distinct := map[float64]bool{}
	for _, d := range first {
		assert.GreaterOrEqual(t, d, 100e3, "ns")
		assert.LessOrEqual(t, d, 400e3, "ns")
		distinct[d] = true
	}
	assert.Greater(t, len(distinct), 15, "drawn, not fixed")
	again := draw(20)
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(again)
	assert.JSONEq(t, string(a), string(b), "the same seed waits the same delays")
}
