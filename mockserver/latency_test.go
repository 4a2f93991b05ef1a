package mockserver

import (
	"context"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// delaysOf injects f on GET /workers of a fresh server whose faulted requests do not wait
// (the sleeper seam records the delay instead), sends n requests and returns the delays the
// server waited, checking they are what the journal recorded.
func delaysOf(t *testing.T, f Fault, n int) []time.Duration {
	t.Helper()
	srv := Start(t, WithClock(NewManualClock(t0)))
	var mu sync.Mutex
	var slept []time.Duration
	srv.faults.sleep = func(_ context.Context, d time.Duration) {
		mu.Lock()
		slept = append(slept, d)
		mu.Unlock()
	}
	f.Method, f.Path = "GET", "/workers"
	require.NoError(t, srv.InjectFault(f))
	for range n {
		mustAPI(t, srv, 200, "GET", "/workers", nil)
	}
	var recorded []time.Duration
	for _, r := range srv.RequestsWhere(RequestFilter{Path: "/workers"}) {
		recorded = append(recorded, r.Delay)
	}
	require.Empty(t, cmp.Diff(slept, recorded), "the journal holds the delays waited")
	require.Len(t, slept, n)
	return slept
}

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestDelayDistributionsDraw checks the shape of each distribution's draws: fixed always
// waits the same, uniform covers [min, max] and nothing outside, log-normal has its median
// and spread and respects its cap.
func TestDelayDistributionsDraw(t *testing.T) {
	const n = 400
	t.Run("fixed", func(t *testing.T) {
		for _, d := range delaysOf(t, Fault{DelayDist: &DelayDistribution{Type: DelayFixed, Fixed: 70 * time.Millisecond}}, 20) {
			assert.Equal(t, 70*time.Millisecond, d)
		}
	})
	t.Run("uniform", func(t *testing.T) {
		lo, hi := 100*time.Millisecond, 300*time.Millisecond
		ds := delaysOf(t, Fault{Seed: 1, DelayDist: &DelayDistribution{Type: DelayUniform, Min: lo, Max: hi}}, n)
		assert.GreaterOrEqual(t, slices.Min(ds), lo)
		assert.LessOrEqual(t, slices.Max(ds), hi)
		assert.Less(t, slices.Min(ds), lo+10*time.Millisecond, "reaches down to min")
		assert.Greater(t, slices.Max(ds), hi-10*time.Millisecond, "reaches up to max")
		assert.InDelta(t, float64(200*time.Millisecond), float64(medianOf(ds)), float64(20*time.Millisecond))
	})
	t.Run("lognormal", func(t *testing.T) {
		const sigma = 0.5
		median := 80 * time.Millisecond
		ds := delaysOf(t, Fault{Seed: 2, DelayDist: &DelayDistribution{Type: DelayLogNormal, Median: median, Sigma: sigma}}, n)
		assert.InDelta(t, float64(median), float64(medianOf(ds)), float64(median)/10, "half the draws below the median")
		var sum, sq float64
		for _, d := range ds {
			l := math.Log(float64(d) / float64(median))
			sum += l
			sq += l * l
		}
		mean := sum / n
		assert.InDelta(t, sigma, math.Sqrt(sq/n-mean*mean), sigma*0.15, "spread of the logarithm")
		assert.Greater(t, slices.Max(ds), 2*median, "a tail above the median")
	})
	t.Run("lognormal capped", func(t *testing.T) {
		limit := 120 * time.Millisecond
		ds := delaysOf(t, Fault{Seed: 2, DelayDist: &DelayDistribution{Type: DelayLogNormal, Median: 80 * time.Millisecond, Sigma: 1, Max: limit}}, n)
		assert.Equal(t, limit, slices.Max(ds))
		assert.Greater(t, slices.Index(ds, limit), -1)
	})
}

// TestDelayDistributionIsSeeded: the same Seed waits the same sequence of delays, also with
// a Fraction rolling its own dice; another Seed does not.
func TestDelayDistributionIsSeeded(t *testing.T) {
	dist := &DelayDistribution{Type: DelayLogNormal, Median: 50 * time.Millisecond, Sigma: 0.8}
	a := delaysOf(t, Fault{Seed: 9, DelayDist: dist}, 30)
	b := delaysOf(t, Fault{Seed: 9, DelayDist: dist}, 30)
	assert.Empty(t, cmp.Diff(a, b))
	c := delaysOf(t, Fault{Seed: 10, DelayDist: dist}, 30)
	assert.NotEqual(t, a, c)
}

// TestDelayDistributionOverAdmin sends the same distribution through POST /_mock/faults (in
// milliseconds) and checks it draws what the Go Fault draws.
func TestDelayDistributionOverAdmin(t *testing.T) {
	want := delaysOf(t, Fault{Seed: 4, DelayDist: &DelayDistribution{Type: DelayUniform, Min: 500 * time.Microsecond, Max: 20 * time.Millisecond}}, 10)

	srv := Start(t, WithClock(NewManualClock(t0)))
	var got []time.Duration
	srv.faults.sleep = func(_ context.Context, d time.Duration) { got = append(got, d) }
	a := adminPost(t, srv, "/faults", `{"method":"GET","path":"/v1/workers","seed":4,"delayDistribution":{"type":"uniform","minMs":0.5,"maxMs":20}}`)
	require.Equal(t, 201, a.Status, "%s", a.Body)
	for range 10 {
		mustAPI(t, srv, 200, "GET", "/workers", nil)
	}
	assert.Empty(t, cmp.Diff(want, got))

	for _, body := range []string{
		`{"delayDistribution":{"type":"pareto","medianMs":5}}`,
		`{"delayDistribution":{"type":"uniform","minMs":9,"maxMs":3}}`,
		`{"delayDistribution":{"type":"lognormal","medianMs":0,"sigma":1}}`,
		`{"delayDistribution":{"type":"fixed","ms":5},"delayMs":5}`,
		`{"delayDistribution":{"type":"fixed","ms":1e300}}`,
	} {
		a := adminPost(t, srv, "/faults", body)
		assert.Equal(t, 400, a.Status, "%s: %s", body, a.Body)
		assert.Equal(t, CodeInvalidBody, a.errCode(t), body)
	}
}

func TestInvalidDelayDistributions(t *testing.T) {
	srv := Start(t)
	for _, d := range []DelayDistribution{
		{Type: DelayFixed},
		{Type: DelayUniform, Min: -1, Max: 5},
		{Type: DelayUniform, Min: 6, Max: 5},
		{Type: DelayUniform},
		{Type: DelayLogNormal, Median: 5, Sigma: -1},
		{Type: DelayLogNormal, Median: 5, Sigma: math.NaN()},
		{Type: DelayLogNormal, Sigma: 1},
		{Type: DelayLogNormal, Median: 2 * time.Hour},
		{Type: "pareto", Median: 5},
	} {
		assert.ErrorIs(t, srv.InjectFault(Fault{DelayDist: &d}), ErrInvalidFault, "%+v", d)
	}
}

// adminPost sends POST with a JSON body to an admin endpoint (path under /_mock).
func adminPost(t *testing.T, srv *Server, path, body string) answer {
	t.Helper()
	req, err := http.NewRequest("POST", srv.AdminURL()+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}
