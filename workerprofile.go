package taskrouting

import (
	"context"
	"fmt"
	"log/slog"
	"math"
)

// The signed-in worker's own profile: PIN, preferences, skills, location.

// ChangePINParams is the body of POST /portal/me/pin. Both PINs are
// Secrets, never printed.
type ChangePINParams struct {
	CurrentPIN Secret `json:"currentPin"`
	NewPIN     Secret `json:"newPin"` // 4-256 characters
}

// String describes the parameters without the PINs.
func (p ChangePINParams) String() string { return "{CurrentPIN:[redacted] NewPIN:[redacted]}" }

// GoString describes the parameters for %#v without the PINs.
func (p ChangePINParams) GoString() string { return "taskrouting.ChangePINParams" + p.String() }

// LogValue lets the parameters be logged with slog without the PINs.
func (p ChangePINParams) LogValue() slog.Value {
	return slog.GroupValue(slog.String("currentPin", "[redacted]"), slog.String("newPin", "[redacted]"))
}

// Format prints the parameters without the PINs, whatever the verb.
func (p ChangePINParams) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, p.String(), p.GoString())
}

// ChangePIN sets a new PIN for the signed-in worker. A wrong current PIN is
// a 400 matching ErrInvalidCurrentPIN. The session making the change goes
// on; the mock server ends the worker's other sessions (docs/contract.md,
// "Worker sessions").
//
// API: worker.changePin, POST /portal/me/pin
func (w *WorkerClient) ChangePIN(ctx context.Context, p ChangePINParams, opts ...RequestOption) error {
	if err := firstError(
		checkLen("ChangePINParams.CurrentPIN", p.CurrentPIN.Reveal(), 1, 256),
		checkLen("ChangePINParams.NewPIN", p.NewPIN.Reveal(), 4, 256),
	); err != nil {
		return err
	}
	return w.c.call(ctx, "POST", "/portal/me/pin", nil, p, nil, withOwn(opts, redacting(p.CurrentPIN.Reveal()), redacting(p.NewPIN.Reveal())))
}

// WorkerPreferencesParams is the body of PATCH /portal/me; zero members
// are left out and keep their value.
type WorkerPreferencesParams struct {
	// Locale is the worker's language, e.g. "de"; Null returns them to the
	// workspace default.
	Locale Nullable[string] `json:"locale,omitzero"`
	// EmailNotices turns the worker's email notices on or off.
	EmailNotices *bool `json:"emailNotices,omitempty"`
}

// WorkerPreferences is the answer of PATCH /portal/me.
type WorkerPreferences struct {
	WorkerID     string `json:"workerId"`
	Locale       string `json:"locale"` // "" for the workspace default
	EmailNotices bool   `json:"emailNotices"`
}

// SetPreferences sets the signed-in worker's locale and email notices.
//
// API: worker.setLocale, PATCH /portal/me
func (w *WorkerClient) SetPreferences(ctx context.Context, p WorkerPreferencesParams, opts ...RequestOption) (*WorkerPreferences, error) {
	out := new(WorkerPreferences)
	if err := w.c.call(ctx, "PATCH", "/portal/me", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SkillCatalog returns the workspace's skills, for the worker to choose
// from with SetSkills. It is read-only: an operator adds skills.
//
// API: worker.skillCatalog, GET /portal/skills
func (w *WorkerClient) SkillCatalog(ctx context.Context, opts ...RequestOption) ([]Skill, error) {
	var out skillList
	if err := w.c.call(ctx, "GET", "/portal/skills", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Skills, nil
}

// SkillLevel is a skill a worker claims, at a level from 1 (novice) to 5
// (expert).
type SkillLevel struct {
	SkillID string `json:"skillId"` // the skill's id or key, 1-64 characters
	Level   int    `json:"level"`
}

// WorkerSkills is the answer of PUT /portal/me/skills.
type WorkerSkills struct {
	WorkerID string        `json:"workerId"`
	Skills   []WorkerSkill `json:"skills"`
}

// SetSkills replaces the signed-in worker's whole skill set (an empty list
// drops every skill). It does not change the shift.
//
// API: worker.setSkills, PUT /portal/me/skills
func (w *WorkerClient) SetSkills(ctx context.Context, skills []SkillLevel, opts ...RequestOption) (*WorkerSkills, error) {
	for i, s := range skills {
		at := fmt.Sprintf("skills[%d]", i)
		if err := w.c.admit(firstError(checkLen(at+".SkillID", s.SkillID, 1, 64), checkRange(at+".Level", float64(s.Level), 1, 5)), opts); err != nil {
			return nil, err
		}
	}
	in := struct {
		Skills []SkillLevel `json:"skills"`
	}{append([]SkillLevel{}, skills...)}
	out := new(WorkerSkills)
	if err := w.c.call(ctx, "PUT", "/portal/me/skills", nil, in, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// WorkerLocation is the answer of POST /portal/workers/me/location.
type WorkerLocation struct {
	WorkerID  string  `json:"workerId"`
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// UpdateLocation reports where the signed-in worker is. The platform takes
// about one update per 10 seconds; more are 429 (ErrRateLimited) with
// Retry-After.
//
// API: worker.updateLocation, POST /portal/workers/me/location
func (w *WorkerClient) UpdateLocation(ctx context.Context, latitude, longitude float64, opts ...RequestOption) (*WorkerLocation, error) {
	if math.IsNaN(latitude) || math.IsNaN(longitude) {
		return nil, &ParamError{Param: "latitude", Problem: "must be a number"}
	}
	if err := w.c.admit(firstError(checkRange("latitude", latitude, -90, 90), checkRange("longitude", longitude, -180, 180)), opts); err != nil {
		return nil, err
	}
	in := struct {
		Latitude  float64 `json:"latitude"`
		Longitude float64 `json:"longitude"`
	}{latitude, longitude}
	out := new(WorkerLocation)
	if err := w.c.call(ctx, "POST", "/portal/workers/me/location", nil, in, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
