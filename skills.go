package taskrouting

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Skill is an entry of the workspace's skill catalogue (Skill in
// api/openapi.json). Workers hold skills by id; Key is the stable name a
// worker's SkillAssignment may use instead.
type Skill struct {
	ID          string    `json:"id"`
	Key         string    `json:"key"`
	Name        string    `json:"name"`
	Description string    `json:"description"` // "" when null
	CreatedAt   time.Time `json:"-"`           // wire createdAt, ISO-8601
}

// UnmarshalJSON decodes the wire form, whose createdAt is an ISO-8601 string.
func (s *Skill) UnmarshalJSON(b []byte) error {
	type plain Skill
	w := struct {
		*plain
		Description *string  `json:"description"`
		CreatedAt   wireTime `json:"createdAt"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	s.Description, s.CreatedAt = "", w.CreatedAt.t
	if w.Description != nil {
		s.Description = *w.Description
	}
	return nil
}

// CreateSkillParams is a new catalogue entry. The key is unique in the
// workspace and cannot be changed later.
type CreateSkillParams struct {
	Key         string `json:"key"`                   // required, at most 64 characters
	Name        string `json:"name"`                  // required, at most 128 characters
	Description string `json:"description,omitempty"` // at most 512 characters
}

func (p CreateSkillParams) validate() error {
	const in = "CreateSkillParams"
	return firstError(
		checkLen(in+".Key", p.Key, 1, 64),
		checkLen(in+".Name", p.Name, 1, 128),
		checkLen(in+".Description", p.Description, 0, 512),
	)
}

// PatchSkillParams changes a skill's label; zero fields keep their value.
// The key is not patchable: workers and tasks refer to it.
type PatchSkillParams struct {
	Name        string  // at most 128 characters
	Description *string // at most 512 characters
	// ClearDescription sends description: null, removing it; it cannot be
	// combined with Description.
	ClearDescription bool
}

func (p PatchSkillParams) validate() error {
	const in = "PatchSkillParams"
	err := firstError(checkLen(in+".Name", p.Name, 0, 128))
	if err == nil && p.Description != nil {
		err = checkLen(in+".Description", *p.Description, 0, 512)
	}
	if err == nil && p.ClearDescription && p.Description != nil {
		err = &ParamError{Param: in + ".ClearDescription", Problem: "cannot be combined with Description"}
	}
	return err
}

// MarshalJSON writes only the members being changed.
func (p PatchSkillParams) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	if p.Name != "" {
		m["name"] = p.Name
	}
	if p.Description != nil {
		m["description"] = *p.Description
	}
	if p.ClearDescription {
		m["description"] = nil
	}
	return json.Marshal(m)
}

// ListSkillsParams filters GET /skills. Zero fields are not sent.
type ListSkillsParams struct {
	Query string // matched against the skills' text, at most 128 characters
	Limit int    // 1-100; 0 leaves the server's default
}

// SuggestSkillsParams asks for skills that go with ones already chosen.
// Zero fields are not sent: with nothing selected the server proposes its
// popular skills.
type SuggestSkillsParams struct {
	Selected []string // skill ids; joined with commas on the wire
	Limit    int      // 1-50; 0 leaves the server's default
}

// SkillsService manages the skill catalogue (skills.*). Reach it as
// Client.Skills.
type SkillsService struct{ c *Client }

type skillList struct {
	Skills []Skill `json:"skills"`
}

// Create adds a skill to the catalogue. A key already in use answers 409
// (errors.Is(err, ErrConflict)).
//
// API: skills.create, POST /skills
func (s *SkillsService) Create(ctx context.Context, p CreateSkillParams, opts ...RequestOption) (*Skill, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(Skill)
	if err := s.c.call(ctx, "POST", "/skills", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// List returns the catalogue, or the skills matching p.Query.
//
// API: skills.list, GET /skills
func (s *SkillsService) List(ctx context.Context, p ListSkillsParams, opts ...RequestOption) ([]Skill, error) {
	if err := s.c.admit(firstError(checkLen("ListSkillsParams.Query", p.Query, 0, 128), checkLimit("ListSkillsParams.Limit", p.Limit, 100)), opts); err != nil {
		return nil, err
	}
	q := url.Values{}
	if p.Query != "" {
		q.Set("q", p.Query)
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var out skillList
	if err := s.c.call(ctx, "GET", "/skills", q, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Skills, nil
}

// Patch renames a skill or changes its description and returns it as
// stored.
//
// API: skills.patch, PATCH /skills/{id}
func (s *SkillsService) Patch(ctx context.Context, id string, p PatchSkillParams, opts ...RequestOption) (*Skill, error) {
	if err := s.c.admit(firstError(checkID("id", id), p.validate()), opts); err != nil {
		return nil, err
	}
	out := new(Skill)
	if err := s.c.call(ctx, "PATCH", escapePath("/skills/", id), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns one skill.
//
// API: skills.get, GET /skills/{id}
func (s *SkillsService) Get(ctx context.Context, id string, opts ...RequestOption) (*Skill, error) {
	if err := s.c.admit(checkID("id", id), opts); err != nil {
		return nil, err
	}
	out := new(Skill)
	if err := s.c.call(ctx, "GET", escapePath("/skills/", id), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Remove deletes a skill from the catalogue. The mock server refuses a
// skill some worker still holds with 409 (docs/contract.md, "Skill
// catalogue").
//
// API: skills.remove, DELETE /skills/{id}
func (s *SkillsService) Remove(ctx context.Context, id string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("id", id), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/skills/", id), nil, nil, nil, opts)
}

// Suggest returns skills that go with p.Selected, best first.
//
// API: skills.suggest, GET /skills/suggest
func (s *SkillsService) Suggest(ctx context.Context, p SuggestSkillsParams, opts ...RequestOption) ([]Skill, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	q := url.Values{}
	if len(p.Selected) > 0 {
		q.Set("selected", strings.Join(p.Selected, ","))
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var out skillList
	if err := s.c.call(ctx, "GET", "/skills/suggest", q, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Skills, nil
}

func (p SuggestSkillsParams) validate() error {
	const in = "SuggestSkillsParams"
	for i, id := range p.Selected {
		at := in + ".Selected[" + strconv.Itoa(i) + "]"
		if err := checkID(at, id); err != nil {
			return err
		}
		if strings.Contains(id, ",") {
			return &ParamError{Param: at, Problem: "must not contain a comma"}
		}
	}
	return firstError(
		checkLen(in+".Selected (joined)", strings.Join(p.Selected, ","), 0, 1024),
		checkLimit(in+".Limit", p.Limit, 50),
	)
}

// checkLimit accepts 0 (the server's default) or 1 to maxLimit.
func checkLimit(param string, n, maxLimit int) error {
	if n < 0 || n > maxLimit {
		return &ParamError{Param: param, Problem: "must be 1-" + strconv.Itoa(maxLimit) + ", or 0 for the server's default"}
	}
	return nil
}
