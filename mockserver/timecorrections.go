package mockserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Corrections of the time record (docs/contract.md, "Worker time"): an operator adds a shift
// never logged or changes one logged wrongly. Each change keeps what the record held before
// in the trail (workers.timeCorrections); the record changes, routing does not. The trail's
// author ("by") is null: an API key names no person.

type correctedEntryJSON struct {
	ID          string  `json:"id"`
	Type        string  `json:"type"`
	StartedAt   string  `json:"startedAt"`
	EndedAt     *string `json:"endedAt"`
	Corrected   bool    `json:"corrected"`
	Source      *string `json:"source"`
	EndReason   *string `json:"endReason"`
	Reason      *string `json:"reason"`
	Description *string `json:"description"`
	TaskID      *string `json:"taskId"`
}

func (e *timeEntry) correctedJSON() correctedEntryJSON {
	return correctedEntryJSON{ID: e.id, Type: e.kind, StartedAt: isoTime(e.start), EndedAt: optISO(e.end),
		Corrected: e.corrected, Source: optStr(e.source), EndReason: optStr(e.endReason), Reason: e.reason,
		Description: e.description, TaskID: e.taskID}
}

type correctionJSON struct {
	ID        string         `json:"id"`
	EntryType string         `json:"entryType"`
	EntryID   string         `json:"entryId"`
	WorkerID  string         `json:"workerId"`
	Before    map[string]any `json:"before"`
	After     map[string]any `json:"after"`
	Note      string         `json:"note"`
	By        *string        `json:"by"`
	At        string         `json:"at"`
}

func (c *correction) json() correctionJSON {
	return correctionJSON{ID: c.id, EntryType: c.entryType, EntryID: c.entryID, WorkerID: c.workerID,
		Before: c.before, After: c.after, Note: c.note, At: isoTime(c.at)}
}

type correctionResult struct {
	Entry       correctedEntryJSON    `json:"entry"`
	Correction  correctionJSON        `json:"correction"`
	Breaks      *[]correctedEntryJSON `json:"breaks,omitempty"`
	Corrections *[]correctionJSON     `json:"corrections,omitempty"`
}

// snapshot is what a correction's before and after record of an entry: its times and, for a
// shift, its note and task.
func (e *timeEntry) snapshot() map[string]any {
	m := map[string]any{"startedAt": isoTime(e.start), "endedAt": optISO(e.end)}
	if e.kind == "shift" {
		m["description"], m["taskId"] = e.description, e.taskID
	}
	return m
}

// changed keeps the members whose value differs between before and after.
func changed(before, after map[string]any) (map[string]any, map[string]any) {
	b, a := map[string]any{}, map[string]any{}
	for k, v := range after {
		if !jsonEqual(before[k], v) {
			b[k], a[k] = before[k], v
		}
	}
	return b, a
}

func (tl *timeline) record(e *timeEntry, before, after map[string]any, note string, now time.Time, kind string) *correction {
	tl.corrSeq++
	c := &correction{id: "cor_" + strconv.Itoa(tl.corrSeq), entryType: e.kind, entryID: e.id, workerID: e.workerID,
		before: before, after: after, note: note, at: now}
	tl.corrections = append(tl.corrections, c)
	e.corrected, e.correctionKind, e.correctionNote, e.correctedAt = true, kind, note, now
	return c
}

// breakSpec is one break of a shift as a create or a correction sends it.
type breakSpec struct {
	ID        string          `json:"id"`
	StartedAt string          `json:"startedAt"`
	EndedAt   json.RawMessage `json:"endedAt"`
}

// span is a parsed start and end; end zero: open.
type span struct{ start, end time.Time }

func parseTime(name, v string) (time.Time, *apiError) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, validationf("%s must be an ISO-8601 time", name)
	}
	return t.UTC(), nil
}

// parseNullableTime reads a member that may be a time or null; ok is false when absent.
func parseNullableTime(name string, raw json.RawMessage) (t time.Time, ok bool, err *apiError) {
	if raw == nil {
		return time.Time{}, false, nil
	}
	if isNull(raw) {
		return time.Time{}, true, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return time.Time{}, false, validationf("%s must be string or null", name)
	}
	t, err = parseTime(name, s)
	return t, err == nil, err
}

func parseBreaks(specs []breakSpec) ([]span, *apiError) {
	out := make([]span, len(specs))
	for i, b := range specs {
		name := "body/breaks/" + strconv.Itoa(i)
		start, err := parseTime(name+"/startedAt", b.StartedAt)
		if err != nil {
			return nil, err
		}
		end, _, err := parseNullableTime(name+"/endedAt", b.EndedAt)
		if err != nil {
			return nil, err
		}
		out[i] = span{start, end}
	}
	return out, nil
}

// checkBreaks holds breaks to their shift: each inside it, ended after it started, none
// overlapping another, at most one open and only in an open shift.
func checkBreaks(shift span, breaks []span, now time.Time) *apiError {
	shiftEnd := shift.end
	if shiftEnd.IsZero() {
		shiftEnd = now
	}
	open := 0
	for i, b := range breaks {
		end := b.end
		if end.IsZero() {
			if open++; open > 1 || !shift.end.IsZero() {
				return invalidBodyf("body/breaks/%d: only an open shift can hold an open break, and only one", i)
			}
			end = now
		}
		if end.Before(b.start) || b.start.Before(shift.start) || end.After(shiftEnd) {
			return invalidBodyf("body/breaks/%d must lie inside the shift and end after it starts", i)
		}
		for j := range i {
			o := breaks[j]
			oEnd := o.end
			if oEnd.IsZero() {
				oEnd = now
			}
			if b.start.Before(oEnd) && o.start.Before(end) {
				return invalidBodyf("body/breaks/%d overlaps body/breaks/%d", i, j)
			}
		}
	}
	return nil
}

// overlapsShift returns another shift of the worker that [start, end) (end zero: up to now)
// overlaps, or nil.
func (l *workerLog) overlapsShift(self *timeEntry, sp span, now time.Time) *timeEntry {
	end := sp.end
	if end.IsZero() {
		end = now.Add(time.Millisecond)
	}
	for _, s := range l.shifts {
		if s != self && sp.start.Before(s.until(now).Add(boolMs(s.open()))) && s.start.Before(end) {
			return s
		}
	}
	return nil
}

func boolMs(b bool) time.Duration {
	if b {
		return time.Millisecond
	}
	return 0
}

// prepCreateTimeEntry is POST /workers/{id}/time-entries: a shift worked and never logged,
// with its breaks. It must have ended, by now, after it started, and overlap no other shift
// of the worker (409 invalid_state). Breaks need the worker's portal sign-in, as on the
// platform. Answers 201.
func prepCreateTimeEntry(r *request) (op, *apiError) {
	var in struct {
		StartedAt, EndedAt, Note string
		Breaks                   []breakSpec
		Description, TaskID      *string
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	start, err := parseTime("body/startedAt", in.StartedAt)
	if err != nil {
		return nil, err
	}
	end, err := parseTime("body/endedAt", in.EndedAt)
	if err != nil {
		return nil, err
	}
	if !end.After(start) {
		return nil, invalidBodyf("body/endedAt must be after body/startedAt")
	}
	for i, b := range in.Breaks {
		if b.ID != "" {
			return nil, invalidBodyf("body/breaks/%d/id: the breaks of a new shift are new and carry no id", i)
		}
		if b.EndedAt == nil || isNull(b.EndedAt) {
			return nil, invalidBodyf("body/breaks/%d/endedAt: a created shift takes no open break", i)
		}
	}
	breaks, err := parseBreaks(in.Breaks)
	if err != nil {
		return nil, err
	}
	if err := checkBreaks(span{start, end}, breaks, end); err != nil {
		return nil, err
	}
	workerID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, err := ws.engine.Worker(workerID); err != nil {
			return 0, nil, matchError(err)
		}
		if end.After(now) {
			return 0, nil, invalidBodyf("body/endedAt is in the future")
		}
		if len(breaks) > 0 {
			if _, ok := ws.identities[workerID]; !ok {
				return 0, nil, invalidBodyf("body/breaks: breaks are kept for workers with a portal sign-in; worker %s has none", workerID)
			}
		}
		l := ws.time.log(workerID)
		if o := l.overlapsShift(nil, span{start, end}, now); o != nil {
			return 0, nil, conflictf(CodeInvalidState, "the shift overlaps shift %s of worker %s", o.id, workerID)
		}
		shift := ws.time.newShift(workerID, start, sourceOperator)
		shift.end, shift.endReason, shift.description, shift.taskID = end, "manual", in.Description, in.TaskID
		l.shifts = insertEntry(l.shifts, shift)
		c := ws.time.record(shift, nil, shift.snapshot(), in.Note, now, "added")
		out := correctionResult{Entry: shift.correctedJSON(), Correction: c.json()}
		if len(breaks) > 0 {
			bs, cs := []correctedEntryJSON{}, []correctionJSON{c.json()}
			for _, sp := range breaks {
				b := ws.time.newBreak(workerID, sp.start, "")
				b.end = sp.end
				l.breaks = insertEntry(l.breaks, b)
				cs = append(cs, ws.time.record(b, nil, b.snapshot(), in.Note, now, "added").json())
				bs = append(bs, b.correctedJSON())
			}
			out.Breaks, out.Corrections = &bs, &cs
		}
		return http.StatusCreated, out, nil
	}, nil
}

// prepCorrectTimeEntry is PATCH /workers/{id}/time-entries/{entryId}: absent members are left
// alone, endedAt null reopens, description and taskId null clear. type, when sent, must be
// the entry's (else 404). breaks (shifts only) lists every break the shift holds afterwards:
// one with an id is moved, one without is added, and a break of the shift left out is
// removed (its trail entry's after is {"removed": true}).
func prepCorrectTimeEntry(r *request) (op, *apiError) {
	var in struct {
		Note                         string
		StartedAt                    *string
		EndedAt, Description, TaskID json.RawMessage
		Type                         string
		Breaks                       *[]breakSpec
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	var newStart time.Time
	if in.StartedAt != nil {
		var err *apiError
		if newStart, err = parseTime("body/startedAt", *in.StartedAt); err != nil {
			return nil, err
		}
	}
	newEnd, setEnd, err := parseNullableTime("body/endedAt", in.EndedAt)
	if err != nil {
		return nil, err
	}
	var breaks []span
	if in.Breaks != nil {
		if breaks, err = parseBreaks(*in.Breaks); err != nil {
			return nil, err
		}
	}
	nullable := func(name string, raw json.RawMessage) (**string, *apiError) {
		if raw == nil {
			return nil, nil
		}
		var v *string
		if json.Unmarshal(raw, &v) != nil {
			return nil, validationf("body/%s must be string or null", name)
		}
		return &v, nil
	}
	desc, err := nullable("description", in.Description)
	if err != nil {
		return nil, err
	}
	task, err := nullable("taskId", in.TaskID)
	if err != nil {
		return nil, err
	}
	workerID, entryID := r.params[0], r.params[1]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, err := ws.engine.Worker(workerID); err != nil {
			return 0, nil, matchError(err)
		}
		l := ws.time.log(workerID)
		e := l.find(entryID)
		if e == nil || (in.Type != "" && in.Type != e.kind) {
			return 0, nil, notFoundf("time entry %s of worker %s not found", entryID, workerID)
		}
		if e.kind == "break" && (desc != nil || task != nil || in.Breaks != nil) {
			return 0, nil, invalidBodyf("description, taskId and breaks belong to shifts; %s is a break", entryID)
		}
		sp := span{e.start, e.end}
		if in.StartedAt != nil {
			sp.start = newStart
		}
		if setEnd {
			sp.end = newEnd
		}
		if sp.start.After(now) || sp.end.After(now) {
			return 0, nil, invalidBodyf("a time entry cannot reach into the future")
		}
		if !sp.end.IsZero() && !sp.end.After(sp.start) {
			return 0, nil, invalidBodyf("body/endedAt must be after body/startedAt")
		}
		list := l.shifts
		if e.kind == "break" {
			list = l.breaks
		}
		if sp.end.IsZero() && slices.ContainsFunc(list, func(o *timeEntry) bool { return o != e && o.open() }) {
			return 0, nil, conflictf(CodeInvalidState, "worker %s already has an open %s", workerID, e.kind)
		}
		if e.kind == "shift" {
			if o := l.overlapsShift(e, sp, now); o != nil {
				return 0, nil, conflictf(CodeInvalidState, "the shift would overlap shift %s", o.id)
			}
		}
		if in.Breaks != nil {
			if err := checkBreaks(sp, breaks, now); err != nil {
				return 0, nil, err
			}
			for i, b := range *in.Breaks {
				if b.ID != "" && l.findBreak(b.ID) == nil {
					return 0, nil, invalidBodyf("body/breaks/%d/id names no break of worker %s", i, workerID)
				}
			}
		}
		// Every check passed: apply.
		oldSpan := span{e.start, e.end}
		before := e.snapshot()
		e.start, e.end = sp.start, sp.end
		if e.kind == "shift" {
			switch {
			case e.end.IsZero():
				e.endReason = ""
			case oldSpan.end.IsZero() || e.endReason == "":
				e.endReason = "manual"
			}
			if desc != nil {
				e.description = *desc
			}
			if task != nil {
				e.taskID = *task
			}
		}
		b, a := changed(before, e.snapshot())
		c := ws.time.record(e, b, a, in.Note, now, "changed")
		sortEntries(list)
		out := correctionResult{Entry: e.correctedJSON(), Correction: c.json()}
		if in.Breaks != nil {
			cs := []correctionJSON{c.json()}
			cs = append(cs, ws.time.replaceBreaks(l, workerID, oldSpan, *in.Breaks, breaks, in.Note, now)...)
			bs := []correctedEntryJSON{}
			for _, br := range l.breaks {
				if (window{e.start, e.until(now).Add(time.Millisecond)}).touches(br, now) {
					bs = append(bs, br.correctedJSON())
				}
			}
			out.Breaks, out.Corrections = &bs, &cs
		}
		return http.StatusOK, out, nil
	}, nil
}

// replaceBreaks makes the breaks listed the shift's breaks: a break of the old span not listed
// is removed; listed ones are moved or added. It returns one trail entry per break touched.
func (tl *timeline) replaceBreaks(l *workerLog, workerID string, old span, specs []breakSpec, spans []span, note string, now time.Time) []correctionJSON {
	var out []correctionJSON
	oldEnd := old.end
	if oldEnd.IsZero() {
		oldEnd = now
	}
	oldWin := window{old.start, oldEnd.Add(time.Millisecond)}
	keep := map[string]bool{}
	for _, s := range specs {
		keep[s.ID] = true
	}
	l.breaks = slices.DeleteFunc(l.breaks, func(b *timeEntry) bool {
		if keep[b.id] || !oldWin.touches(b, now) {
			return false
		}
		out = append(out, tl.record(b, b.snapshot(), map[string]any{"removed": true}, note, now, "changed").json())
		return true
	})
	for i, s := range specs {
		if s.ID != "" {
			b := l.findBreak(s.ID)
			before := b.snapshot()
			b.start, b.end = spans[i].start, spans[i].end
			bb, aa := changed(before, b.snapshot())
			if len(aa) > 0 {
				out = append(out, tl.record(b, bb, aa, note, now, "changed").json())
			}
			continue
		}
		b := tl.newBreak(workerID, spans[i].start, "")
		b.end = spans[i].end
		l.breaks = append(l.breaks, b)
		out = append(out, tl.record(b, nil, b.snapshot(), note, now, "added").json())
	}
	sortEntries(l.breaks)
	return out
}

func (l *workerLog) find(id string) *timeEntry {
	for _, list := range [][]*timeEntry{l.shifts, l.breaks} {
		if i := slices.IndexFunc(list, func(e *timeEntry) bool { return e.id == id }); i >= 0 {
			return list[i]
		}
	}
	return nil
}

func (l *workerLog) findBreak(id string) *timeEntry {
	if i := slices.IndexFunc(l.breaks, func(e *timeEntry) bool { return e.id == id }); i >= 0 {
		return l.breaks[i]
	}
	return nil
}

// prepTimeCorrections is GET /workers/{id}/time-corrections: the worker's trail, oldest first.
func prepTimeCorrections(r *request) (op, *apiError) {
	workerID := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if _, err := ws.engine.Worker(workerID); err != nil {
			return 0, nil, matchError(err)
		}
		out := []correctionJSON{}
		for _, c := range ws.time.corrections {
			if c.workerID == workerID {
				out = append(out, c.json())
			}
		}
		return http.StatusOK, struct {
			WorkerID    string           `json:"workerId"`
			Corrections []correctionJSON `json:"corrections"`
		}{workerID, out}, nil
	}, nil
}
