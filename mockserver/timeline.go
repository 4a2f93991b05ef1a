package mockserver

import (
	"slices"
	"strconv"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// The timeline is a workspace's record of worker time (docs/contract.md, "Worker time"): the
// shifts and breaks that actually happened on the server's clock, the task outcomes each
// worker had, and the corrections made to the record afterwards. Every time read (time
// entries, metrics, presence, break metrics, the team report) is computed from it, so a
// figure is never a constant: it is what the clock and the requests made it.
//
// How it is fed, so another plane can feed it the same way:
//   - observeWorker after every change that can move a worker's availability: a shift is
//     open exactly while the worker is available (on shift), whoever switched it;
//   - observeEvents with the matcher's events (ws.publish does it): breaks open and close on
//     worker.break_started / worker.break_ended, and task events become outcomes;
//   - workerGone when a worker is removed: its open shift and break end, reason "removed".
//
// Guarded by the workspace's lock. Its zero value is empty and usable.

// Sources of a shift: who put the worker on shift.
const (
	sourcePortal     = "portal"     // the worker itself, on the worker plane
	sourceOperator   = "operator"   // the workspace plane (an API key)
	sourceSupervisor = "supervisor" // the supervisor plane
)

// timeEntry is one shift or break.
type timeEntry struct {
	id, workerID string
	kind         string    // "shift" or "break"
	start, end   time.Time // end zero: still open
	source       string    // shifts: sourcePortal, sourceOperator or sourceSupervisor
	endReason    string    // shifts: "manual", "timeout" or "removed"; "" while open
	reason       *string   // breaks: the worker's stated reason
	description  *string   // shifts: the work note
	taskID       *string   // shifts: the task the time was spent on

	// Set by the last correction; kind "changed" or "added" (an entry made by a correction).
	corrected      bool
	correctionKind string
	correctionNote string
	correctedAt    time.Time
}

func (e *timeEntry) open() bool { return e.end.IsZero() }

// until is the entry's end, or now while it is open.
func (e *timeEntry) until(now time.Time) time.Time {
	if e.open() {
		return now
	}
	return e.end
}

// outcome is one task event that concerned a worker.
type outcome struct {
	kind   match.EventKind
	at     time.Time
	taskID string
}

// correction is one change made to a worker's time record, with what it held before.
type correction struct {
	id, entryType, entryID, workerID string
	before                           map[string]any // nil: the change created the entry
	after                            map[string]any
	note                             string
	at                               time.Time
}

// workerLog is one worker's record. It outlives the worker: the record must be kept.
type workerLog struct {
	shifts   []*timeEntry // in start order
	breaks   []*timeEntry // in start order
	outcomes []outcome    // in event order
}

type timeline struct {
	retention   int // each worker keeps its newest outcomes (retention.go); 0: all
	logs        map[string]*workerLog
	corrections []*correction // in the order made
	shiftSeq    int
	breakSeq    int
	corrSeq     int
}

func (tl *timeline) log(workerID string) *workerLog {
	if tl.logs == nil {
		tl.logs = map[string]*workerLog{}
	}
	l := tl.logs[workerID]
	if l == nil {
		l = &workerLog{}
		tl.logs[workerID] = l
	}
	return l
}

func (tl *timeline) newShift(workerID string, start time.Time, source string) *timeEntry {
	tl.shiftSeq++
	return &timeEntry{id: "sh_" + strconv.Itoa(tl.shiftSeq), workerID: workerID, kind: "shift", start: start, source: source}
}

func (tl *timeline) newBreak(workerID string, start time.Time, reason string) *timeEntry {
	tl.breakSeq++
	b := &timeEntry{id: "br_" + strconv.Itoa(tl.breakSeq), workerID: workerID, kind: "break", start: start}
	if reason != "" {
		b.reason = &reason
	}
	return b
}

// openShift returns the worker's open shift, or nil.
func (l *workerLog) openShift() *timeEntry {
	for i := len(l.shifts) - 1; i >= 0; i-- {
		if l.shifts[i].open() {
			return l.shifts[i]
		}
	}
	return nil
}

func (l *workerLog) openBreak() *timeEntry {
	for i := len(l.breaks) - 1; i >= 0; i-- {
		if l.breaks[i].open() {
			return l.breaks[i]
		}
	}
	return nil
}

// insert keeps entries in start order (corrections can add or move entries into the past).
func insertEntry(list []*timeEntry, e *timeEntry) []*timeEntry {
	list = append(list, e)
	sortEntries(list)
	return list
}

func sortEntries(list []*timeEntry) {
	slices.SortStableFunc(list, func(a, b *timeEntry) int { return a.start.Compare(b.start) })
}

// observeWorker brings the worker's shift in line with its availability: a shift opens when
// the worker becomes available and closes (reason "manual") when it stops being available.
func (tl *timeline) observeWorker(now time.Time, w match.WorkerDetail, source string) {
	l := tl.log(w.ID)
	open := l.openShift()
	switch {
	case w.Available && open == nil:
		l.shifts = insertEntry(l.shifts, tl.newShift(w.ID, now, source))
	case !w.Available && open != nil:
		open.end, open.endReason = now, "manual"
	}
}

// workerGone ends a removed worker's open shift and break; the record stays.
func (tl *timeline) workerGone(now time.Time, workerID string) {
	l := tl.log(workerID)
	if s := l.openShift(); s != nil {
		s.end, s.endReason = now, "removed"
	}
	if b := l.openBreak(); b != nil {
		b.end = now
	}
}

// observeEvents records breaks and task outcomes from the matcher's events.
func (tl *timeline) observeEvents(events []match.Event) {
	for _, ev := range events {
		if ev.WorkerID == "" {
			continue
		}
		switch ev.Kind {
		case match.EventWorkerBreakStarted:
			l := tl.log(ev.WorkerID)
			l.breaks = insertEntry(l.breaks, tl.newBreak(ev.WorkerID, ev.At, ev.Reason))
		case match.EventWorkerBreakEnded:
			if b := tl.log(ev.WorkerID).openBreak(); b != nil {
				b.end = ev.At
			}
		case match.EventTaskMatched, match.EventTaskAccepted, match.EventTaskRejected,
			match.EventTaskCompleted, match.EventTaskExpired, match.EventTaskReleased, match.EventTaskFailed:
			l := tl.log(ev.WorkerID)
			l.outcomes = keepNewest(append(l.outcomes, outcome{kind: ev.Kind, at: ev.At, taskID: ev.TaskID}), tl.retention)
		}
	}
}

// window is a half-open span of time [from, to).
type window struct{ from, to time.Time }

// overlap is how much of [a, b) lies inside w.
func (w window) overlap(a, b time.Time) time.Duration {
	if a.Before(w.from) {
		a = w.from
	}
	if b.After(w.to) {
		b = w.to
	}
	if !b.After(a) {
		return 0
	}
	return b.Sub(a)
}

// touches reports whether the entry has time in w; an entry still zero long (opened and
// closed on one tick) touches the window holding its start.
func (w window) touches(e *timeEntry, now time.Time) bool {
	return e.start.Before(w.to) && (e.until(now).After(w.from) || !e.start.Before(w.from))
}

// timeTotals are the sums of a worker's record over a window. Working time is shift time less
// the part of each break that falls inside a shift: breaks are time inside a shift.
type timeTotals struct {
	shiftCount, breakCount int
	onShift, breakTime     time.Duration
	longestBreak, working  time.Duration
}

func (l *workerLog) totals(w window, now time.Time) timeTotals {
	var t timeTotals
	for _, s := range l.shifts {
		if w.touches(s, now) {
			t.shiftCount++
			t.onShift += w.overlap(s.start, s.until(now))
		}
	}
	var inShift time.Duration
	for _, b := range l.breaks {
		if !w.touches(b, now) {
			continue
		}
		t.breakCount++
		d := w.overlap(b.start, b.until(now))
		t.breakTime += d
		t.longestBreak = max(t.longestBreak, d)
		for _, s := range l.shifts {
			inShift += window{s.start, s.until(now)}.overlap(laterOf(b.start, w.from), earlierOf(b.until(now), w.to))
		}
	}
	t.working = t.onShift - inShift
	return t
}

// entries lists the shifts and breaks touching w, in start order (a shift before a break
// that starts with it).
func (l *workerLog) entries(w window, now time.Time) []*timeEntry {
	var out []*timeEntry
	for _, list := range [][]*timeEntry{l.shifts, l.breaks} {
		for _, e := range list {
			if w.touches(e, now) {
				out = append(out, e)
			}
		}
	}
	sortEntries(out)
	return out
}

// outcomeCounts are a worker's task outcomes in a window.
type outcomeCounts struct {
	offered, accepted, rejected, completed, expired, released, failed int
}

func (l *workerLog) counts(w window) outcomeCounts {
	var c outcomeCounts
	for _, o := range l.outcomes {
		if o.at.Before(w.from) || !o.at.Before(w.to) {
			continue
		}
		switch o.kind {
		case match.EventTaskMatched:
			c.offered++
		case match.EventTaskAccepted:
			c.accepted++
		case match.EventTaskRejected:
			c.rejected++
		case match.EventTaskCompleted:
			c.completed++
		case match.EventTaskExpired:
			c.expired++
		case match.EventTaskReleased:
			c.released++
		case match.EventTaskFailed:
			c.failed++
		}
	}
	return c
}

// medians are the worker's median wait (offer to accept) and cycle (accept to complete) over
// the accepts and completions in w; nil when there is none.
func (l *workerLog) medians(w window) (wait, cycle *int64) {
	var waits, cycles []int64
	for i, o := range l.outcomes {
		if o.at.Before(w.from) || !o.at.Before(w.to) {
			continue
		}
		var from match.EventKind
		switch o.kind {
		case match.EventTaskAccepted:
			from = match.EventTaskMatched
		case match.EventTaskCompleted:
			from = match.EventTaskAccepted
		default:
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if p := l.outcomes[j]; p.taskID == o.taskID && p.kind == from {
				d := o.at.Sub(p.at).Milliseconds()
				if o.kind == match.EventTaskAccepted {
					waits = append(waits, d)
				} else {
					cycles = append(cycles, d)
				}
				break
			}
		}
	}
	return median(waits), median(cycles)
}

// median is the middle value, the lower of the two middle ones for an even count (so it is
// always a value that happened); nil for none.
func median(v []int64) *int64 {
	if len(v) == 0 {
		return nil
	}
	slices.Sort(v)
	m := v[(len(v)-1)/2]
	return &m
}

// completedByDay counts completions per UTC day in w, oldest first; days without one are
// left out.
func (l *workerLog) completedByDay(w window) []dayCount {
	out := []dayCount{}
	for _, o := range l.outcomes {
		if o.kind != match.EventTaskCompleted || o.at.Before(w.from) || !o.at.Before(w.to) {
			continue
		}
		day := o.at.UTC().Format(time.DateOnly)
		if n := len(out); n > 0 && out[n-1].Day == day {
			out[n-1].Completed++
			continue
		}
		out = append(out, dayCount{Day: day, Completed: 1})
	}
	return out
}

type dayCount struct {
	Day       string `json:"day"`
	Completed int    `json:"completed"`
}

// dayStart is the start of the UTC day holding t: a worker's day starts at midnight UTC.
func dayStart(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// today is the window from the start of now's UTC day to now (inclusive of now).
func today(now time.Time) window { return window{dayStart(now), now.Add(time.Millisecond)} }

// lastDays is the window from midnight UTC n-1 days before now's day to now.
func lastDays(now time.Time, n int) window {
	return window{dayStart(now).AddDate(0, 0, -(n - 1)), now.Add(time.Millisecond)}
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlierOf(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// observeWorker feeds the timeline the worker's state after a change that can move its
// availability; source says who made the change.
func (ws *workspace) observeWorker(now time.Time, workerID, source string) {
	if w, err := ws.engine.Worker(workerID); err == nil {
		ws.time.observeWorker(now, w, source)
	}
}
