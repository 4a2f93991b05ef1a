package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CodeBookingClash is the 409 of a booking that overlaps another booking of the same worker.
const CodeBookingClash = "booking_clash"

// booking reserves one worker for a slotted task. While it holds, the matcher offers the
// task to that worker only (internal/match booking.go). Guarded by its workspace's lock.
type booking struct {
	taskID, workerID string
	startAt, endAt   time.Time
	bookedAt         time.Time
}

// bookingStore is a workspace's bookings by task. A booking of a task that finished stays,
// as the record of who was on what; clashes only count live tasks. Its zero value is usable.
type bookingStore struct {
	byTask map[string]*booking
}

func (st *bookingStore) put(b *booking) {
	if st.byTask == nil {
		st.byTask = map[string]*booking{}
	}
	st.byTask[b.taskID] = b
}

// sorted lists the bookings by start, then task id.
func (st *bookingStore) sorted() []*booking {
	out := make([]*booking, 0, len(st.byTask))
	for _, b := range st.byTask {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b *booking) int {
		if c := a.startAt.Compare(b.startAt); c != 0 {
			return c
		}
		return strings.Compare(a.taskID, b.taskID)
	})
	return out
}

// clash returns the live task booked for workerID whose slot overlaps [from, to), other
// than taskID, or "".
func (ws *workspace) clash(taskID, workerID string, from, to time.Time) string {
	for _, b := range ws.bookings.sorted() {
		if b.taskID == taskID || b.workerID != workerID || !b.startAt.Before(to) || !from.Before(b.endAt) {
			continue
		}
		if t, err := ws.engine.Task(b.taskID); err == nil && !t.Status.Terminal() {
			return b.taskID
		}
	}
	return ""
}

// taskSlot reads the slot a task was created with.
func (ws *workspace) taskSlot(taskID string) (start, end time.Time, ok bool, err *apiError) {
	t, terr := ws.engine.Task(taskID)
	if terr != nil {
		return start, end, false, matchError(terr)
	}
	x, _ := t.Extra.(*taskExtra)
	if x == nil || x.others["slot"] == nil {
		return start, end, false, nil
	}
	var s struct{ StartAt, DurationMs int64 }
	if json.Unmarshal(x.others["slot"], &s) != nil {
		return start, end, false, nil
	}
	start = time.UnixMilli(s.StartAt).UTC()
	return start, start.Add(time.Duration(s.DurationMs) * time.Millisecond), true, nil
}

type slotBookingJSON struct {
	TaskID   string `json:"taskId"`
	WorkerID string `json:"workerId"`
	StartAt  int64  `json:"startAt"`
	EndAt    int64  `json:"endAt"`
	BookedAt int64  `json:"bookedAt"`
	Source   string `json:"source"`
}

func (b *booking) json() slotBookingJSON {
	return slotBookingJSON{TaskID: b.taskID, WorkerID: b.workerID, StartAt: b.startAt.UnixMilli(), EndAt: b.endAt.UnixMilli(),
		BookedAt: b.bookedAt.UnixMilli(), Source: "manual"}
}

// withBooking adds the task's booking to a single-task read, as the platform shows it; lists
// leave it out.
func (ws *workspace) withBooking(task json.RawMessage, taskID string) json.RawMessage {
	b := ws.bookings.byTask[taskID]
	if b == nil {
		return task
	}
	member, err := json.Marshal(b.json())
	if err != nil {
		return task
	}
	body := bytes.TrimSuffix(bytes.TrimSpace(task), []byte("}"))
	out := make([]byte, 0, len(body)+len(member)+16)
	out = append(append(append(out, body...), `,"booking":`...), member...)
	return append(out, '}')
}

// prepSetBooking books a worker for a slotted task. A task without a slot cannot be booked
// (409 invalid_state); an overlap with a live booking of the same worker is 409
// booking_clash unless force. Booking again replaces the task's booking.
func prepSetBooking(r *request) (op, *apiError) {
	id := r.params[0]
	b, err := decodeTaskAction(r)
	if err != nil {
		return nil, err
	}
	workerID, force := b.WorkerID, b.Force
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		start, end, slotted, aerr := ws.taskSlot(id)
		if aerr != nil {
			return 0, nil, aerr
		}
		if _, werr := ws.engine.Worker(workerID); werr != nil {
			return 0, nil, matchError(werr)
		}
		if !slotted {
			return 0, nil, conflictf(CodeInvalidState, "task %s has no slot to book", id)
		}
		if other := ws.clash(id, workerID, start, end); other != "" && !force {
			return 0, nil, conflictf(CodeBookingClash, "worker %s is booked for %s in an overlapping slot", workerID, other)
		}
		res, merr := ws.engine.Book(now, id, workerID)
		ws.publish(res)
		if merr != nil {
			return 0, nil, matchError(merr)
		}
		bk := &booking{taskID: id, workerID: workerID, startAt: start, endAt: end, bookedAt: now}
		ws.bookings.put(bk)
		return http.StatusOK, struct {
			ID      string          `json:"id"`
			Booking slotBookingJSON `json:"booking"`
		}{id, bk.json()}, nil
	}, nil
}

// prepReleaseBooking ends a task's booking; a task that is not booked is 404 (there is no
// booking to release).
func prepReleaseBooking(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, err := ws.engine.Task(id); err != nil {
			return 0, nil, matchError(err)
		}
		if ws.bookings.byTask[id] == nil {
			return 0, nil, notFoundf("task %s has no booking", id)
		}
		res, err := ws.engine.Unbook(now, id)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		delete(ws.bookings.byTask, id)
		return http.StatusNoContent, nil, nil
	}, nil
}

// prepListBookings answers the bookings whose slot overlaps [from, to), by start.
func prepListBookings(r *request) (op, *apiError) {
	from, ferr := strconv.ParseInt(r.query.Get("from"), 10, 64)
	to, terr := strconv.ParseInt(r.query.Get("to"), 10, 64)
	if ferr != nil || terr != nil {
		return nil, validationf("querystring must have required properties 'from' and 'to' (epoch milliseconds)")
	}
	if to < from {
		return nil, invalidBodyf("to must not be before from")
	}
	workerID := r.query.Get("workerId")
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		out := struct {
			Bookings []slotBookingJSON `json:"bookings"`
			Count    int               `json:"count"`
		}{Bookings: []slotBookingJSON{}}
		for _, b := range ws.bookings.sorted() {
			if (workerID != "" && b.workerID != workerID) || b.startAt.UnixMilli() >= to || b.endAt.UnixMilli() <= from {
				continue
			}
			out.Bookings = append(out.Bookings, b.json())
		}
		out.Count = len(out.Bookings)
		return http.StatusOK, out, nil
	}, nil
}

type slotCandidateJSON struct {
	WorkerID          string        `json:"workerId"`
	Score             float64       `json:"score"`
	EffectivePriority float64       `json:"effectivePriority"`
	Bookable          bool          `json:"bookable"`
	Reasons           []MatchReason `json:"reasons"`
	ClashingTaskID    *string       `json:"clashingTaskId"`
}

// prepBookingCandidates ranks who could be booked: the matcher's eligibility for the task
// (its own booking left out) and, for a slotted task, the worker's overlapping bookings. A
// worker is bookable when eligible and free of clashes. Shifts, time off and calendars are
// not modelled, so blocked and warnings are never sent.
func prepBookingCandidates(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		start, end, slotted, aerr := ws.taskSlot(id)
		if aerr != nil {
			return 0, nil, aerr
		}
		cands, err := ws.engine.BookingCandidates(id, 25)
		if err != nil {
			return 0, nil, matchError(err)
		}
		out := struct {
			Candidates []slotCandidateJSON `json:"candidates"`
			Count      int                 `json:"count"`
		}{Candidates: []slotCandidateJSON{}}
		for _, c := range cands {
			sc := slotCandidateJSON{WorkerID: c.WorkerID, Score: c.Score, EffectivePriority: c.EffectivePriority,
				Bookable: c.Eligible, Reasons: []MatchReason{}}
			for _, rs := range c.Reasons {
				sc.Reasons = append(sc.Reasons, reasonJSON(rs))
			}
			if slotted {
				if other := ws.clash(id, c.WorkerID, start, end); other != "" {
					sc.ClashingTaskID, sc.Bookable = &other, false
				}
			}
			out.Candidates = append(out.Candidates, sc)
		}
		out.Count = len(out.Candidates)
		return http.StatusOK, out, nil
	}, nil
}
