package mockserver

import (
	"net/http"
	"slices"
	"time"
)

// teamTimeWorkerJSON is TeamTimeWorker.
type teamTimeWorkerJSON struct {
	WorkerID   string           `json:"workerId"`
	Label      string           `json:"label"`
	ShiftCount int              `json:"shiftCount"`
	OnShiftMs  int64            `json:"onShiftMs"`
	BreakCount int              `json:"breakCount"`
	BreakMs    int64            `json:"breakMs"`
	WorkingMs  int64            `json:"workingMs"`
	OpenShift  bool             `json:"openShift"`
	OpenBreak  bool             `json:"openBreak"`
	Completed  int              `json:"completed"`
	Offered    int              `json:"offered"`
	Accepted   int              `json:"accepted"`
	Rejected   int              `json:"rejected"`
	Expired    int              `json:"expired"`
	Failed     int              `json:"failed"`
	Released   int              `json:"released"`
	Entries    *[]timeEntryJSON `json:"entries,omitempty"`
}

type teamTimeDayJSON struct {
	Day       string `json:"day"`
	OnShiftMs int64  `json:"onShiftMs"`
	BreakMs   int64  `json:"breakMs"`
	WorkingMs int64  `json:"workingMs"`
}

type teamTimeTotalsJSON struct {
	WorkerCount int   `json:"workerCount"`
	ShiftCount  int   `json:"shiftCount"`
	OnShiftMs   int64 `json:"onShiftMs"`
	BreakCount  int   `json:"breakCount"`
	BreakMs     int64 `json:"breakMs"`
	WorkingMs   int64 `json:"workingMs"`
	Completed   int   `json:"completed"`
	Offered     int   `json:"offered"`
	Accepted    int   `json:"accepted"`
	Rejected    int   `json:"rejected"`
	Expired     int   `json:"expired"`
	Failed      int   `json:"failed"`
}

type teamTimeAnswer struct {
	From      string               `json:"from"`
	To        string               `json:"to"`
	Workers   []teamTimeWorkerJSON `json:"workers"`
	Days      *[]teamTimeDayJSON   `json:"days"`
	Totals    teamTimeTotalsJSON   `json:"totals"`
	Truncated bool                 `json:"truncated"`
}

// prepTeamTime is GET /team/time: worked time and outcomes per worker over the window
// (default: the 7 days up to now), by id, with totals. With entries=true each row carries its
// log and the answer a series of UTC days (those with any shift or break time); otherwise
// days is null. The mock keeps the whole log, so truncated is always false.
func prepTeamTime(r *request) (op, *apiError) {
	win, err := queryWindow(r, week)
	if err != nil {
		return nil, err
	}
	var withEntries bool
	switch r.query.Get("entries") {
	case "", "false":
	case "true":
		withEntries = true
	default:
		return nil, validationf("query/entries must be boolean")
	}
	teamID, workerID := r.query.Get("teamId"), r.query.Get("workerId")
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		calc, shown := win(now)
		out := teamTimeAnswer{From: isoTime(shown.from), To: isoTime(shown.to), Workers: []teamTimeWorkerJSON{}}
		byDay := map[string]*teamTimeDayJSON{}
		var dayOrder []string
		for _, id := range reportScope(ws, teamID, workerID) {
			l := ws.time.log(id)
			t, c := l.totals(calc, now), l.counts(calc)
			row := teamTimeWorkerJSON{
				WorkerID: id, Label: label(ws, id), ShiftCount: t.shiftCount, OnShiftMs: t.onShift.Milliseconds(),
				BreakCount: t.breakCount, BreakMs: t.breakTime.Milliseconds(), WorkingMs: t.working.Milliseconds(),
				OpenShift: l.openShift() != nil, OpenBreak: l.openBreak() != nil, Completed: c.completed,
				Offered: c.offered, Accepted: c.accepted, Rejected: c.rejected, Expired: c.expired, Failed: c.failed, Released: c.released,
			}
			if withEntries {
				entries := []timeEntryJSON{}
				for _, e := range l.entries(calc, now) {
					entries = append(entries, e.json(now, false))
				}
				row.Entries = &entries
				for _, day := range l.days(calc, now) {
					dt := l.totals(day, now)
					if dt.onShift == 0 && dt.breakTime == 0 {
						continue
					}
					key := day.from.Format(time.DateOnly)
					d := byDay[key]
					if d == nil {
						d = &teamTimeDayJSON{Day: key}
						byDay[key] = d
						dayOrder = append(dayOrder, key)
					}
					d.OnShiftMs += dt.onShift.Milliseconds()
					d.BreakMs += dt.breakTime.Milliseconds()
					d.WorkingMs += dt.working.Milliseconds()
				}
			}
			tt := &out.Totals
			tt.WorkerCount++
			tt.ShiftCount += row.ShiftCount
			tt.OnShiftMs += row.OnShiftMs
			tt.BreakCount += row.BreakCount
			tt.BreakMs += row.BreakMs
			tt.WorkingMs += row.WorkingMs
			tt.Completed += row.Completed
			tt.Offered += row.Offered
			tt.Accepted += row.Accepted
			tt.Rejected += row.Rejected
			tt.Expired += row.Expired
			tt.Failed += row.Failed
			out.Workers = append(out.Workers, row)
		}
		if withEntries {
			days := []teamTimeDayJSON{}
			slices.Sort(dayOrder)
			for _, k := range dayOrder {
				days = append(days, *byDay[k])
			}
			out.Days = &days
		}
		return http.StatusOK, out, nil
	}, nil
}

// days splits w into the UTC days (clipped to w) that hold any of the worker's entries.
func (l *workerLog) days(w window, now time.Time) []window {
	seen := map[time.Time]bool{}
	var out []window
	for _, e := range l.entries(w, now) {
		for d := dayStart(laterOf(e.start, w.from)); d.Before(earlierOf(e.until(now), w.to)) || d.Equal(dayStart(e.start)); d = d.AddDate(0, 0, 1) {
			if seen[d] {
				continue
			}
			seen[d] = true
			out = append(out, window{laterOf(d, w.from), earlierOf(d.AddDate(0, 0, 1), w.to)})
		}
	}
	return out
}
