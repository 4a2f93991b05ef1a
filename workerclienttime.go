package taskrouting

import (
	"context"
	"encoding/json"
	"time"
)

// The signed-in worker's own time: the same record and figures an operator
// reads with WorkersService, for this worker only.

// WorkerBreak is one of the signed-in worker's breaks.
type WorkerBreak struct {
	ID        string
	StartedAt time.Time
	EndedAt   time.Time // zero while open
	Reason    string
	Duration  time.Duration // up to now while open
}

// UnmarshalJSON reads the wire times and duration.
func (b *WorkerBreak) UnmarshalJSON(data []byte) error {
	var w struct {
		ID                 string
		StartedAt, EndedAt wireTime
		Reason             *string
		DurationMs         durationMillis
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*b = WorkerBreak{ID: w.ID, StartedAt: w.StartedAt.t, EndedAt: w.EndedAt.t, Reason: nullToEmpty(w.Reason), Duration: time.Duration(w.DurationMs)}
	return nil
}

// BreaksToday is the signed-in worker's breaks since the start of its day.
type BreaksToday struct {
	WorkerID       string
	Since          time.Time
	Breaks         []WorkerBreak // the open one included
	Active         *WorkerBreak  // the open break, or nil
	CompletedTasks int
	TotalBreak     time.Duration
}

// UnmarshalJSON reads the wire times and duration.
func (t *BreaksToday) UnmarshalJSON(b []byte) error {
	var w struct {
		WorkerID       string
		Since          wireTime
		Breaks         []WorkerBreak
		Active         *WorkerBreak
		CompletedTasks int
		TotalBreakMs   durationMillis
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = BreaksToday{WorkerID: w.WorkerID, Since: w.Since.t, Breaks: w.Breaks, Active: w.Active, CompletedTasks: w.CompletedTasks,
		TotalBreak: time.Duration(w.TotalBreakMs)}
	return nil
}

// WorkerMetricsWindow is the signed-in worker's completions per day and
// medians over a window.
type WorkerMetricsWindow struct {
	WorkerID string
	Since    time.Time
	Days     []DayCompleted
	// MedianWait and MedianCycle are nil for a worker with no history, not
	// zero.
	MedianWait, MedianCycle *time.Duration
}

// UnmarshalJSON reads the wire time and the nullable medians.
func (m *WorkerMetricsWindow) UnmarshalJSON(b []byte) error {
	var w struct {
		WorkerID                    string
		Since                       wireTime
		Days                        []DayCompleted
		MedianWaitMs, MedianCycleMs *durationMillis
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = WorkerMetricsWindow{WorkerID: w.WorkerID, Since: w.Since.t, Days: w.Days, MedianWait: optDuration(w.MedianWaitMs),
		MedianCycle: optDuration(w.MedianCycleMs)}
	return nil
}

// BreaksToday returns the signed-in worker's breaks today, the open one
// included and also in Active.
//
// API: worker.breaksToday, GET /portal/breaks/today
func (w *WorkerClient) BreaksToday(ctx context.Context, opts ...RequestOption) (*BreaksToday, error) {
	out := new(BreaksToday)
	if err := w.c.call(ctx, "GET", "/portal/breaks/today", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// MetricsToday returns the signed-in worker's day so far: completed tasks,
// time on shift, breaks and worked time.
//
// API: worker.metricsToday, GET /portal/metrics/today
func (w *WorkerClient) MetricsToday(ctx context.Context, opts ...RequestOption) (*WorkerDay, error) {
	out := new(WorkerDay)
	if err := w.c.call(ctx, "GET", "/portal/metrics/today", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Metrics returns the signed-in worker's completions per day and medians
// over the last windowDays days (1-30; 0 takes the server's default, 7).
//
// API: worker.metricsWindow, GET /portal/metrics
func (w *WorkerClient) Metrics(ctx context.Context, windowDays int, opts ...RequestOption) (*WorkerMetricsWindow, error) {
	q, err := windowDaysQuery("windowDays", windowDays)
	if err != nil {
		return nil, err
	}
	out := new(WorkerMetricsWindow)
	if err := w.c.call(ctx, "GET", "/portal/metrics", q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// TimeEntries returns the signed-in worker's own shifts and breaks of the
// last 7 days: the copy of the record an operator reads with
// WorkersService.TimeEntries, with CorrectionKind on corrected entries.
//
// API: worker.timeEntries, GET /portal/me/time-entries
func (w *WorkerClient) TimeEntries(ctx context.Context, opts ...RequestOption) (*TimeEntries, error) {
	out := new(TimeEntries)
	if err := w.c.call(ctx, "GET", "/portal/me/time-entries", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// TeamPresence returns who in the workspace is working, on a break or
// paused now, as every worker of it sees it.
//
// API: worker.teamPresence, GET /portal/team/presence
func (w *WorkerClient) TeamPresence(ctx context.Context, opts ...RequestOption) (*TeamPresence, error) {
	out := new(TeamPresence)
	if err := w.c.call(ctx, "GET", "/portal/team/presence", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
