package taskrouting

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// Corrections of the working-time record: a shift worked and never logged
// is added, a shift or break logged wrongly is changed. Each change carries
// a reason (Note) and leaves a trail entry holding what the record said
// before, read with WorkersService.TimeCorrections.

// CodePeriodClosed is the code of a 409 from the platform for a correction
// inside a signed-off period. The mock server has no signing off, so it
// never answers it.
const CodePeriodClosed = "period_closed"

// TimeEntryBreak is a break of a shift as CreateTimeEntry and
// CorrectTimeEntry send it.
type TimeEntryBreak struct {
	// ID names an existing break to move or keep (CorrectTimeEntry only);
	// "" adds a new break.
	ID        string
	StartedAt time.Time
	// EndedAt zero sends null: the break is still open (CorrectTimeEntry of
	// an open shift only; a created shift takes no open break).
	EndedAt time.Time
}

// MarshalJSON writes the break with ISO-8601 times; an open break's end is
// an explicit null, which is the statement "still open".
func (b TimeEntryBreak) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID        string   `json:"id,omitempty"`
		StartedAt wireTime `json:"startedAt"`
		EndedAt   wireTime `json:"endedAt"`
	}{b.ID, isoOf(b.StartedAt), isoOf(b.EndedAt)})
}

func checkBreaks(in string, breaks []TimeEntryBreak) error {
	for i, b := range breaks {
		if b.StartedAt.IsZero() {
			return &ParamError{Param: in + "[" + strconv.Itoa(i) + "].StartedAt", Problem: "must be set"}
		}
	}
	return nil
}

// CreateTimeEntryParams is a shift worked and never logged.
type CreateTimeEntryParams struct {
	StartedAt, EndedAt time.Time        // both required
	Note               string           // why the shift is added after the fact, 3-500 characters
	Breaks             []TimeEntryBreak // breaks taken inside the shift, each ended
	Description        string           // the work note
	TaskID             string           // the task the time was spent on
}

func (p CreateTimeEntryParams) validate() error {
	const in = "CreateTimeEntryParams"
	switch {
	case p.StartedAt.IsZero():
		return &ParamError{Param: in + ".StartedAt", Problem: "must be set"}
	case p.EndedAt.IsZero():
		return &ParamError{Param: in + ".EndedAt", Problem: "must be set"}
	case !p.EndedAt.After(p.StartedAt):
		return &ParamError{Param: in + ".EndedAt", Problem: "must be after StartedAt"}
	}
	for i, b := range p.Breaks {
		if b.EndedAt.IsZero() {
			return &ParamError{Param: in + ".Breaks[" + strconv.Itoa(i) + "].EndedAt", Problem: "must be set: a created shift takes no open break"}
		}
	}
	return firstError(checkLen(in+".Note", p.Note, 3, 500), checkBreaks(in+".Breaks", p.Breaks))
}

// MarshalJSON writes the times as ISO-8601 and leaves out what is not set.
func (p CreateTimeEntryParams) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		StartedAt   wireTime         `json:"startedAt"`
		EndedAt     wireTime         `json:"endedAt"`
		Note        string           `json:"note"`
		Breaks      []TimeEntryBreak `json:"breaks,omitempty"`
		Description string           `json:"description,omitempty"`
		TaskID      string           `json:"taskId,omitempty"`
	}{isoOf(p.StartedAt), isoOf(p.EndedAt), p.Note, p.Breaks, p.Description, p.TaskID})
}

// CorrectTimeEntryParams changes a recorded shift or break. Only what is
// set is sent; the rest is left alone.
type CorrectTimeEntryParams struct {
	Note      string    // why the record changes, 3-500 characters; required
	StartedAt time.Time // zero: unchanged
	// EndedAt: absent leaves it, Null reopens a shift closed by mistake.
	EndedAt Nullable[time.Time]
	// Type, when set ("shift" or "break"), says which kind the entry is.
	Type string
	// Breaks (shifts only), when not nil, is every break the shift holds
	// afterwards: a break of the shift not listed is removed. An empty,
	// non-nil slice removes them all.
	Breaks []TimeEntryBreak
	// Description and TaskID (shifts only): absent leaves, Null clears.
	Description Nullable[string]
	TaskID      Nullable[string]
}

func (p CorrectTimeEntryParams) validate() error {
	const in = "CorrectTimeEntryParams"
	if p.Type != "" && p.Type != "shift" && p.Type != "break" {
		return &ParamError{Param: in + ".Type", Problem: `must be "shift" or "break"`}
	}
	return firstError(checkLen(in+".Note", p.Note, 3, 500), checkBreaks(in+".Breaks", p.Breaks))
}

// MarshalJSON sends the note and only the members that are set.
func (p CorrectTimeEntryParams) MarshalJSON() ([]byte, error) {
	w := struct {
		Note        string           `json:"note"`
		StartedAt   *wireTime        `json:"startedAt,omitempty"`
		EndedAt     *wireTime        `json:"endedAt,omitempty"`
		Type        string           `json:"type,omitempty"`
		Breaks      []TimeEntryBreak `json:"breaks,omitempty"`
		Description Nullable[string] `json:"description,omitzero"`
		TaskID      Nullable[string] `json:"taskId,omitzero"`
	}{Note: p.Note, Type: p.Type, Breaks: p.Breaks, Description: p.Description, TaskID: p.TaskID}
	if !p.StartedAt.IsZero() {
		t := isoOf(p.StartedAt)
		w.StartedAt = &t
	}
	if !p.EndedAt.IsZero() {
		end, _ := p.EndedAt.Get() // Null leaves the zero time, written as null
		t := isoOf(end)
		w.EndedAt = &t
	}
	raw, err := json.Marshal(w)
	if err != nil || p.Breaks == nil || len(p.Breaks) > 0 {
		return raw, err
	}
	// An empty, non-nil list is a statement ("no breaks"), so it is sent.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	m["breaks"] = json.RawMessage("[]")
	return json.Marshal(m)
}

// CorrectedTimeEntry is a shift or break as it stands after a correction
// or an added shift.
type CorrectedTimeEntry struct {
	ID          string
	Type        string // "shift" or "break"
	StartedAt   time.Time
	EndedAt     time.Time // zero while open
	Corrected   bool
	Source      string // shifts: "portal", "operator" or "supervisor"
	EndReason   string // shifts: "manual", "timeout" or "removed"; "" while open
	Reason      string // breaks: the worker's stated reason
	Description string
	TaskID      string
}

// UnmarshalJSON reads the wire times and the nullable members.
func (e *CorrectedTimeEntry) UnmarshalJSON(b []byte) error {
	var w struct {
		ID, Type                                       string
		StartedAt, EndedAt                             wireTime
		Corrected                                      bool
		Source, EndReason, Reason, Description, TaskID *string
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = CorrectedTimeEntry{ID: w.ID, Type: w.Type, StartedAt: w.StartedAt.t, EndedAt: w.EndedAt.t, Corrected: w.Corrected,
		Source: nullToEmpty(w.Source), EndReason: nullToEmpty(w.EndReason), Reason: nullToEmpty(w.Reason),
		Description: nullToEmpty(w.Description), TaskID: nullToEmpty(w.TaskID)}
	return nil
}

// TimeCorrection is one change made to a worker's time record.
type TimeCorrection struct {
	ID        string
	EntryType string // "shift" or "break"
	EntryID   string
	WorkerID  string
	// Before is what the record held (only the members that changed); nil
	// when the change created the entry.
	Before map[string]any
	After  map[string]any
	Note   string
	By     string // the author; "" when the change was made with an API key
	At     time.Time
}

// UnmarshalJSON reads the wire time and the nullable members.
func (c *TimeCorrection) UnmarshalJSON(b []byte) error {
	var w struct {
		ID, EntryType, EntryID, WorkerID, Note string
		Before, After                          map[string]any
		By                                     *string
		At                                     wireTime
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = TimeCorrection{ID: w.ID, EntryType: w.EntryType, EntryID: w.EntryID, WorkerID: w.WorkerID, Before: w.Before,
		After: w.After, Note: w.Note, By: nullToEmpty(w.By), At: w.At.t}
	return nil
}

// TimeEntryCorrection is the answer of CreateTimeEntry and
// CorrectTimeEntry: the entry as it stands and its trail entry. When the
// call sent breaks, Breaks holds every break of the shift afterwards and
// Corrections one trail entry per record touched, the shift's first.
type TimeEntryCorrection struct {
	Entry       CorrectedTimeEntry   `json:"entry"`
	Correction  TimeCorrection       `json:"correction"`
	Breaks      []CorrectedTimeEntry `json:"breaks"`
	Corrections []TimeCorrection     `json:"corrections"`
}

// CreateTimeEntry records a shift worked and never logged, with its
// breaks. The server answers 201.
//
// API: workers.createTimeEntry, POST /workers/{id}/time-entries
func (s *WorkersService) CreateTimeEntry(ctx context.Context, workerID string, p CreateTimeEntryParams, opts ...RequestOption) (*TimeEntryCorrection, error) {
	if err := s.c.admit(firstError(checkID("workerID", workerID), p.validate()), opts); err != nil {
		return nil, err
	}
	out := new(TimeEntryCorrection)
	if err := s.c.call(ctx, "POST", escapePath("/workers/", workerID, "/time-entries"), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// CorrectTimeEntry changes a recorded shift or break and keeps what it
// held before in the trail.
//
// API: workers.correctTimeEntry, PATCH /workers/{id}/time-entries/{entryId}
func (s *WorkersService) CorrectTimeEntry(ctx context.Context, workerID, entryID string, p CorrectTimeEntryParams, opts ...RequestOption) (*TimeEntryCorrection, error) {
	if err := s.c.admit(firstError(checkID("workerID", workerID), checkID("entryID", entryID), p.validate()), opts); err != nil {
		return nil, err
	}
	out := new(TimeEntryCorrection)
	if err := s.c.call(ctx, "PATCH", escapePath("/workers/", workerID, "/time-entries/", entryID), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// TimeCorrections returns every change made to a worker's time record,
// oldest first: the trail a dispute reads.
//
// API: workers.timeCorrections, GET /workers/{id}/time-corrections
func (s *WorkersService) TimeCorrections(ctx context.Context, workerID string, opts ...RequestOption) ([]TimeCorrection, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	var out struct {
		Corrections []TimeCorrection `json:"corrections"`
	}
	if err := s.c.call(ctx, "GET", escapePath("/workers/", workerID, "/time-corrections"), nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Corrections, nil
}
