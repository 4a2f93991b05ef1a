package mockserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// TestTimelineArithmetic checks the timeline's sums by hand: clipping to a window, breaks
// outside a shift not taken off worked time, zero-long entries, and medians.
func TestTimelineArithmetic(t *testing.T) {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	var tl timeline
	l := tl.log("w")
	l.shifts = []*timeEntry{{id: "s1", kind: "shift", start: at(0), end: at(60)}, {id: "s2", kind: "shift", start: at(120)}}
	l.breaks = []*timeEntry{
		{id: "b1", kind: "break", start: at(50), end: at(70)},   // 10 min inside s1, 10 outside
		{id: "b2", kind: "break", start: at(130), end: at(130)}, // zero long
	}
	now := at(150)
	tests := []struct {
		name string
		w    window
		want timeTotals
	}{
		{"everything", window{at(-10), now.Add(time.Millisecond)}, timeTotals{shiftCount: 2, breakCount: 2,
			onShift: 90 * time.Minute, breakTime: 20 * time.Minute, longestBreak: 20 * time.Minute, working: 80 * time.Minute}},
		{"clipped to the first half hour", window{at(0), at(30)}, timeTotals{shiftCount: 1, onShift: 30 * time.Minute, working: 30 * time.Minute}},
		{"only the break's tail", window{at(60), at(100)}, timeTotals{breakCount: 1, breakTime: 10 * time.Minute, longestBreak: 10 * time.Minute}},
		{"the zero-long break's instant", window{at(130), at(131)}, timeTotals{shiftCount: 1, breakCount: 1, onShift: time.Minute, working: time.Minute}},
		{"after now", window{at(200), at(300)}, timeTotals{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, l.totals(tc.w, now))
		})
	}

	tl.observeEvents([]match.Event{
		{Kind: match.EventTaskMatched, WorkerID: "w", TaskID: "a", At: at(0)},
		{Kind: match.EventTaskMatched, WorkerID: "w", TaskID: "b", At: at(0)},
		{Kind: match.EventTaskAccepted, WorkerID: "w", TaskID: "a", At: at(1)},
		{Kind: match.EventTaskAccepted, WorkerID: "w", TaskID: "b", At: at(3)},
		{Kind: match.EventTaskCompleted, WorkerID: "w", TaskID: "a", At: at(11)},
		{Kind: match.EventTaskMatched, WorkerID: "", TaskID: "c", At: at(11)}, // no worker: not an outcome
	})
	wait, cycle := l.medians(window{at(0), now})
	assert.Equal(t, int64(60_000), *wait, "the lower middle of 1 and 3 minutes")
	assert.Equal(t, int64(600_000), *cycle)
	assert.Equal(t, outcomeCounts{offered: 2, accepted: 2, completed: 1}, l.counts(window{at(0), now}))
	none, _ := l.medians(window{at(100), now})
	assert.Nil(t, none, "nothing measured is nil, not zero")
}
