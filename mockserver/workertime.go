package mockserver

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The reads of worker time (docs/contract.md, "Worker time"), on both planes, all computed
// from the workspace's timeline (timeline.go) at the server's clock.

// timeEntryJSON is WorkerTimeEntry. correctionKind is sent on the worker plane only.
type timeEntryJSON struct {
	Type           string  `json:"type"`
	ID             string  `json:"id"`
	StartedAt      string  `json:"startedAt"`
	EndedAt        *string `json:"endedAt"`
	DurationMs     int64   `json:"durationMs"`
	Corrected      bool    `json:"corrected"`
	CorrectionNote *string `json:"correctionNote"`
	CorrectedBy    *string `json:"correctedBy"`
	CorrectionKind *string `json:"correctionKind,omitempty"`
	CorrectedAt    *string `json:"correctedAt"`
	Source         *string `json:"source"`
	EndReason      *string `json:"endReason"`
	Reason         *string `json:"reason"`
	Description    *string `json:"description"`
	TaskID         *string `json:"taskId"`
}

func optISO(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := isoTime(t)
	return &s
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (e *timeEntry) json(now time.Time, workerPlane bool) timeEntryJSON {
	out := timeEntryJSON{
		Type: e.kind, ID: e.id, StartedAt: isoTime(e.start), EndedAt: optISO(e.end),
		DurationMs: e.until(now).Sub(e.start).Milliseconds(), Corrected: e.corrected,
		CorrectedAt: optISO(e.correctedAt), Reason: e.reason, Description: e.description, TaskID: e.taskID,
		Source: optStr(e.source), EndReason: optStr(e.endReason),
	}
	if e.corrected {
		out.CorrectionNote = &e.correctionNote
		if workerPlane {
			out.CorrectionKind = &e.correctionKind
		}
	}
	return out
}

type entryTotalsJSON struct {
	ShiftCount int   `json:"shiftCount"`
	OnShiftMs  int64 `json:"onShiftMs"`
	BreakCount int   `json:"breakCount"`
	BreakMs    int64 `json:"breakMs"`
	WorkingMs  int64 `json:"workingMs"`
}

type timeEntriesAnswer struct {
	WorkerID string          `json:"workerId"`
	From     string          `json:"from"`
	To       string          `json:"to"`
	Entries  []timeEntryJSON `json:"entries"`
	Totals   entryTotalsJSON `json:"totals"`
}

func timeEntries(ws *workspace, workerID string, w window, shown window, now time.Time, workerPlane bool) timeEntriesAnswer {
	l := ws.time.log(workerID)
	out := timeEntriesAnswer{WorkerID: workerID, From: isoTime(shown.from), To: isoTime(shown.to), Entries: []timeEntryJSON{}}
	for _, e := range l.entries(w, now) {
		out.Entries = append(out.Entries, e.json(now, workerPlane))
	}
	t := l.totals(w, now)
	out.Totals = entryTotalsJSON{ShiftCount: t.shiftCount, OnShiftMs: t.onShift.Milliseconds(), BreakCount: t.breakCount,
		BreakMs: t.breakTime.Milliseconds(), WorkingMs: t.working.Milliseconds()}
	return out
}

// parseInstant reads a from/to query value: ISO-8601 (RFC 3339), a calendar date (its UTC
// midnight) or Unix epoch milliseconds.
func parseInstant(name, v string) (time.Time, *apiError) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 {
		return time.UnixMilli(ms).UTC(), nil
	}
	return time.Time{}, validationf("query/%s must be an ISO-8601 time, a date (YYYY-MM-DD) or epoch milliseconds", name)
}

// queryWindow reads from and to; each absent bound defaults (to: now; from: to less def). It
// returns the window to compute over (inclusive of now) and the one to show.
func queryWindow(r *request, def time.Duration) (func(now time.Time) (window, window), *apiError) {
	var from, to time.Time
	var err *apiError
	if v := r.query.Get("from"); v != "" {
		if from, err = parseInstant("from", v); err != nil {
			return nil, err
		}
	}
	if v := r.query.Get("to"); v != "" {
		if to, err = parseInstant("to", v); err != nil {
			return nil, err
		}
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return nil, invalidBodyf("query/from must be before query/to")
	}
	return func(now time.Time) (window, window) {
		shown := window{from, to}
		calc := window{from, to}
		if to.IsZero() {
			shown.to, calc.to = now, now.Add(time.Millisecond)
		}
		if from.IsZero() {
			shown.from = shown.to.Add(-def)
			calc.from = shown.from
		}
		return calc, shown
	}, nil
}

const week = 7 * 24 * time.Hour

// prepTimeEntries is GET /workers/{id}/time-entries: the shifts and breaks touching the
// window (default: the 7 days up to now), with its totals.
func prepTimeEntries(r *request) (op, *apiError) {
	win, err := queryWindow(r, week)
	if err != nil {
		return nil, err
	}
	workerID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, err := ws.engine.Worker(workerID); err != nil {
			return 0, nil, matchError(err)
		}
		calc, shown := win(now)
		return http.StatusOK, timeEntries(ws, workerID, calc, shown, now, false), nil
	}, nil
}

// prepMyTimeEntries is GET /portal/me/time-entries: the worker's own copy, fixed to the 7
// days up to now.
func prepMyTimeEntries(r *request) (op, *apiError) {
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		shown := window{now.Add(-week), now}
		calc := window{shown.from, now.Add(time.Millisecond)}
		return http.StatusOK, timeEntries(ws, r.worker, calc, shown, now, true), nil
	}, nil
}

// metricsDayJSON is WorkerMetricsToday (the worker plane) and WorkerMetricsDay (the
// workspace plane's today).
type metricsDayJSON struct {
	WorkerID              string  `json:"workerId,omitempty"`
	Since                 string  `json:"since"`
	CompletedTasks        int     `json:"completedTasks"`
	ShiftCount            int     `json:"shiftCount"`
	OnShiftMs             int64   `json:"onShiftMs"`
	BreakCount            int     `json:"breakCount"`
	TotalBreakMs          int64   `json:"totalBreakMs"`
	LongestBreakMs        int64   `json:"longestBreakMs"`
	WorkingMs             int64   `json:"workingMs"`
	CurrentShiftStartedAt *string `json:"currentShiftStartedAt"`
}

// operatorDayJSON is WorkerMetricsDay, the workspace plane's today: the worker plane's day
// without currentShiftStartedAt, which the platform's operator model does not have. The
// member declared here, always nil and omitted, hides the embedded one from encoding/json.
type operatorDayJSON struct {
	metricsDayJSON
	CurrentShiftStartedAt *string `json:"currentShiftStartedAt,omitempty"`
}

func metricsToday(ws *workspace, workerID string, now time.Time) metricsDayJSON {
	l := ws.time.log(workerID)
	w := today(now)
	t := l.totals(w, now)
	out := metricsDayJSON{
		Since: isoTime(w.from), CompletedTasks: l.counts(w).completed, ShiftCount: t.shiftCount,
		OnShiftMs: t.onShift.Milliseconds(), BreakCount: t.breakCount, TotalBreakMs: t.breakTime.Milliseconds(),
		LongestBreakMs: t.longestBreak.Milliseconds(), WorkingMs: t.working.Milliseconds(),
	}
	if s := l.openShift(); s != nil {
		out.CurrentShiftStartedAt = optISO(s.start)
	}
	return out
}

// metricsPeriodJSON is WorkerMetricsPeriod.
type metricsPeriodJSON struct {
	From           string     `json:"from"`
	To             string     `json:"to"`
	Days           []dayCount `json:"days"`
	MedianWaitMs   *int64     `json:"medianWaitMs"`
	MedianCycleMs  *int64     `json:"medianCycleMs"`
	ShiftCount     int        `json:"shiftCount"`
	OnShiftMs      int64      `json:"onShiftMs"`
	BreakMs        int64      `json:"breakMs"`
	WorkingMs      int64      `json:"workingMs"`
	Offered        int        `json:"offered"`
	Accepted       int        `json:"accepted"`
	Rejected       int        `json:"rejected"`
	Completed      int        `json:"completed"`
	Failed         int        `json:"failed"`
	Expired        int        `json:"expired"`
	Released       int        `json:"released"`
	AcceptanceRate *float64   `json:"acceptanceRate"`
}

// parseWindowDays reads window ("7d"; default 7, at most 30).
func parseWindowDays(r *request) (int, *apiError) {
	v := r.query.Get("window")
	if v == "" {
		return 7, nil
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v, "d"))
	if err != nil || !strings.HasSuffix(v, "d") || n < 1 || n > 30 {
		return 0, validationf("query/window must be 1d to 30d")
	}
	return n, nil
}

func metricsPeriod(ws *workspace, workerID string, days int, now time.Time) metricsPeriodJSON {
	l := ws.time.log(workerID)
	w := lastDays(now, days)
	t, c := l.totals(w, now), l.counts(w)
	wait, cycle := l.medians(w)
	out := metricsPeriodJSON{
		From: isoTime(w.from), To: isoTime(now), Days: l.completedByDay(w), MedianWaitMs: wait, MedianCycleMs: cycle,
		ShiftCount: t.shiftCount, OnShiftMs: t.onShift.Milliseconds(), BreakMs: t.breakTime.Milliseconds(),
		WorkingMs: t.working.Milliseconds(), Offered: c.offered, Accepted: c.accepted, Rejected: c.rejected,
		Completed: c.completed, Failed: c.failed, Expired: c.expired, Released: c.released,
	}
	if c.offered > 0 {
		rate := float64(c.accepted) / float64(c.offered)
		out.AcceptanceRate = &rate
	}
	return out
}

// prepWorkerMetrics is GET /workers/{id}/metrics: today plus the window of whole UTC days up
// to now (window=Nd, default 7d, at most 30d).
func prepWorkerMetrics(r *request) (op, *apiError) {
	days, err := parseWindowDays(r)
	if err != nil {
		return nil, err
	}
	workerID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, err := ws.engine.Worker(workerID); err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, struct {
			WorkerID string            `json:"workerId"`
			Today    operatorDayJSON   `json:"today"`
			Window   metricsPeriodJSON `json:"window"`
		}{workerID, operatorDayJSON{metricsDayJSON: metricsToday(ws, workerID, now)}, metricsPeriod(ws, workerID, days, now)}, nil
	}, nil
}

// prepMyMetricsToday is GET /portal/metrics/today.
func prepMyMetricsToday(r *request) (op, *apiError) {
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		out := metricsToday(ws, r.worker, now)
		out.WorkerID = r.worker
		return http.StatusOK, out, nil
	}, nil
}

// prepMyMetricsWindow is GET /portal/metrics: the window's completions per day and medians.
func prepMyMetricsWindow(r *request) (op, *apiError) {
	days, err := parseWindowDays(r)
	if err != nil {
		return nil, err
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		p := metricsPeriod(ws, r.worker, days, now)
		return http.StatusOK, struct {
			WorkerID      string     `json:"workerId"`
			Since         string     `json:"since"`
			Days          []dayCount `json:"days"`
			MedianWaitMs  *int64     `json:"medianWaitMs"`
			MedianCycleMs *int64     `json:"medianCycleMs"`
		}{r.worker, p.From, p.Days, p.MedianWaitMs, p.MedianCycleMs}, nil
	}, nil
}

// workerBreakJSON is WorkerBreak.
type workerBreakJSON struct {
	ID         string  `json:"id"`
	StartedAt  string  `json:"startedAt"`
	EndedAt    *string `json:"endedAt"`
	Reason     *string `json:"reason"`
	DurationMs int64   `json:"durationMs"`
}

func breakJSON(b *timeEntry, now time.Time) workerBreakJSON {
	return workerBreakJSON{ID: b.id, StartedAt: isoTime(b.start), EndedAt: optISO(b.end), Reason: b.reason,
		DurationMs: b.until(now).Sub(b.start).Milliseconds()}
}

// prepMyBreaksToday is GET /portal/breaks/today: every break touching today, the open one
// included, which is also active.
func prepMyBreaksToday(r *request) (op, *apiError) {
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		l := ws.time.log(r.worker)
		w := today(now)
		out := struct {
			WorkerID       string            `json:"workerId"`
			Since          string            `json:"since"`
			Breaks         []workerBreakJSON `json:"breaks"`
			Active         *workerBreakJSON  `json:"active"`
			CompletedTasks int               `json:"completedTasks"`
			TotalBreakMs   int64             `json:"totalBreakMs"`
		}{WorkerID: r.worker, Since: isoTime(w.from), Breaks: []workerBreakJSON{}, CompletedTasks: l.counts(w).completed,
			TotalBreakMs: l.totals(w, now).breakTime.Milliseconds()}
		for _, b := range l.breaks {
			if w.touches(b, now) {
				out.Breaks = append(out.Breaks, breakJSON(b, now))
			}
		}
		if b := l.openBreak(); b != nil {
			j := breakJSON(b, now)
			out.Active = &j
		}
		return http.StatusOK, out, nil
	}, nil
}

// reportScope lists the workers a workspace report covers, by id: all, one team's, or one
// worker. A filter naming nobody gives an empty report.
func reportScope(ws *workspace, teamID, workerID string) []string {
	ids := ws.engine.WorkerIDs()
	if teamID != "" {
		t := ws.teams.find(teamID)
		ids = slices.DeleteFunc(ids, func(id string) bool { return t == nil || t.memberIndex(id) < 0 })
	}
	if workerID != "" {
		ids = slices.DeleteFunc(ids, func(id string) bool { return id != workerID })
	}
	return ids
}

// label is how reports name a worker: its sign-in label, else its id.
func label(ws *workspace, workerID string) string {
	if id := ws.identities[workerID]; id != nil && id.label != nil && *id.label != "" {
		return *id.label
	}
	return workerID
}

type presenceMemberJSON struct {
	WorkerID       string  `json:"workerId"`
	Label          string  `json:"label"`
	Status         string  `json:"status"`
	BreakStartedAt *string `json:"breakStartedAt"`
	BreakReason    *string `json:"breakReason"`
}

type presenceCounts struct {
	Working int `json:"working"`
	OnBreak int `json:"onBreak"`
	Paused  int `json:"paused"`
	Total   int `json:"total"`
}

// presence is TeamPresence over the workers named, by id: on-break while a break is open,
// working while available, paused otherwise.
func presence(ws *workspace, ids []string) any {
	out := struct {
		Workers []presenceMemberJSON `json:"workers"`
		Counts  presenceCounts       `json:"counts"`
	}{Workers: []presenceMemberJSON{}}
	for _, id := range ids {
		w, err := ws.engine.Worker(id)
		if err != nil {
			continue
		}
		m := presenceMemberJSON{WorkerID: id, Label: label(ws, id)}
		switch {
		case w.OnBreak:
			m.Status, m.BreakStartedAt = "on-break", optISO(w.BreakSince)
			m.BreakReason = optStr(w.BreakReason)
			out.Counts.OnBreak++
		case w.Available:
			m.Status = "working"
			out.Counts.Working++
		default:
			m.Status = "paused"
			out.Counts.Paused++
		}
		out.Counts.Total++
		out.Workers = append(out.Workers, m)
	}
	return out
}

// prepPresence is GET /team/presence, optionally one team's.
func prepPresence(r *request) (op, *apiError) {
	teamID := r.query.Get("teamId")
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		return http.StatusOK, presence(ws, reportScope(ws, teamID, "")), nil
	}, nil
}

// prepMyTeamPresence is GET /portal/team/presence: the whole workspace, as every worker of
// it sees it.
func prepMyTeamPresence(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		return http.StatusOK, presence(ws, reportScope(ws, "", "")), nil
	}, nil
}

type breakMetricJSON struct {
	WorkerID       string `json:"workerId"`
	Label          string `json:"label"`
	Count          int    `json:"count"`
	TotalBreakMs   int64  `json:"totalBreakMs"`
	LongestBreakMs int64  `json:"longestBreakMs"`
	Active         bool   `json:"active"`
}

// prepBreakMetrics is GET /breaks/metrics: each worker's breaks in the window (without from:
// from the midnight UTC before its end, so today by default), active meaning on a break now.
func prepBreakMetrics(r *request) (op, *apiError) {
	win, err := queryWindow(r, 0)
	if err != nil {
		return nil, err
	}
	teamID, workerID := r.query.Get("teamId"), r.query.Get("workerId")
	noFrom := r.query.Get("from") == ""
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		calc, _ := win(now)
		if noFrom {
			calc.from = dayStart(calc.to.Add(-time.Millisecond)) // the start of the day holding the window's end
		}
		out := struct {
			Workers      []breakMetricJSON `json:"workers"`
			TotalBreakMs int64             `json:"totalBreakMs"`
			BreakCount   int               `json:"breakCount"`
			ActiveCount  int               `json:"activeCount"`
		}{Workers: []breakMetricJSON{}}
		for _, id := range reportScope(ws, teamID, workerID) {
			l := ws.time.log(id)
			t := l.totals(calc, now)
			m := breakMetricJSON{WorkerID: id, Label: label(ws, id), Count: t.breakCount,
				TotalBreakMs: t.breakTime.Milliseconds(), LongestBreakMs: t.longestBreak.Milliseconds(), Active: l.openBreak() != nil}
			out.TotalBreakMs += m.TotalBreakMs
			out.BreakCount += m.Count
			if m.Active {
				out.ActiveCount++
			}
			out.Workers = append(out.Workers, m)
		}
		return http.StatusOK, out, nil
	}, nil
}
