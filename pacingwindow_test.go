package taskrouting

import (
	"sort"
	"testing"
	"time"
)

// simulatePacing runs n creates through the pacer's window rule on explicit times, with
// the limiter's spacing (every window / (pacingShare × limit)) and a network that holds
// every create leaving between stallFrom and stallTo until stallTo (then 5 ms each way).
// It returns when each create reached the server. withWindow false leaves the window rule
// out: the limiter's spacing alone, as the pacer was before.
func simulatePacing(n, limit int, window, stallFrom, stallTo time.Duration, withWindow bool) []time.Duration {
	t0 := time.Unix(1_700_000_000, 0)
	p := newQuotaPacer(window, time.Minute)
	p.limit = limit
	interval := time.Duration(float64(window) / (pacingShare * float64(limit)))
	type answer struct{ at time.Duration }
	var pending []answer // answers still to come, by time
	var arrivals []time.Duration
	next := time.Duration(0) // the limiter's next slot
	for len(arrivals) < n {
		at := next
		for {
			// Answers that came by now are recorded first.
			sort.Slice(pending, func(i, j int) bool { return pending[i].at < pending[j].at })
			for len(pending) > 0 && pending[0].at <= at {
				p.done(t0.Add(pending[0].at))
				pending = pending[1:]
			}
			full, until := false, time.Time{}
			if withWindow {
				full, until = p.windowFull(t0.Add(at))
			}
			if !full {
				break
			}
			// Wait for the window to free a slot or for the next answer.
			wake := time.Duration(1<<62 - 1)
			if !until.IsZero() {
				wake = until.Sub(t0)
			}
			if len(pending) > 0 && pending[0].at < wake {
				wake = pending[0].at
			}
			at = max(wake, at+time.Nanosecond)
		}
		p.inFlight++
		arrive := at + 5*time.Millisecond
		if at >= stallFrom && at < stallTo {
			arrive = stallTo
		}
		arrivals = append(arrivals, arrive)
		pending = append(pending, answer{arrive + 5*time.Millisecond})
		next = at + interval
	}
	return arrivals
}

// maxInWindow is the most arrivals the server counts in one of its fixed windows, which
// start at the first arrival it sees.
func maxInWindow(arrivals []time.Duration, window time.Duration) int {
	sorted := append([]time.Duration(nil), arrivals...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	counts := map[int64]int{}
	most := 0
	for _, a := range sorted {
		k := int64((a - sorted[0]) / window)
		counts[k]++
		most = max(most, counts[k])
	}
	return most
}

// TestPacingHoldsADelayedBurst: creates the limiter spaced when they left, but held up on
// the way (a stall of 1.1 s), reach the server together. The limiter alone lets the burst
// through: the server sees more than its limit in one window, a 429. With the window rule
// the pacer holds creates back while limit of them are in flight or recently answered, and
// the server never sees more than its limit in a window. Explicit times: no dependence on
// how the machine schedules goroutines.
func TestPacingHoldsADelayedBurst(t *testing.T) {
	const limit, n = 4, 16
	window := time.Second
	for _, tc := range []struct {
		name               string
		stallFrom, stallTo time.Duration
		withWindow, wantOK bool
	}{
		{"no stall, limiter alone", 0, 0, false, true},
		{"no stall, with the window rule", 0, 0, true, true},
		{"stall, limiter alone lets the burst through", 200 * time.Millisecond, 1300 * time.Millisecond, false, false},
		{"stall, with the window rule", 200 * time.Millisecond, 1300 * time.Millisecond, true, true},
		{"long stall, with the window rule", 100 * time.Millisecond, 3500 * time.Millisecond, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arrivals := simulatePacing(n, limit, window, tc.stallFrom, tc.stallTo, tc.withWindow)
			got := maxInWindow(arrivals, window)
			if ok := got <= limit; ok != tc.wantOK {
				t.Errorf("at most %d creates in one server window (limit %d), want within the limit: %v; arrivals %v", got, limit, tc.wantOK, arrivals)
			}
		})
	}
}

// Rule: the window rule holds at every limit, 1 included: with one create allowed a window,
// a second may not leave while the first is in flight or was answered within the window.
func TestPacingWindowAtALimitOfOne(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	p := newQuotaPacer(time.Minute, time.Minute)
	p.limit = 1
	if full, _ := p.windowFull(t0); full {
		t.Fatal("an empty window is full")
	}
	p.inFlight++
	if full, _ := p.windowFull(t0); !full {
		t.Error("a create in flight leaves room for another at a limit of 1")
	}
	p.done(t0.Add(time.Second))
	full, until := p.windowFull(t0.Add(30 * time.Second))
	if !full || !until.Equal(t0.Add(61*time.Second)) {
		t.Errorf("30 s after an answer: full %v until %v; want full until %v", full, until, t0.Add(61*time.Second))
	}
	if full, _ := p.windowFull(t0.Add(61 * time.Second)); full {
		t.Error("a window after the answer is still full")
	}
}
