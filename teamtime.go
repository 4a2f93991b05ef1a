package taskrouting

import (
	"context"
	"encoding/json"
	"time"
)

// TeamTimeParams scopes Teams.Time. A zero bound takes the server's default
// (the 7 days up to now).
type TeamTimeParams struct {
	From, To time.Time
	TeamID   string // only this team's workers
	WorkerID string // only this worker
	// Entries asks for each worker's log and a series of days; false is
	// never sent.
	Entries bool
}

// TeamTimeWorker is one worker's row of the team report.
type TeamTimeWorker struct {
	WorkerID   string
	Label      string
	ShiftCount int
	OnShift    time.Duration // inside the window, breaks included
	BreakCount int
	Break      time.Duration
	Working    time.Duration // OnShift less the breaks taken during it
	OpenShift  bool
	OpenBreak  bool

	Completed, Offered, Accepted, Rejected, Expired, Failed, Released int

	Entries []TimeEntry // only when TeamTimeParams.Entries was set
}

// UnmarshalJSON reads the wire durations.
func (r *TeamTimeWorker) UnmarshalJSON(b []byte) error {
	var w struct {
		WorkerID, Label                                                   string
		ShiftCount, BreakCount                                            int
		OnShiftMs, BreakMs, WorkingMs                                     durationMillis
		OpenShift, OpenBreak                                              bool
		Completed, Offered, Accepted, Rejected, Expired, Failed, Released int
		Entries                                                           []TimeEntry
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = TeamTimeWorker{WorkerID: w.WorkerID, Label: w.Label, ShiftCount: w.ShiftCount, OnShift: time.Duration(w.OnShiftMs),
		BreakCount: w.BreakCount, Break: time.Duration(w.BreakMs), Working: time.Duration(w.WorkingMs), OpenShift: w.OpenShift,
		OpenBreak: w.OpenBreak, Completed: w.Completed, Offered: w.Offered, Accepted: w.Accepted, Rejected: w.Rejected,
		Expired: w.Expired, Failed: w.Failed, Released: w.Released, Entries: w.Entries}
	return nil
}

// TeamTimeDay is the team's time on one UTC day.
type TeamTimeDay struct {
	Day     string // YYYY-MM-DD
	OnShift time.Duration
	Break   time.Duration
	Working time.Duration
}

// UnmarshalJSON reads the wire durations.
func (d *TeamTimeDay) UnmarshalJSON(b []byte) error {
	var w struct {
		Day                           string
		OnShiftMs, BreakMs, WorkingMs durationMillis
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = TeamTimeDay{Day: w.Day, OnShift: time.Duration(w.OnShiftMs), Break: time.Duration(w.BreakMs), Working: time.Duration(w.WorkingMs)}
	return nil
}

// TeamTimeTotals sums the report's rows.
type TeamTimeTotals struct {
	WorkerCount, ShiftCount, BreakCount                     int
	OnShift, Break, Working                                 time.Duration
	Completed, Offered, Accepted, Rejected, Expired, Failed int
}

// UnmarshalJSON reads the wire durations.
func (t *TeamTimeTotals) UnmarshalJSON(b []byte) error {
	var w struct {
		WorkerCount, ShiftCount, BreakCount                     int
		OnShiftMs, BreakMs, WorkingMs                           durationMillis
		Completed, Offered, Accepted, Rejected, Expired, Failed int
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = TeamTimeTotals{WorkerCount: w.WorkerCount, ShiftCount: w.ShiftCount, BreakCount: w.BreakCount,
		OnShift: time.Duration(w.OnShiftMs), Break: time.Duration(w.BreakMs), Working: time.Duration(w.WorkingMs),
		Completed: w.Completed, Offered: w.Offered, Accepted: w.Accepted, Rejected: w.Rejected, Expired: w.Expired, Failed: w.Failed}
	return nil
}

// TeamTime is the team report: worked time and task outcomes per worker
// over a window, with totals.
type TeamTime struct {
	From, To  time.Time
	Workers   []TeamTimeWorker
	Days      []TeamTimeDay // nil unless TeamTimeParams.Entries was set
	Totals    TeamTimeTotals
	Truncated bool // the window held more log rows than one read returns
}

// UnmarshalJSON reads the wire times.
func (t *TeamTime) UnmarshalJSON(b []byte) error {
	var w struct {
		From, To  wireTime
		Workers   []TeamTimeWorker
		Days      []TeamTimeDay
		Totals    TeamTimeTotals
		Truncated bool
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = TeamTime{From: w.From.t, To: w.To.t, Workers: w.Workers, Days: w.Days, Totals: w.Totals, Truncated: w.Truncated}
	return nil
}

// Time returns the team report: each worker's shifts, breaks, worked time
// and task outcomes over a window, for the workspace, one team or one
// worker.
//
// API: team.time, GET /team/time
func (s *TeamsService) Time(ctx context.Context, p TeamTimeParams, opts ...RequestOption) (*TeamTime, error) {
	if err := firstError(checkWindow("TeamTimeParams", p.From, p.To), checkLen("TeamTimeParams.TeamID", p.TeamID, 0, 64),
		checkLen("TeamTimeParams.WorkerID", p.WorkerID, 0, 128)); err != nil {
		return nil, err
	}
	q := windowQuery(p.From, p.To)
	setIf(q, "teamId", p.TeamID)
	setIf(q, "workerId", p.WorkerID)
	if p.Entries {
		q.Set("entries", "true")
	}
	out := new(TeamTime)
	if err := s.c.call(ctx, "GET", "/team/time", q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
