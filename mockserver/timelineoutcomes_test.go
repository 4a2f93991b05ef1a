package mockserver

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// Every task outcome is counted under its own kind within the window, completions are grouped
// per UTC day (oldest first, days without one left out), and a removed worker's open shift
// and break end at the removal.
func TestTimelineOutcomesAndRemoval(t *testing.T) {
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) } // t0 is 04:40 UTC
	var tl timeline
	ev := func(kind match.EventKind, task string, h int) match.Event {
		return match.Event{Kind: kind, WorkerID: "w", TaskID: task, At: at(h)}
	}
	tl.observeEvents([]match.Event{
		ev(match.EventTaskMatched, "a", 0), ev(match.EventTaskRejected, "a", 0),
		ev(match.EventTaskMatched, "b", 1), ev(match.EventTaskExpired, "b", 1),
		ev(match.EventTaskMatched, "c", 1), ev(match.EventTaskReleased, "c", 2),
		ev(match.EventTaskMatched, "d", 2), ev(match.EventTaskAccepted, "d", 2), ev(match.EventTaskFailed, "d", 3),
		ev(match.EventTaskAccepted, "e", 3), ev(match.EventTaskCompleted, "e", 4),
		ev(match.EventTaskAccepted, "f", 5), ev(match.EventTaskCompleted, "f", 6),
		ev(match.EventTaskAccepted, "g", 20), ev(match.EventTaskCompleted, "g", 21), // the next UTC day
		{Kind: match.EventWorkerBreakStarted, WorkerID: "w", At: at(22)},
	})
	l := tl.log("w")
	all := window{at(0), at(24)}
	if got, want := l.counts(all), (outcomeCounts{offered: 4, accepted: 4, rejected: 1, completed: 3, expired: 1, released: 1, failed: 1}); got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	if got, want := l.counts(window{at(1), at(2)}), (outcomeCounts{offered: 2, expired: 1}); got != want {
		t.Errorf("counts in [1h, 2h) = %+v, want %+v", got, want)
	}
	wantDays := []dayCount{{Day: "2025-11-21", Completed: 2}, {Day: "2025-11-22", Completed: 1}}
	if d := cmp.Diff(wantDays, l.completedByDay(all)); d != "" {
		t.Errorf("completedByDay (-want +got):\n%s", d)
	}

	l.shifts = []*timeEntry{{id: "s1", kind: "shift", start: at(19)}}
	tl.workerGone(at(23), "w")
	if s, b := l.shifts[0], l.breaks[0]; !s.end.Equal(at(23)) || s.endReason != "removed" || !b.end.Equal(at(23)) {
		t.Errorf("after removal: shift ends %v (%s), break ends %v; want both at +23h, removed", s.end, s.endReason, b.end)
	}
}
