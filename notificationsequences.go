package taskrouting

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// NotificationSequence says when to notify: steps timed relative to a
// task's lifecycle triggers, optionally only for tasks with some tags
// (NotificationSequence in api/openapi.json). Channels subscribed to a
// step's event type receive it; a sequence names no channel itself.
type NotificationSequence struct {
	ID         string             `json:"id"`
	Name       string             `json:"name"`
	Enabled    bool               `json:"enabled"`
	Steps      []NotificationStep `json:"steps"`
	FilterTags []string           `json:"filterTags"`
	// CreatedAt and UpdatedAt are the wire's ISO-8601 times; zero when absent.
	CreatedAt time.Time `json:"-"`
	UpdatedAt time.Time `json:"-"`
}

// UnmarshalJSON decodes the wire form, whose times are ISO-8601 strings.
func (q *NotificationSequence) UnmarshalJSON(b []byte) error {
	type plain NotificationSequence
	w := struct {
		*plain
		CreatedAt wireTime `json:"createdAt"`
		UpdatedAt wireTime `json:"updatedAt"`
	}{plain: (*plain)(q)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	q.CreatedAt, q.UpdatedAt = w.CreatedAt.t, w.UpdatedAt.t
	return nil
}

// NotificationStep is one step of a sequence: emit EventType when Offset
// has passed since Trigger happened to a task. Offset travels as whole
// milliseconds (offsetMs); zero is not sent, and a null offset reads as
// zero.
type NotificationStep struct {
	Trigger   string        // "matched", "expiring", "expired", "accepted", "rejected" or "completed"
	EventType string        // 1-128 characters, e.g. "task.expiring"
	Offset    time.Duration // relative to the trigger
}

type wireStep struct {
	Trigger   string   `json:"trigger"`
	OffsetMs  *float64 `json:"offsetMs,omitempty"`
	EventType string   `json:"eventType"`
}

// MarshalJSON writes the wire form, with the offset in milliseconds.
func (s NotificationStep) MarshalJSON() ([]byte, error) {
	w := wireStep{Trigger: s.Trigger, EventType: s.EventType}
	if s.Offset != 0 {
		ms := float64(s.Offset.Milliseconds())
		w.OffsetMs = &ms
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the wire form; offsetMs may be null.
func (s *NotificationStep) UnmarshalJSON(b []byte) error {
	var w wireStep
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = NotificationStep{Trigger: w.Trigger, EventType: w.EventType}
	if w.OffsetMs != nil {
		s.Offset = time.Duration(*w.OffsetMs * float64(time.Millisecond))
	}
	return nil
}

var stepTriggers = []string{"matched", "expiring", "expired", "accepted", "rejected", "completed"}

// checkSteps holds a sequence's steps to the platform's limits: 1-50
// steps, each with a known trigger and an event type of 1-128 characters.
func checkSteps(param string, steps []NotificationStep) error {
	if err := checkCount(param, len(steps), 1, 50); err != nil {
		return err
	}
	for i, st := range steps {
		at := param + "[" + strconv.Itoa(i) + "]"
		trigger := checkOneOf(at+".Trigger", st.Trigger, stepTriggers...)
		if st.Trigger == "" {
			trigger = &ParamError{Param: at + ".Trigger", Problem: "must not be empty"}
		}
		if err := firstError(trigger, checkLen(at+".EventType", st.EventType, 1, 128)); err != nil {
			return err
		}
	}
	return nil
}

// CreateNotificationSequenceParams is a new sequence. Enabled left nil
// lets the platform choose (it enables new sequences).
type CreateNotificationSequenceParams struct {
	Name       string             `json:"name"`                 // required, at most 200 characters
	Enabled    *bool              `json:"enabled,omitempty"`    // nil: the platform enables it
	Steps      []NotificationStep `json:"steps"`                // 1-50
	FilterTags []string           `json:"filterTags,omitempty"` // at most 32, each 1-64 characters
}

// validate holds the fields to the platform's limits (notifications.sequences.create).
func (p CreateNotificationSequenceParams) validate() error {
	const in = "CreateNotificationSequenceParams"
	return firstError(
		checkLen(in+".Name", p.Name, 1, 200),
		checkSteps(in+".Steps", p.Steps),
		checkStrings(in+".FilterTags", p.FilterTags, 0, 32, 1, 64),
	)
}

// UpdateNotificationSequenceParams changes a sequence; fields left at
// their zero value (nil for the slices and Enabled) are not sent and stay
// as they are. A non-nil empty FilterTags is sent and clears the filter.
type UpdateNotificationSequenceParams struct {
	Name       string
	Enabled    *bool
	Steps      []NotificationStep // 1-50 when set
	FilterTags []string           // at most 32 when set
}

// MarshalJSON sends only what is set, telling a nil FilterTags (keep)
// from an empty one (clear).
func (p UpdateNotificationSequenceParams) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name       string             `json:"name,omitempty"`
		Enabled    *bool              `json:"enabled,omitempty"`
		Steps      []NotificationStep `json:"steps,omitempty"`
		FilterTags *[]string          `json:"filterTags,omitempty"`
	}{p.Name, p.Enabled, p.Steps, nilUnlessSet(p.FilterTags)})
}

func nilUnlessSet(s []string) *[]string {
	if s == nil {
		return nil
	}
	return &s
}

// validate holds the fields to the platform's limits (notifications.sequences.update).
func (p UpdateNotificationSequenceParams) validate() error {
	const in = "UpdateNotificationSequenceParams"
	var stepsErr error
	if p.Steps != nil {
		stepsErr = checkSteps(in+".Steps", p.Steps)
	}
	return firstError(
		checkLen(in+".Name", p.Name, 0, 200),
		stepsErr,
		checkStrings(in+".FilterTags", p.FilterTags, 0, 32, 1, 64),
	)
}

// NotificationSequencesService manages when notifications are sent
// (notifications.sequences.*). Reach it as Client.Notifications.Sequences.
type NotificationSequencesService struct{ c *Client }

// List returns the workspace's sequences.
//
// API: notifications.sequences.list, GET /notification-sequences
func (s *NotificationSequencesService) List(ctx context.Context, opts ...RequestOption) ([]NotificationSequence, error) {
	var out struct {
		Sequences []NotificationSequence `json:"sequences"`
	}
	if err := s.c.call(ctx, "GET", "/notification-sequences", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Sequences, nil
}

// Create adds a sequence and returns it as stored.
//
// API: notifications.sequences.create, POST /notification-sequences
func (s *NotificationSequencesService) Create(ctx context.Context, p CreateNotificationSequenceParams, opts ...RequestOption) (*NotificationSequence, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(NotificationSequence)
	if err := s.c.call(ctx, "POST", "/notification-sequences", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns one sequence.
//
// API: notifications.sequences.get, GET /notification-sequences/{id}
func (s *NotificationSequencesService) Get(ctx context.Context, sequenceID string, opts ...RequestOption) (*NotificationSequence, error) {
	if err := s.c.admit(checkID("sequenceID", sequenceID), opts); err != nil {
		return nil, err
	}
	out := new(NotificationSequence)
	if err := s.c.call(ctx, "GET", escapePath("/notification-sequences/", sequenceID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Update changes the fields p sets and returns the sequence as stored;
// steps not mentioned are kept.
//
// API: notifications.sequences.update, PATCH /notification-sequences/{id}
func (s *NotificationSequencesService) Update(ctx context.Context, sequenceID string, p UpdateNotificationSequenceParams, opts ...RequestOption) (*NotificationSequence, error) {
	if err := s.c.admit(firstError(checkID("sequenceID", sequenceID), p.validate()), opts); err != nil {
		return nil, err
	}
	out := new(NotificationSequence)
	if err := s.c.call(ctx, "PATCH", escapePath("/notification-sequences/", sequenceID), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Remove deletes a sequence.
//
// API: notifications.sequences.remove, DELETE /notification-sequences/{id}
func (s *NotificationSequencesService) Remove(ctx context.Context, sequenceID string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("sequenceID", sequenceID), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/notification-sequences/", sequenceID), nil, nil, nil, opts)
}
