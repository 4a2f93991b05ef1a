package taskrouting

import (
	"context"
	"encoding/json"
	"net/url"
	"time"
)

// StatsWindow is the window of a stats history read. Zero times leave the
// bound to the server (the mock server: the last day of hours, or the last
// week of days, up to now); Bucket is "hour", "day" or "" for the
// server's default.
type StatsWindow struct {
	From, To time.Time `json:"-"`
	Bucket   string
}

func (p StatsWindow) values(prefix string) (url.Values, error) {
	if p.Bucket != "" {
		if err := checkOneOf(prefix+".Bucket", p.Bucket, "hour", "day"); err != nil {
			return nil, err
		}
	}
	if !p.From.IsZero() && !p.To.IsZero() && p.To.Before(p.From) {
		return nil, &ParamError{Param: prefix + ".To", Problem: "must not be before From"}
	}
	q := url.Values{}
	if !p.From.IsZero() {
		q.Set("from", p.From.UTC().Format(isoLayout))
	}
	if !p.To.IsZero() {
		q.Set("to", p.To.UTC().Format(isoLayout))
	}
	if p.Bucket != "" {
		q.Set("bucket", p.Bucket)
	}
	return q, nil
}

// looseTime reads a history bound: ISO-8601, epoch milliseconds or a bare
// date. The platform does not narrow the form, so an unreadable bound is
// left zero instead of failing the whole answer.
type looseTime struct{ t time.Time }

func (l *looseTime) UnmarshalJSON(b []byte) error {
	var w wireTime
	if err := w.UnmarshalJSON(b); err == nil {
		l.t = w.t
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		if t, err := time.Parse(time.DateOnly, s); err == nil {
			l.t = t
		}
	}
	return nil
}

// FlowBucket is what finished in one bucket: tasks completed and
// cancelled, how long the completed ones waited to be accepted and how long
// they were handled. A duration is nil when nothing was measured.
type FlowBucket struct {
	Start     time.Time      `json:"-"` // wire bucketStart
	Completed int            `json:"completed"`
	Cancelled int            `json:"cancelled"`
	AvgWait   *time.Duration `json:"-"`
	P50Wait   *time.Duration `json:"-"`
	P95Wait   *time.Duration `json:"-"`
	AvgHandle *time.Duration `json:"-"`
}

type wireFlow struct {
	BucketStart looseTime       `json:"bucketStart"`
	AvgWaitMs   *durationMillis `json:"avgWaitMs"`
	P50WaitMs   *durationMillis `json:"p50WaitMs"`
	P95WaitMs   *durationMillis `json:"p95WaitMs"`
	AvgHandleMs *durationMillis `json:"avgHandleMs"`
}

func (w wireFlow) into(f *FlowBucket) {
	f.Start = w.BucketStart.t
	f.AvgWait, f.P50Wait, f.P95Wait, f.AvgHandle = optDuration(w.AvgWaitMs), optDuration(w.P50WaitMs), optDuration(w.P95WaitMs), optDuration(w.AvgHandleMs)
}

// UnmarshalJSON reads the bucket's start and its millisecond members.
func (f *FlowBucket) UnmarshalJSON(b []byte) error {
	type plain FlowBucket
	w := struct {
		*plain
		wireFlow
	}{plain: (*plain)(f)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	w.wireFlow.into(f)
	return nil
}

// StatsTimeseries is the workspace's flow per bucket.
type StatsTimeseries struct {
	From, To time.Time    `json:"-"`
	Bucket   string       `json:"bucket"`
	Buckets  []FlowBucket `json:"buckets"`
}

type wireWindow struct {
	From looseTime `json:"from"`
	To   looseTime `json:"to"`
}

// UnmarshalJSON reads the window's bounds.
func (s *StatsTimeseries) UnmarshalJSON(b []byte) error {
	type plain StatsTimeseries
	w := struct {
		*plain
		wireWindow
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	s.From, s.To = w.wireWindow.From.t, w.wireWindow.To.t
	return nil
}

// WorkerStatsParams is the window of a per-worker history and, when
// TeamID is set, the team whose members to list.
type WorkerStatsParams struct {
	StatsWindow
	TeamID string // at most 64 characters
}

// WorkerHistory is what each worker finished in a window.
type WorkerHistory struct {
	From, To time.Time            `json:"-"`
	Workers  []WorkerProductivity `json:"workers"`
}

// UnmarshalJSON reads the window's bounds.
func (h *WorkerHistory) UnmarshalJSON(b []byte) error {
	type plain WorkerHistory
	w := struct {
		*plain
		wireWindow
	}{plain: (*plain)(h)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	h.From, h.To = w.wireWindow.From.t, w.wireWindow.To.t
	return nil
}

// WorkerProductivity is one worker's row of a WorkerHistory: what it
// finished (from the finished tasks), how it answered its offers (the
// outcome counters) and how long it worked (the shift log). Members an
// older platform leaves out read as 0 or nil.
type WorkerProductivity struct {
	WorkerID  string `json:"workerId"`
	Completed int    `json:"completed"`
	Cancelled int    `json:"cancelled"`
	// AvgWait, AvgHandle, P50Handle and P95Handle are nil when nothing
	// was completed with an accept in the window.
	AvgWait, AvgHandle   *time.Duration `json:"-"`
	P50Handle, P95Handle *time.Duration `json:"-"`
	Offered              int            `json:"offered"`
	Accepted             int            `json:"accepted"`
	Rejected             int            `json:"rejected"`
	Failed               int            `json:"failed"`
	Expired              int            `json:"expired"`
	Released             int            `json:"released"`
	// AcceptanceRate is Accepted / Offered, nil before any offer.
	AcceptanceRate *float64 `json:"acceptanceRate"`
	// OnShift is shift time in the window, Working that less the breaks.
	OnShift, Break, Working time.Duration `json:"-"`
	ShiftCount              int           `json:"shiftCount"`
	// Utilization is handle time / working time (it may exceed 1 with
	// overlapping tasks), nil with no working time.
	Utilization *float64        `json:"utilization"`
	Raw         json.RawMessage `json:"-"`
}

// UnmarshalJSON reads the millisecond members and keeps the row raw.
func (p *WorkerProductivity) UnmarshalJSON(b []byte) error {
	type plain WorkerProductivity
	w := struct {
		*plain
		AvgWaitMs   *durationMillis `json:"avgWaitMs"`
		AvgHandleMs *durationMillis `json:"avgHandleMs"`
		P50HandleMs *durationMillis `json:"p50HandleMs"`
		P95HandleMs *durationMillis `json:"p95HandleMs"`
		OnShiftMs   durationMillis  `json:"onShiftMs"`
		BreakMs     durationMillis  `json:"breakMs"`
		WorkingMs   durationMillis  `json:"workingMs"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p.AvgWait, p.AvgHandle = optDuration(w.AvgWaitMs), optDuration(w.AvgHandleMs)
	p.P50Handle, p.P95Handle = optDuration(w.P50HandleMs), optDuration(w.P95HandleMs)
	p.OnShift, p.Break, p.Working = time.Duration(w.OnShiftMs), time.Duration(w.BreakMs), time.Duration(w.WorkingMs)
	p.Raw = cloneRaw(b)
	return nil
}

// WorkerTimeseries is one worker's flow per bucket.
type WorkerTimeseries struct {
	WorkerID string         `json:"workerId"`
	From, To time.Time      `json:"-"`
	Bucket   string         `json:"bucket"`
	Buckets  []WorkerBucket `json:"buckets"`
}

// UnmarshalJSON reads the window's bounds.
func (s *WorkerTimeseries) UnmarshalJSON(b []byte) error {
	type plain WorkerTimeseries
	w := struct {
		*plain
		wireWindow
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	s.From, s.To = w.wireWindow.From.t, w.wireWindow.To.t
	return nil
}

// WorkerBucket is one bucket of a worker's series. Worked time and the
// offer counters are kept per day: in hour buckets they are nil (not
// measured), never 0.
type WorkerBucket struct {
	FlowBucket
	OnShift  *time.Duration `json:"-"`
	Break    *time.Duration `json:"-"`
	Working  *time.Duration `json:"-"`
	Offered  *int           `json:"offered"`
	Accepted *int           `json:"accepted"`
	Rejected *int           `json:"rejected"`
	Failed   *int           `json:"failed"`
	Expired  *int           `json:"expired"`
	Released *int           `json:"released"`
}

// UnmarshalJSON reads the flow, the counters and the worked time.
func (wb *WorkerBucket) UnmarshalJSON(b []byte) error {
	if err := wb.FlowBucket.UnmarshalJSON(b); err != nil {
		return err
	}
	var w struct {
		OnShiftMs *durationMillis `json:"onShiftMs"`
		BreakMs   *durationMillis `json:"breakMs"`
		WorkingMs *durationMillis `json:"workingMs"`
		Offered   *int            `json:"offered"`
		Accepted  *int            `json:"accepted"`
		Rejected  *int            `json:"rejected"`
		Failed    *int            `json:"failed"`
		Expired   *int            `json:"expired"`
		Released  *int            `json:"released"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	wb.OnShift, wb.Break, wb.Working = optDuration(w.OnShiftMs), optDuration(w.BreakMs), optDuration(w.WorkingMs)
	wb.Offered, wb.Accepted, wb.Rejected, wb.Failed, wb.Expired, wb.Released = w.Offered, w.Accepted, w.Rejected, w.Failed, w.Expired, w.Released
	return nil
}

// Timeseries reports the workspace's completions and cancellations per
// bucket, with waiting and handling times.
//
// API: history.timeseries, GET /stats/timeseries
func (s *StatsService) Timeseries(ctx context.Context, p StatsWindow, opts ...RequestOption) (*StatsTimeseries, error) {
	q, err := p.values("StatsWindow")
	if err != nil {
		return nil, err
	}
	out := new(StatsTimeseries)
	if err := s.c.call(ctx, "GET", "/stats/timeseries", q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Workers reports what each worker finished in a window.
//
// API: history.workers, GET /stats/workers
func (s *StatsService) Workers(ctx context.Context, p WorkerStatsParams, opts ...RequestOption) (*WorkerHistory, error) {
	q, err := p.values("WorkerStatsParams")
	if err != nil {
		return nil, err
	}
	if p.TeamID != "" {
		if err := s.c.admit(checkLen("WorkerStatsParams.TeamID", p.TeamID, 1, 64), opts); err != nil {
			return nil, err
		}
		q.Set("teamId", p.TeamID)
	}
	out := new(WorkerHistory)
	if err := s.c.call(ctx, "GET", "/stats/workers", q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// WorkerTimeseries reports one worker's flow per bucket.
//
// API: history.workerTimeseries, GET /stats/workers/{workerId}/timeseries
func (s *StatsService) WorkerTimeseries(ctx context.Context, workerID string, p StatsWindow, opts ...RequestOption) (*WorkerTimeseries, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	q, err := p.values("StatsWindow")
	if err != nil {
		return nil, err
	}
	out := new(WorkerTimeseries)
	if err := s.c.call(ctx, "GET", escapePath("/stats/workers/", workerID)+"/timeseries", q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
