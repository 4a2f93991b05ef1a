package taskrouting

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// This file holds time slots and bookings: a slot says when a task's work is
// performed, a booking reserves one worker for it (tasks.booking.*,
// tasks.bookings).

// TimeSlot is when a task's work is performed: wire slot. It is another
// clock than Schedule, which says when a task may be handed out.
type TimeSlot struct {
	StartAt  time.Time     // required
	Duration time.Duration // wire durationMs; required, 1 ms to 30 days
	// BookAhead is how long before StartAt a worker should be booked (wire
	// bookAheadMs); 0 is not sent.
	BookAhead  time.Duration
	OnUnbooked string // "queue" or "park": what happens to a slot nobody is booked for
}

type timeSlotWire struct {
	StartAt    wireTime       `json:"startAt"`
	DurationMs durationMillis `json:"durationMs"`
	BookAhead  durationMillis `json:"bookAheadMs,omitempty"`
	OnUnbooked string         `json:"onUnbooked,omitempty"`
}

// MarshalJSON writes the wire form (epoch ms and milliseconds).
func (s TimeSlot) MarshalJSON() ([]byte, error) {
	return json.Marshal(timeSlotWire{msOf(s.StartAt), durationMillis(s.Duration), durationMillis(s.BookAhead), s.OnUnbooked})
}

// UnmarshalJSON reads the wire form; null members read as zero.
func (s *TimeSlot) UnmarshalJSON(b []byte) error {
	var w struct {
		timeSlotWire
		OnUnbooked *string `json:"onUnbooked"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = TimeSlot{w.StartAt.t, time.Duration(w.DurationMs), time.Duration(w.BookAhead), nullToEmpty(w.OnUnbooked)}
	return nil
}

func (s *TimeSlot) validate(in string) error {
	if s == nil {
		return nil
	}
	if s.StartAt.IsZero() || s.StartAt.UnixMilli() < 0 {
		return &ParamError{Param: in + ".StartAt", Problem: "must be set, not before 1970"}
	}
	return firstError(
		checkRange(in+".Duration", float64(s.Duration.Milliseconds()), 1, 2592000000),
		checkRange(in+".BookAhead", float64(s.BookAhead.Milliseconds()), 0, 31536000000),
		checkOneOf(in+".OnUnbooked", s.OnUnbooked, "queue", "park"),
	)
}

// SlotWindow is a stretch of time and why it matters to a booking: a soft
// conflict (a warning) or what keeps a worker from a slot (blocked).
type SlotWindow struct {
	From   time.Time
	To     time.Time
	Reason string // such as "outside_shift", "time_off"
}

// MarshalJSON writes the wire form (epoch ms).
func (w SlotWindow) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		From   wireTime `json:"from"`
		To     wireTime `json:"to"`
		Reason string   `json:"reason"`
	}{msOf(w.From), msOf(w.To), w.Reason})
}

// UnmarshalJSON reads the wire times (epoch ms).
func (w *SlotWindow) UnmarshalJSON(b []byte) error {
	var v struct {
		From, To wireTime
		Reason   string
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*w = SlotWindow{v.From.t, v.To.t, v.Reason}
	return nil
}

// SlotBooking is a worker reserved for a slotted task.
type SlotBooking struct {
	TaskID   string       `json:"taskId"`
	WorkerID string       `json:"workerId"`
	StartAt  time.Time    `json:"-"`
	EndAt    time.Time    `json:"-"`
	BookedAt time.Time    `json:"-"`      // zero when not reported
	Source   string       `json:"source"` // such as "manual"
	Warnings []SlotWindow `json:"warnings"`
}

// MarshalJSON writes the wire form (times in epoch ms).
func (s SlotBooking) MarshalJSON() ([]byte, error) {
	type plain SlotBooking
	return json.Marshal(struct {
		plain
		StartAt  wireTime `json:"startAt"`
		EndAt    wireTime `json:"endAt"`
		BookedAt wireTime `json:"bookedAt,omitzero"`
	}{plain(s), msOf(s.StartAt), msOf(s.EndAt), msOf(s.BookedAt)})
}

// UnmarshalJSON reads the wire times (epoch ms).
func (s *SlotBooking) UnmarshalJSON(b []byte) error {
	type plain SlotBooking
	w := struct {
		*plain
		StartAt  wireTime `json:"startAt"`
		EndAt    wireTime `json:"endAt"`
		BookedAt wireTime `json:"bookedAt"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	s.StartAt, s.EndAt, s.BookedAt = w.StartAt.t, w.EndAt.t, w.BookedAt.t
	return nil
}

// SlotCandidate is a worker who could be booked for a slot, with what
// keeps the others from it.
type SlotCandidate struct {
	WorkerID          string           `json:"workerId"`
	Score             float64          `json:"score"`
	EffectivePriority float64          `json:"effectivePriority"`
	Bookable          bool             `json:"bookable"`
	Reasons           []map[string]any `json:"reasons"`        // kinds are additive; kept as sent
	ClashingTaskID    string           `json:"clashingTaskId"` // "" when null: the booked task it overlaps
	Blocked           []SlotWindow     `json:"blocked"`
	Warnings          []SlotWindow     `json:"warnings"`
}

// UnmarshalJSON reads the nullable members.
func (c *SlotCandidate) UnmarshalJSON(b []byte) error {
	type plain SlotCandidate
	w := struct {
		*plain
		ClashingTaskID *string `json:"clashingTaskId"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c.ClashingTaskID = nullToEmpty(w.ClashingTaskID)
	if c.Reasons == nil {
		c.Reasons = []map[string]any{}
	}
	return nil
}

// SetBookingParams is the body of POST /tasks/{id}/booking.
type SetBookingParams struct {
	WorkerID string `json:"workerId"` // 1-128 characters
	// Force books over a clash with the worker's other bookings; sent only
	// when true.
	Force bool `json:"force,omitempty"`
}

// BookingsParams is the window GET /tasks/bookings reads.
type BookingsParams struct {
	From, To time.Time // required: bookings whose slot overlaps [From, To)
	WorkerID string    // only this worker's bookings; "" for all
}

// BookingService reserves workers for slotted tasks: Client.Tasks.Booking.
type BookingService struct{ c *Client }

// Candidates ranks the workers who could be booked for a task, best first,
// with what keeps the others from it.
//
// API: tasks.booking.candidates, GET /tasks/{id}/booking/candidates
func (s *BookingService) Candidates(ctx context.Context, taskID string, opts ...RequestOption) ([]SlotCandidate, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	var out struct {
		Candidates []SlotCandidate `json:"candidates"`
	}
	if err := s.c.call(ctx, "GET", escapePath("/tasks/", taskID, "/booking/candidates"), nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Candidates, nil
}

// Set books a worker for a task's slot. While booked, the task is offered
// to that worker only. An overlap with the worker's other bookings is a 409
// (code "booking_clash") unless p.Force.
//
// API: tasks.booking.set, POST /tasks/{id}/booking
func (s *BookingService) Set(ctx context.Context, taskID string, p SetBookingParams, opts ...RequestOption) (*SlotBooking, error) {
	if err := s.c.admit(firstError(checkID("taskID", taskID), checkLen("SetBookingParams.WorkerID", p.WorkerID, 1, 128)), opts); err != nil {
		return nil, err
	}
	var out struct {
		Booking SlotBooking `json:"booking"`
	}
	if err := s.c.call(ctx, "POST", escapePath("/tasks/", taskID, "/booking"), nil, p, &out, opts); err != nil {
		return nil, err
	}
	return &out.Booking, nil
}

// Release ends a task's booking; the task is open to every eligible worker
// again.
//
// API: tasks.booking.release, DELETE /tasks/{id}/booking
func (s *BookingService) Release(ctx context.Context, taskID string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/tasks/", taskID, "/booking"), nil, nil, nil, opts)
}

// Bookings lists the bookings whose slot overlaps a window: who is on what,
// when. No task listing answers that.
//
// API: tasks.bookings, GET /tasks/bookings
func (s *TasksService) Bookings(ctx context.Context, p BookingsParams, opts ...RequestOption) ([]SlotBooking, error) {
	if p.From.IsZero() || p.To.IsZero() || p.From.UnixMilli() < 0 || p.To.UnixMilli() < 0 {
		return nil, &ParamError{Param: "BookingsParams.From/To", Problem: "must both be set, not before 1970"}
	}
	if err := s.c.admit(checkLen("BookingsParams.WorkerID", p.WorkerID, 0, 128), opts); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("from", strconv.FormatInt(p.From.UnixMilli(), 10))
	q.Set("to", strconv.FormatInt(p.To.UnixMilli(), 10))
	if p.WorkerID != "" {
		q.Set("workerId", p.WorkerID)
	}
	var out struct {
		Bookings []SlotBooking `json:"bookings"`
	}
	if err := s.c.call(ctx, "GET", "/tasks/bookings", q, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Bookings, nil
}
