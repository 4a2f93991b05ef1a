package taskrouting

import (
	"context"
	"net/url"
	"strconv"
	"time"
)

// ExpiringSkillsParams selects the qualifications skills.expiring reports.
// Zero fields are not sent.
type ExpiringSkillsParams struct {
	// WithinDays looks this many days past AsOf; nil leaves the server's
	// default (30 days on the mock server). Ptr(0) asks for lapsed skills
	// and those lapsing on AsOf only.
	WithinDays *int
	// AsOf is the day expiry is judged against ("2026-07-24"); "" means the
	// server's today.
	AsOf string
}

// ExpiringSkills is the answer of skills.expiring: the skills workers hold
// that have lapsed or lapse soon, the lapsed ones first.
type ExpiringSkills struct {
	AsOf   string          `json:"asOf"` // the day judged against
	Skills []ExpiringSkill `json:"skills"`
}

// ExpiringSkill is one qualification with an end date.
type ExpiringSkill struct {
	WorkerID   string `json:"workerId"`
	Label      string `json:"label"` // the worker's portal label, else its id
	SkillID    string `json:"skillId"`
	Key        string `json:"key"`
	Name       string `json:"name"`
	ValidUntil string `json:"validUntil"` // the last day it counts
	Expired    bool   `json:"expired"`    // ValidUntil is before AsOf
}

// Expiring lists the skills workers hold whose ValidUntil falls on or
// before p.AsOf plus p.WithinDays, lapsed ones first. A skill past its
// ValidUntil no longer satisfies a task's RequiredSkills on the mock server.
//
// API: skills.expiring, GET /skills/expiring
func (s *SkillsService) Expiring(ctx context.Context, p ExpiringSkillsParams, opts ...RequestOption) (*ExpiringSkills, error) {
	if err := s.c.admit(checkDay("ExpiringSkillsParams.AsOf", p.AsOf), opts); err != nil {
		return nil, err
	}
	if p.WithinDays != nil && *p.WithinDays < 0 {
		return nil, &ParamError{Param: "ExpiringSkillsParams.WithinDays", Problem: "must be at least 0"}
	}
	q := url.Values{}
	if p.WithinDays != nil {
		q.Set("withinDays", strconv.Itoa(*p.WithinDays))
	}
	if p.AsOf != "" {
		q.Set("asOf", p.AsOf)
	}
	out := new(ExpiringSkills)
	if err := s.c.call(ctx, "GET", "/skills/expiring", q, nil, out, opts); err != nil {
		return nil, err
	}
	if out.Skills == nil {
		out.Skills = []ExpiringSkill{}
	}
	return out, nil
}

// checkDay accepts "" or a calendar day written YYYY-MM-DD.
func checkDay(param, day string) error {
	if day == "" {
		return nil
	}
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return &ParamError{Param: param, Problem: "must be a day written YYYY-MM-DD"}
	}
	return nil
}
