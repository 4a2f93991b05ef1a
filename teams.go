package taskrouting

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// Team is a named group of workers. Its Key is fixed at creation; the
// platform derives the routing Tag ("team:" + key) from it.
type Team struct {
	ID          string    `json:"id"`
	Key         string    `json:"key"`
	Tag         string    `json:"tag"`
	Name        string    `json:"name"`
	Description string    `json:"description"` // "" when null
	Color       string    `json:"color"`       // "" when null
	CreatedAt   time.Time `json:"-"`           // wire createdAt, ISO-8601
}

// UnmarshalJSON reads the wire time and the nullable members.
func (t *Team) UnmarshalJSON(b []byte) error {
	type plain Team
	w := struct {
		*plain
		Description *string  `json:"description"`
		Color       *string  `json:"color"`
		CreatedAt   wireTime `json:"createdAt"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	t.Description, t.Color, t.CreatedAt = nullToEmpty(w.Description), nullToEmpty(w.Color), w.CreatedAt.t
	return nil
}

func nullToEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TeamMember is a worker on a team.
type TeamMember struct {
	WorkerID string    `json:"workerId"`
	Role     string    `json:"role"` // "member" or "lead"
	AddedAt  time.Time `json:"-"`    // wire addedAt, ISO-8601
}

// UnmarshalJSON reads the wire time.
func (m *TeamMember) UnmarshalJSON(b []byte) error {
	type plain TeamMember
	w := struct {
		*plain
		AddedAt wireTime `json:"addedAt"`
	}{plain: (*plain)(m)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	m.AddedAt = w.AddedAt.t
	return nil
}

// TeamMembers is a team's roster.
type TeamMembers struct {
	TeamID  string       `json:"teamId"`
	Members []TeamMember `json:"members"`
}

// TeamRoster is the answer of SetMembers: the team's workers after the replace.
type TeamRoster struct {
	TeamID    string   `json:"teamId"`
	WorkerIDs []string `json:"workerIds"`
}

// CreateTeamParams defines a team.
type CreateTeamParams struct {
	Key         string `json:"key"`                   // 1-64 characters; immutable afterwards
	Name        string `json:"name"`                  // 1-128 characters
	Description string `json:"description,omitempty"` // at most 512
	Color       string `json:"color,omitempty"`       // at most 32, such as "#5b8def"
}

func (p CreateTeamParams) validate() error {
	return firstError(
		checkLen("CreateTeamParams.Key", p.Key, 1, 64),
		checkLen("CreateTeamParams.Name", p.Name, 1, 128),
		checkLen("CreateTeamParams.Description", p.Description, 0, 512),
		checkLen("CreateTeamParams.Color", p.Color, 0, 32),
	)
}

// PatchTeamParams changes a team; absent members keep their value and
// Null clears Description or Color. The key cannot change: the routing tag
// derives from it.
type PatchTeamParams struct {
	Name        string           `json:"name,omitempty"` // 1-128 characters when set
	Description Nullable[string] `json:"description,omitzero"`
	Color       Nullable[string] `json:"color,omitzero"`
}

func (p PatchTeamParams) validate() error {
	desc, _ := p.Description.Get()
	color, _ := p.Color.Get()
	return firstError(
		checkLen("PatchTeamParams.Name", p.Name, 0, 128),
		checkLen("PatchTeamParams.Description", desc, 0, 512),
		checkLen("PatchTeamParams.Color", color, 0, 32),
	)
}

// maxTeamMembers is the most workers one SetMembers call may name.
const maxTeamMembers = 1000

func checkWorkerIDs(ids []string) error {
	if len(ids) > maxTeamMembers {
		return limitError("workerIDs", "must have at most "+strconv.Itoa(maxTeamMembers)+" items")
	}
	for i, id := range ids {
		if err := checkLen("workerIDs["+strconv.Itoa(i)+"]", id, 1, 128); err != nil {
			return err
		}
	}
	return nil
}

// TeamsService is the workspace's teams: Client.Teams.
type TeamsService struct{ c *Client }

// Create defines a team; a key already in use is a 409.
//
// API: teams.create, POST /teams
func (s *TeamsService) Create(ctx context.Context, p CreateTeamParams, opts ...RequestOption) (*Team, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(Team)
	if err := s.c.call(ctx, "POST", "/teams", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// List returns every team of the workspace.
//
// API: teams.list, GET /teams
func (s *TeamsService) List(ctx context.Context, opts ...RequestOption) ([]Team, error) {
	var out struct {
		Teams []Team `json:"teams"`
	}
	if err := s.c.call(ctx, "GET", "/teams", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Teams, nil
}

// Get returns one team.
//
// API: teams.get, GET /teams/{id}
func (s *TeamsService) Get(ctx context.Context, teamID string, opts ...RequestOption) (*Team, error) {
	if err := s.c.admit(checkID("teamID", teamID), opts); err != nil {
		return nil, err
	}
	out := new(Team)
	if err := s.c.call(ctx, "GET", escapePath("/teams/", teamID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Patch changes a team's name, description or color.
//
// API: teams.patch, PATCH /teams/{id}
func (s *TeamsService) Patch(ctx context.Context, teamID string, p PatchTeamParams, opts ...RequestOption) (*Team, error) {
	if err := s.c.admit(firstError(checkID("teamID", teamID), p.validate()), opts); err != nil {
		return nil, err
	}
	out := new(Team)
	if err := s.c.call(ctx, "PATCH", escapePath("/teams/", teamID), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Remove deletes a team; its workers stay, without it.
//
// API: teams.remove, DELETE /teams/{id}
func (s *TeamsService) Remove(ctx context.Context, teamID string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("teamID", teamID), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/teams/", teamID), nil, nil, nil, opts)
}

// Members returns a team's workers with their role and when they joined.
//
// API: teams.members, GET /teams/{id}/members
func (s *TeamsService) Members(ctx context.Context, teamID string, opts ...RequestOption) (*TeamMembers, error) {
	if err := s.c.admit(checkID("teamID", teamID), opts); err != nil {
		return nil, err
	}
	out := new(TeamMembers)
	if err := s.c.call(ctx, "GET", escapePath("/teams/", teamID, "/members"), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SetMembers replaces a team's roster with workerIDs: a worker left out
// leaves the team (PUT, not a merge). An empty list empties the team.
//
// API: teams.setMembers, PUT /teams/{id}/members
func (s *TeamsService) SetMembers(ctx context.Context, teamID string, workerIDs []string, opts ...RequestOption) (*TeamRoster, error) {
	if err := s.c.admit(firstError(checkID("teamID", teamID), checkWorkerIDs(workerIDs)), opts); err != nil {
		return nil, err
	}
	if workerIDs == nil {
		workerIDs = []string{} // the member is required: nil must not become null
	}
	body := struct {
		WorkerIDs []string `json:"workerIds"`
	}{workerIDs}
	out := new(TeamRoster)
	if err := s.c.call(ctx, "PUT", escapePath("/teams/", teamID, "/members"), nil, body, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
