package taskrouting

import (
	"context"
	"encoding/json"
	"net/url"
	"time"
)

// This file holds recurring templates: a create with a Recurrence makes a
// template that occurrences (ordinary tasks) are cut from (tasks.recurring.*).

// Recurrence makes CreateTaskParams a recurring template: the template is
// never matched itself; an occurrence with its tags, priority and other
// members is created every Every, the first when the template is created.
type Recurrence struct {
	Every time.Duration // wire everyMs; required, 1 s to 365 days
	// Window is how long an occurrence may wait for a match (wire windowMs);
	// 0 is not sent.
	Window  time.Duration
	OnMiss  string // "park" or "drop": what happens to an occurrence past its window
	CatchUp string // "skip" or "all": whether occurrences missed while time jumped are all cut
}

type recurrenceWire struct {
	EveryMs  durationMillis `json:"everyMs"`
	WindowMs durationMillis `json:"windowMs,omitempty"`
	OnMiss   string         `json:"onMiss,omitempty"`
	CatchUp  string         `json:"catchUp,omitempty"`
}

// MarshalJSON writes the wire form (milliseconds).
func (r Recurrence) MarshalJSON() ([]byte, error) {
	return json.Marshal(recurrenceWire{durationMillis(r.Every), durationMillis(r.Window), r.OnMiss, r.CatchUp})
}

// UnmarshalJSON reads the wire form; null members read as zero.
func (r *Recurrence) UnmarshalJSON(b []byte) error {
	var w struct {
		recurrenceWire
		OnMiss  *string `json:"onMiss"`
		CatchUp *string `json:"catchUp"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Recurrence{time.Duration(w.EveryMs), time.Duration(w.WindowMs), nullToEmpty(w.OnMiss), nullToEmpty(w.CatchUp)}
	return nil
}

func (r *Recurrence) validate(in string) error {
	if r == nil {
		return nil
	}
	errs := []error{
		checkRange(in+".Every", float64(r.Every.Milliseconds()), 1000, 31536000000),
		checkOneOf(in+".OnMiss", r.OnMiss, "park", "drop"),
		checkOneOf(in+".CatchUp", r.CatchUp, "skip", "all"),
	}
	if r.Window != 0 {
		errs = append(errs, checkRange(in+".Window", float64(r.Window.Milliseconds()), 1000, 31536000000))
	}
	return firstError(errs...)
}

// RecurringTask is a recurring template.
type RecurringTask struct {
	ID          string     `json:"id"`
	Tags        []string   `json:"tags"`
	Priority    *float64   `json:"priority"` // nil when null
	Title       string     `json:"title"`    // "" when null
	Recurrence  Recurrence `json:"recurrence"`
	NextAt      time.Time  `json:"-"`           // wire nextAt: when the next occurrence is cut
	Occurrences int        `json:"occurrences"` // how many have been cut so far
}

// UnmarshalJSON reads the wire time and the nullable members.
func (t *RecurringTask) UnmarshalJSON(b []byte) error {
	type plain RecurringTask
	w := struct {
		*plain
		Title  *string  `json:"title"`
		NextAt wireTime `json:"nextAt"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	t.Title, t.NextAt = nullToEmpty(w.Title), w.NextAt.t
	return nil
}

// RemoveRecurringParams says what Remove does besides stopping the template.
type RemoveRecurringParams struct {
	// DropScheduled also cancels the occurrences already cut that are not
	// finished. Sent only when true: occurrences left alone is the default.
	DropScheduled bool
}

// RecurringService reads and stops recurring templates:
// Client.Tasks.Recurring. A template is made by Tasks.Create with
// CreateTaskParams.Recurrence.
type RecurringService struct{ c *Client }

// List returns the workspace's templates, the soonest NextAt first.
//
// API: tasks.recurring.list, GET /tasks/recurring
func (s *RecurringService) List(ctx context.Context, opts ...RequestOption) ([]RecurringTask, error) {
	var out struct {
		Recurring []RecurringTask `json:"recurring"`
	}
	if err := s.c.call(ctx, "GET", "/tasks/recurring", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Recurring, nil
}

// Remove stops a template. An unknown id is ErrNotFound, also when it was
// removed before: removing twice is not treated as done.
//
// API: tasks.recurring.remove, DELETE /tasks/recurring/{id}
func (s *RecurringService) Remove(ctx context.Context, templateID string, p RemoveRecurringParams, opts ...RequestOption) error {
	if err := s.c.admit(checkID("templateID", templateID), opts); err != nil {
		return err
	}
	var q url.Values
	if p.DropScheduled {
		q = url.Values{"dropScheduled": {"true"}}
	}
	return s.c.call(ctx, "DELETE", escapePath("/tasks/recurring/", templateID), q, nil, nil, opts)
}
