package taskrouting

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// Worker time: the record of each worker's shifts and breaks, and the
// metrics computed from it. Durations are time.Duration (milliseconds on
// the wire); a time that is null on the wire (an open shift's end) is the
// zero time.Time, and a null string is "".

// TimeEntry is one recorded stretch of a worker's time: a shift, or a break
// inside one.
type TimeEntry struct {
	Type      string        // "shift" or "break"
	ID        string        // what a correction addresses
	StartedAt time.Time     //
	EndedAt   time.Time     // zero while open
	Duration  time.Duration // up to now while open

	Corrected      bool
	CorrectionNote string
	CorrectedBy    string
	CorrectionKind string // worker plane only: "changed" or "added"
	CorrectedAt    time.Time

	Source      string // shifts: "portal", "operator" or "supervisor"
	EndReason   string // shifts: "manual", "timeout" or "removed"; "" while open
	Reason      string // breaks: the worker's stated reason
	Description string // shifts: the work note
	TaskID      string // shifts: the task the time was spent on
}

// UnmarshalJSON reads the wire times, durations and nullable members.
func (e *TimeEntry) UnmarshalJSON(b []byte) error {
	var w struct {
		Type, ID                                                               string
		StartedAt, EndedAt, CorrectedAt                                        wireTime
		DurationMs                                                             durationMillis
		Corrected                                                              bool
		CorrectionNote, CorrectedBy, CorrectionKind, Source, EndReason, Reason *string
		Description, TaskID                                                    *string
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = TimeEntry{Type: w.Type, ID: w.ID, StartedAt: w.StartedAt.t, EndedAt: w.EndedAt.t, Duration: time.Duration(w.DurationMs),
		Corrected: w.Corrected, CorrectionNote: nullToEmpty(w.CorrectionNote), CorrectedBy: nullToEmpty(w.CorrectedBy),
		CorrectionKind: nullToEmpty(w.CorrectionKind), CorrectedAt: w.CorrectedAt.t, Source: nullToEmpty(w.Source),
		EndReason: nullToEmpty(w.EndReason), Reason: nullToEmpty(w.Reason), Description: nullToEmpty(w.Description),
		TaskID: nullToEmpty(w.TaskID)}
	return nil
}

// TimeTotals sums a worker's record over a window. Working is time on shift
// less the breaks taken during it.
type TimeTotals struct {
	ShiftCount int
	OnShift    time.Duration
	BreakCount int
	Break      time.Duration
	Working    time.Duration
}

// UnmarshalJSON reads the wire durations.
func (t *TimeTotals) UnmarshalJSON(b []byte) error {
	var w struct {
		ShiftCount, BreakCount        int
		OnShiftMs, BreakMs, WorkingMs durationMillis
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = TimeTotals{ShiftCount: w.ShiftCount, OnShift: time.Duration(w.OnShiftMs), BreakCount: w.BreakCount,
		Break: time.Duration(w.BreakMs), Working: time.Duration(w.WorkingMs)}
	return nil
}

// TimeEntries is a worker's shifts and breaks over a window, in start order.
type TimeEntries struct {
	WorkerID string
	From, To time.Time
	Entries  []TimeEntry
	Totals   TimeTotals
}

// UnmarshalJSON reads the wire times.
func (t *TimeEntries) UnmarshalJSON(b []byte) error {
	var w struct {
		WorkerID string
		From, To wireTime
		Entries  []TimeEntry
		Totals   TimeTotals
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = TimeEntries{WorkerID: w.WorkerID, From: w.From.t, To: w.To.t, Entries: w.Entries, Totals: w.Totals}
	return nil
}

// TimeEntriesParams bounds a time-entries read; a zero bound takes the
// server's default (the 7 days up to now).
type TimeEntriesParams struct {
	From, To time.Time
}

func (p TimeEntriesParams) query() url.Values {
	return windowQuery(p.From, p.To)
}

func windowQuery(from, to time.Time) url.Values {
	q := url.Values{}
	if !from.IsZero() {
		q.Set("from", from.UTC().Format(isoLayout))
	}
	if !to.IsZero() {
		q.Set("to", to.UTC().Format(isoLayout))
	}
	return q
}

func checkWindow(in string, from, to time.Time) error {
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return &ParamError{Param: in + ".From", Problem: "must be before To"}
	}
	return nil
}

// WorkerDay is a worker's day so far, from midnight: what it finished, its
// shifts and its breaks.
type WorkerDay struct {
	WorkerID       string // set by WorkerClient.MetricsToday
	Since          time.Time
	CompletedTasks int
	ShiftCount     int
	OnShift        time.Duration
	BreakCount     int
	TotalBreak     time.Duration
	LongestBreak   time.Duration
	Working        time.Duration
	// CurrentShiftStartedAt is when the open shift started (WorkerClient.MetricsToday); zero
	// off shift, in WorkersService.Metrics (the platform's operator-plane day has no such
	// member), or from a server that does not send it.
	CurrentShiftStartedAt time.Time
}

// UnmarshalJSON reads the wire times and durations.
func (d *WorkerDay) UnmarshalJSON(b []byte) error {
	var w struct {
		WorkerID                                           string
		Since, CurrentShiftStartedAt                       wireTime
		CompletedTasks, ShiftCount, BreakCount             int
		OnShiftMs, TotalBreakMs, LongestBreakMs, WorkingMs durationMillis
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = WorkerDay{WorkerID: w.WorkerID, Since: w.Since.t, CompletedTasks: w.CompletedTasks, ShiftCount: w.ShiftCount,
		OnShift: time.Duration(w.OnShiftMs), BreakCount: w.BreakCount, TotalBreak: time.Duration(w.TotalBreakMs),
		LongestBreak: time.Duration(w.LongestBreakMs), Working: time.Duration(w.WorkingMs),
		CurrentShiftStartedAt: w.CurrentShiftStartedAt.t}
	return nil
}

// DayCompleted is how many tasks a worker completed on one UTC day.
type DayCompleted struct {
	Day       string `json:"day"` // YYYY-MM-DD
	Completed int    `json:"completed"`
}

// WorkerPeriod is a worker's record over a window of days.
type WorkerPeriod struct {
	From, To time.Time
	// Days lists the days with completions; nil when the server keeps no
	// task history.
	Days []DayCompleted
	// MedianWait (offer to accept) and MedianCycle (accept to complete) are
	// nil when nothing was measured, which is not the same as zero.
	MedianWait, MedianCycle *time.Duration

	ShiftCount                int
	OnShift, Break, Working   time.Duration
	Offered, Accepted         int
	Rejected, Completed       int
	Failed, Expired, Released int
	AcceptanceRate            *float64 // nil before any offer, never 0 for "no data"
}

// UnmarshalJSON reads the wire times, durations and nullable medians.
func (p *WorkerPeriod) UnmarshalJSON(b []byte) error {
	var w struct {
		From, To                                                          wireTime
		Days                                                              []DayCompleted
		MedianWaitMs, MedianCycleMs                                       *durationMillis
		ShiftCount                                                        int
		OnShiftMs, BreakMs, WorkingMs                                     durationMillis
		Offered, Accepted, Rejected, Completed, Failed, Expired, Released int
		AcceptanceRate                                                    *float64
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = WorkerPeriod{From: w.From.t, To: w.To.t, Days: w.Days, MedianWait: optDuration(w.MedianWaitMs),
		MedianCycle: optDuration(w.MedianCycleMs), ShiftCount: w.ShiftCount, OnShift: time.Duration(w.OnShiftMs),
		Break: time.Duration(w.BreakMs), Working: time.Duration(w.WorkingMs), Offered: w.Offered, Accepted: w.Accepted,
		Rejected: w.Rejected, Completed: w.Completed, Failed: w.Failed, Expired: w.Expired, Released: w.Released,
		AcceptanceRate: w.AcceptanceRate}
	return nil
}

// WorkerMetrics is a worker's day so far and its rolling window, as an
// operator reads them; the worker reads the same figures on the worker
// plane.
type WorkerMetrics struct {
	WorkerID string       `json:"workerId"`
	Today    WorkerDay    `json:"today"`
	Window   WorkerPeriod `json:"window"`
}

// WorkerMetricsParams chooses the window of WorkersService.Metrics.
type WorkerMetricsParams struct {
	// WindowDays is the window in days, 1-30; 0 takes the server's
	// default, 7.
	WindowDays int
}

func windowDaysQuery(in string, days int) (url.Values, error) {
	if days < 0 || days > 30 {
		return nil, &ParamError{Param: in, Problem: "must be 0 (the default) to 30 days"}
	}
	q := url.Values{}
	if days > 0 {
		q.Set("window", strconv.Itoa(days)+"d")
	}
	return q, nil
}

// Metrics returns a worker's day so far and its window: worked time from
// the shift log, task outcomes, medians and acceptance rate.
//
// API: workers.metrics, GET /workers/{id}/metrics
func (s *WorkersService) Metrics(ctx context.Context, workerID string, p WorkerMetricsParams, opts ...RequestOption) (*WorkerMetrics, error) {
	q, err := windowDaysQuery("WorkerMetricsParams.WindowDays", p.WindowDays)
	if err = firstError(checkID("workerID", workerID), err); err != nil {
		return nil, err
	}
	out := new(WorkerMetrics)
	if err := s.c.call(ctx, "GET", escapePath("/workers/", workerID, "/metrics"), q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// TimeEntries returns a worker's recorded shifts and breaks over a window
// (by default the 7 days up to now) with their totals: the working-time
// record an employer keeps.
//
// API: workers.timeEntries, GET /workers/{id}/time-entries
func (s *WorkersService) TimeEntries(ctx context.Context, workerID string, p TimeEntriesParams, opts ...RequestOption) (*TimeEntries, error) {
	if err := s.c.admit(firstError(checkID("workerID", workerID), checkWindow("TimeEntriesParams", p.From, p.To)), opts); err != nil {
		return nil, err
	}
	out := new(TimeEntries)
	if err := s.c.call(ctx, "GET", escapePath("/workers/", workerID, "/time-entries"), p.query(), nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// BreakMetricsParams scopes WorkersService.BreakMetrics. A zero From takes
// the server's default (the start of today); a zero To is now.
type BreakMetricsParams struct {
	From, To time.Time
	TeamID   string // only this team's workers
	WorkerID string // only this worker
}

// BreakMetric is one worker's breaks over the window.
type BreakMetric struct {
	WorkerID     string
	Label        string
	Count        int
	TotalBreak   time.Duration
	LongestBreak time.Duration
	Active       bool // on a break now
}

// UnmarshalJSON reads the wire durations.
func (m *BreakMetric) UnmarshalJSON(b []byte) error {
	var w struct {
		WorkerID, Label              string
		Count                        int
		TotalBreakMs, LongestBreakMs durationMillis
		Active                       bool
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = BreakMetric{WorkerID: w.WorkerID, Label: w.Label, Count: w.Count, TotalBreak: time.Duration(w.TotalBreakMs),
		LongestBreak: time.Duration(w.LongestBreakMs), Active: w.Active}
	return nil
}

// BreakMetrics is the workspace's breaks over a window, per worker and in
// total.
type BreakMetrics struct {
	Workers     []BreakMetric
	TotalBreak  time.Duration
	BreakCount  int
	ActiveCount int // workers on a break now
}

// UnmarshalJSON reads the wire durations.
func (m *BreakMetrics) UnmarshalJSON(b []byte) error {
	var w struct {
		Workers                 []BreakMetric
		TotalBreakMs            durationMillis
		BreakCount, ActiveCount int
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = BreakMetrics{Workers: w.Workers, TotalBreak: time.Duration(w.TotalBreakMs), BreakCount: w.BreakCount, ActiveCount: w.ActiveCount}
	return nil
}

// BreakMetrics returns the breaks of the workspace's workers (or one
// team's, or one worker's) over a window.
//
// API: breaks.metrics, GET /breaks/metrics
func (s *WorkersService) BreakMetrics(ctx context.Context, p BreakMetricsParams, opts ...RequestOption) (*BreakMetrics, error) {
	if err := firstError(checkWindow("BreakMetricsParams", p.From, p.To), checkLen("BreakMetricsParams.TeamID", p.TeamID, 0, 64),
		checkLen("BreakMetricsParams.WorkerID", p.WorkerID, 0, 128)); err != nil {
		return nil, err
	}
	q := windowQuery(p.From, p.To)
	setIf(q, "teamId", p.TeamID)
	setIf(q, "workerId", p.WorkerID)
	out := new(BreakMetrics)
	if err := s.c.call(ctx, "GET", "/breaks/metrics", q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

func setIf(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

// PresenceMember is one worker's state now: "working" (on shift),
// "on-break" or "paused" (off shift).
type PresenceMember struct {
	WorkerID       string
	Label          string
	Status         string
	BreakStartedAt time.Time // zero unless on a break
	BreakReason    string
}

// UnmarshalJSON reads the wire time and the nullable members.
func (m *PresenceMember) UnmarshalJSON(b []byte) error {
	var w struct {
		WorkerID, Label, Status string
		BreakStartedAt          wireTime
		BreakReason             *string
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = PresenceMember{WorkerID: w.WorkerID, Label: w.Label, Status: w.Status, BreakStartedAt: w.BreakStartedAt.t,
		BreakReason: nullToEmpty(w.BreakReason)}
	return nil
}

// PresenceCounts tallies a presence board.
type PresenceCounts struct {
	Working int `json:"working"`
	OnBreak int `json:"onBreak"`
	Paused  int `json:"paused"`
	Total   int `json:"total"`
}

// TeamPresence is who is working, on a break or paused, now.
type TeamPresence struct {
	Workers []PresenceMember `json:"workers"`
	Counts  PresenceCounts   `json:"counts"`
}

// Presence returns who is working, on a break or paused now: the
// workspace's workers, or teamID's when it is not "". Workers see the same
// board with WorkerClient.TeamPresence.
//
// API: team.presence, GET /team/presence
func (s *TeamsService) Presence(ctx context.Context, teamID string, opts ...RequestOption) (*TeamPresence, error) {
	if err := s.c.admit(checkLen("teamID", teamID, 0, 64), opts); err != nil {
		return nil, err
	}
	q := url.Values{}
	setIf(q, "teamId", teamID)
	out := new(TeamPresence)
	if err := s.c.call(ctx, "GET", "/team/presence", q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
