package taskrouting

import (
	"encoding/json"
	"strconv"
	"time"
)

// This file holds what a task is created with (tasks.create): the
// parameters, the policies for escalation, SLA and schedule, and their
// checks against the platform's limits.

// NoResponseAction is what an offer that runs out unanswered does to the
// silent worker: wire escalation.onNoResponse.
type NoResponseAction string

// Escalation.OnNoResponse values.
const (
	NoResponseAllow NoResponseAction = "allow" // the task may be offered to the same worker again
	NoResponseBlock NoResponseAction = "block" // the silent worker never gets the task again
)

// MaxRejectionsAction is what happens to a task rejected MaxRejections
// times: wire sla.onMaxRejections.
type MaxRejectionsAction string

// SLA.OnMaxRejections values.
const (
	MaxRejectionsPark MaxRejectionsAction = "park" // out of matching until unparked
	MaxRejectionsFail MaxRejectionsAction = "fail" // the task fails
	MaxRejectionsKeep MaxRejectionsAction = "keep" // matching goes on
)

// Escalation says what happens when an offered worker does not answer.
type Escalation struct {
	RespondWithin time.Duration    // wire respondWithinMs, 1s to 24h; required
	OnNoResponse  NoResponseAction // NoResponseAllow or NoResponseBlock
	// PriorityBoost is added to the task's priority at each escalation.
	PriorityBoost float64
	// Tiers are the tag sets tried in turn as the task escalates (1-8
	// tiers of 1-32 tags each).
	Tiers [][]string
	// MaxEscalations caps the steps (0-8); nil is the platform's default.
	MaxEscalations *int
	OnExhausted    string // "queue" or "park": what happens past the last step
	// OfferCooldown is how long a worker who let an offer lapse waits before
	// the same task is offered to them again; 0 is the platform's default.
	OfferCooldown time.Duration
}

type escalationWire struct {
	RespondWithinMs durationMillis   `json:"respondWithinMs,omitempty"`
	OnNoResponse    NoResponseAction `json:"onNoResponse,omitempty"`
	PriorityBoost   float64          `json:"priorityBoost,omitempty"`
	Tiers           [][]string       `json:"tiers,omitempty"`
	MaxEscalations  *int             `json:"maxEscalations,omitempty"`
	OnExhausted     string           `json:"onExhausted,omitempty"`
	OfferCooldownMs durationMillis   `json:"offerCooldownMs,omitempty"`
}

// MarshalJSON writes the wire form (milliseconds).
func (e Escalation) MarshalJSON() ([]byte, error) {
	return json.Marshal(escalationWire{
		RespondWithinMs: durationMillis(e.RespondWithin), OnNoResponse: e.OnNoResponse, PriorityBoost: e.PriorityBoost,
		Tiers: e.Tiers, MaxEscalations: e.MaxEscalations, OnExhausted: e.OnExhausted, OfferCooldownMs: durationMillis(e.OfferCooldown),
	})
}

// UnmarshalJSON reads the wire form.
func (e *Escalation) UnmarshalJSON(b []byte) error {
	var w escalationWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Escalation{
		RespondWithin: time.Duration(w.RespondWithinMs), OnNoResponse: w.OnNoResponse, PriorityBoost: w.PriorityBoost,
		Tiers: w.Tiers, MaxEscalations: w.MaxEscalations, OnExhausted: w.OnExhausted, OfferCooldown: time.Duration(w.OfferCooldownMs),
	}
	return nil
}

func (e Escalation) validate(in string) error {
	if err := firstError(
		checkRange(in+".RespondWithin", float64(e.RespondWithin.Milliseconds()), 1000, 86400000),
		checkOneOf(in+".OnNoResponse", string(e.OnNoResponse), "block", "allow"),
		checkOneOf(in+".OnExhausted", e.OnExhausted, "queue", "park"),
	); err != nil {
		return err
	}
	if e.Tiers != nil {
		if err := checkCount(in+".Tiers", len(e.Tiers), 1, 8); err != nil {
			return err
		}
		for i, tier := range e.Tiers {
			if err := checkStrings(in+".Tiers["+strconv.Itoa(i)+"]", tier, 1, 32, 1, 64); err != nil {
				return err
			}
		}
	}
	if e.MaxEscalations != nil {
		return checkRange(in+".MaxEscalations", float64(*e.MaxEscalations), 0, 8)
	}
	return nil
}

// SLA bounds a task's life, its handling time and its rejections. Zero
// fields are left out.
type SLA struct {
	ExpireAfter time.Duration // wire expireAfterMs, 1s to 90 days
	OnExpire    string        // "drop" or "park"
	// CompleteWithin is how long the accepting worker has to complete
	// (wire completeWithinMs, 1s to 90 days).
	CompleteWithin     time.Duration
	OnCompletionBreach string              // "notify", "requeue", "fail" or "park"
	MaxRejections      int                 // 1-100
	OnMaxRejections    MaxRejectionsAction // MaxRejectionsPark, MaxRejectionsFail or MaxRejectionsKeep
}

type slaWire struct {
	ExpireAfterMs      durationMillis      `json:"expireAfterMs,omitempty"`
	OnExpire           string              `json:"onExpire,omitempty"`
	CompleteWithinMs   durationMillis      `json:"completeWithinMs,omitempty"`
	OnCompletionBreach string              `json:"onCompletionBreach,omitempty"`
	MaxRejections      int                 `json:"maxRejections,omitempty"`
	OnMaxRejections    MaxRejectionsAction `json:"onMaxRejections,omitempty"`
}

// MarshalJSON writes the wire form (milliseconds).
func (s SLA) MarshalJSON() ([]byte, error) {
	return json.Marshal(slaWire{
		ExpireAfterMs: durationMillis(s.ExpireAfter), OnExpire: s.OnExpire, CompleteWithinMs: durationMillis(s.CompleteWithin),
		OnCompletionBreach: s.OnCompletionBreach, MaxRejections: s.MaxRejections, OnMaxRejections: s.OnMaxRejections,
	})
}

// UnmarshalJSON reads the wire form.
func (s *SLA) UnmarshalJSON(b []byte) error {
	var w slaWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = SLA{
		ExpireAfter: time.Duration(w.ExpireAfterMs), OnExpire: w.OnExpire, CompleteWithin: time.Duration(w.CompleteWithinMs),
		OnCompletionBreach: w.OnCompletionBreach, MaxRejections: w.MaxRejections, OnMaxRejections: w.OnMaxRejections,
	}
	return nil
}

// maxSLAMillis is the platform's longest SLA duration: 90 days.
const maxSLAMillis = 7776000000

func (s SLA) validate(in string) error {
	var errs []error
	if s.ExpireAfter != 0 {
		errs = append(errs, checkRange(in+".ExpireAfter", float64(s.ExpireAfter.Milliseconds()), 1000, maxSLAMillis))
	}
	if s.CompleteWithin != 0 {
		errs = append(errs, checkRange(in+".CompleteWithin", float64(s.CompleteWithin.Milliseconds()), 1000, maxSLAMillis))
	}
	if s.MaxRejections != 0 {
		errs = append(errs, checkRange(in+".MaxRejections", float64(s.MaxRejections), 1, 100))
	}
	return firstError(append(errs,
		checkOneOf(in+".OnExpire", s.OnExpire, "drop", "park"),
		checkOneOf(in+".OnCompletionBreach", s.OnCompletionBreach, "notify", "requeue", "fail", "park"),
		checkOneOf(in+".OnMaxRejections", string(s.OnMaxRejections), "park", "fail", "keep"),
	)...)
}

// Schedule limits when a task may be matched. A zero time is left out.
type Schedule struct {
	NotBefore time.Time
	NotAfter  time.Time
	OnMiss    string // "park" or "drop": what happens to a task not matched by NotAfter
}

type scheduleWire struct {
	NotBefore wireTime `json:"notBefore,omitzero"`
	NotAfter  wireTime `json:"notAfter,omitzero"`
	OnMiss    string   `json:"onMiss,omitempty"`
}

// MarshalJSON writes the wire form (epoch milliseconds).
func (s Schedule) MarshalJSON() ([]byte, error) {
	return json.Marshal(scheduleWire{msOf(s.NotBefore), msOf(s.NotAfter), s.OnMiss})
}

// UnmarshalJSON reads the wire form.
func (s *Schedule) UnmarshalJSON(b []byte) error {
	var w scheduleWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = Schedule{w.NotBefore.t, w.NotAfter.t, w.OnMiss}
	return nil
}

func (s Schedule) validate(in string) error {
	bounds := []struct {
		name string
		t    time.Time
	}{{".NotBefore", s.NotBefore}, {".NotAfter", s.NotAfter}}
	for _, b := range bounds {
		if !b.t.IsZero() && b.t.UnixMilli() < 0 {
			return &ParamError{Param: in + b.name, Problem: "must not be before 1970"}
		}
	}
	return checkOneOf(in+".OnMiss", s.OnMiss, "park", "drop")
}

// CreateTaskParams is the body of POST /tasks. Only Tags is required.
type CreateTaskParams struct {
	Tags            []string           `json:"tags"`               // 1-32, each 1-64 characters
	ID              string             `json:"id,omitempty"`       // at most 128 characters
	Priority        float64            `json:"priority,omitempty"` // higher is more urgent
	VetoedWorkers   []string           `json:"vetoedWorkers,omitempty"`
	SkillThresholds map[string]float64 `json:"skillThresholds,omitempty"` // tag -> minimum weight, at most 32
	RequiredSkills  []RequiredSkill    `json:"requiredSkills,omitempty"`  // at most 32
	Meta            map[string]any     `json:"meta,omitempty"`
	Title           string             `json:"title,omitempty"`       // at most 300 characters
	Description     string             `json:"description,omitempty"` // at most 10000 characters
	// Context is structured data shown to the worker with the task.
	Context map[string]any `json:"context,omitempty"`
	// References point at data behind your own systems (at most 100); the
	// platform stores and shows them and never fetches them.
	References []TaskReferenceParams `json:"references,omitempty"`
	// Latitude and Longitude place the task; with MaxDistanceKm only workers
	// within that distance are eligible. RequireGeo excludes workers
	// without a location.
	Latitude      *float64 `json:"latitude,omitempty"`
	Longitude     *float64 `json:"longitude,omitempty"`
	MaxDistanceKm *float64 `json:"maxDistanceKm,omitempty"`
	RequireGeo    bool     `json:"requireGeo,omitempty"`
	// AllowedCIDRs limits the task to workers whose IP is in one of these
	// ranges (at most 32).
	AllowedCIDRs []string `json:"allowedCidrs,omitempty"`
	// TeamID limits the task to one team's members; PreferTeamID favours
	// them without excluding others.
	TeamID       string               `json:"teamId,omitempty"`
	PreferTeamID string               `json:"preferTeamId,omitempty"`
	Escalation   Nullable[Escalation] `json:"escalation,omitzero"`
	SLA          Nullable[SLA]        `json:"sla,omitzero"`
	Schedule     *Schedule            `json:"schedule,omitempty"`
	// Slot is when the work is performed; Tasks.Booking reserves a worker for it.
	Slot *TimeSlot `json:"slot,omitempty"`
	// Recurrence makes the create a recurring template (Tasks.Recurring):
	// the answer names the template, and occurrences are cut from it.
	Recurrence *Recurrence `json:"recurrence,omitempty"`
}

// TaskReferenceParams attaches a reference to a task; the server gives it an id.
type TaskReferenceParams struct {
	URL         string `json:"url"`                   // 1-2048 characters
	Label       string `json:"label,omitempty"`       // at most 200 characters
	ContentType string `json:"contentType,omitempty"` // at most 128 characters
}

// TaskReference is a reference attached to a task.
type TaskReference struct {
	ID          string `json:"id"`
	URL         string `json:"url"`
	Label       string `json:"label,omitempty"`
	ContentType string `json:"contentType,omitempty"`
}

// RequiredSkill asks for workers who hold a skill at a minimum level.
type RequiredSkill struct {
	SkillID  string `json:"skillId"`  // the skill's id or key, at most 64 characters
	MinLevel int    `json:"minLevel"` // 1 (novice) to 5 (expert)
}

// validate holds the fields to the platform's limits (tasks.create).
func (p CreateTaskParams) validate() error {
	const in = "CreateTaskParams"
	if err := firstError(
		checkStrings(in+".Tags", p.Tags, 1, 32, 1, 64),
		checkLen(in+".ID", p.ID, 0, 128),
		checkStrings(in+".VetoedWorkers", p.VetoedWorkers, 0, 64, 0, 128),
		checkCount(in+".SkillThresholds", len(p.SkillThresholds), 0, 32),
		checkRequiredSkills(in, p.RequiredSkills),
		checkLen(in+".Title", p.Title, 0, 300),
		checkLen(in+".Description", p.Description, 0, 10000),
		checkReferences(in, p.References),
		checkGeo(in, p.Latitude, p.Longitude, p.MaxDistanceKm, "MaxDistanceKm"),
		checkStrings(in+".AllowedCIDRs", p.AllowedCIDRs, 0, 32, 0, 64),
		checkLen(in+".TeamID", p.TeamID, 0, 64),
		checkLen(in+".PreferTeamID", p.PreferTeamID, 0, 64),
	); err != nil {
		return err
	}
	if e, ok := p.Escalation.Get(); ok {
		if err := e.validate(in + ".Escalation"); err != nil {
			return err
		}
	}
	if s, ok := p.SLA.Get(); ok {
		if err := s.validate(in + ".SLA"); err != nil {
			return err
		}
	}
	if err := firstError(p.Slot.validate(in+".Slot"), p.Recurrence.validate(in+".Recurrence")); err != nil {
		return err
	}
	if p.Schedule != nil {
		return p.Schedule.validate(in + ".Schedule")
	}
	return nil
}

func checkReferences(in string, refs []TaskReferenceParams) error {
	if err := checkCount(in+".References", len(refs), 0, 100); err != nil {
		return err
	}
	for i, r := range refs {
		at := in + ".References[" + strconv.Itoa(i) + "]"
		if err := firstError(
			checkLen(at+".URL", r.URL, 1, 2048),
			checkLen(at+".Label", r.Label, 0, 200),
			checkLen(at+".ContentType", r.ContentType, 0, 128),
		); err != nil {
			return err
		}
	}
	return nil
}

func checkRequiredSkills(in string, skills []RequiredSkill) error {
	if err := checkCount(in+".RequiredSkills", len(skills), 0, 32); err != nil {
		return err
	}
	for i, s := range skills {
		at := in + ".RequiredSkills[" + strconv.Itoa(i) + "]"
		if err := firstError(
			checkLen(at+".SkillID", s.SkillID, 1, 64),
			checkRange(at+".MinLevel", float64(s.MinLevel), 1, 5),
		); err != nil {
			return err
		}
	}
	return nil
}
