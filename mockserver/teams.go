package mockserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// teamTagPrefix makes a team's routing tag from its key, as the platform derives it. The mock
// stores the tag and answers it; routing does not act on teams yet (docs/contract.md).
const teamTagPrefix = "team:"

// team is one team of a workspace. Guarded by its workspace's lock.
type team struct {
	id, key, name      string
	description, color *string // nil: null
	createdAt          time.Time
	members            []teamMember // in roster order
}

type teamMember struct {
	workerID string
	addedAt  time.Time
}

// teamStore is a workspace's teams and the one record of who is on which team: a worker's
// teams (workers.get) and a team's members (teams.members) are both read from here, so
// teams.setMembers and a worker's teamIds cannot disagree. Its zero value is empty and usable.
type teamStore struct {
	teams []*team // in creation order, the order lists answer in
}

func (st *teamStore) find(id string) *team {
	for _, t := range st.teams {
		if t.id == id {
			return t
		}
	}
	return nil
}

func (st *teamStore) keyTaken(key string) bool {
	return slices.ContainsFunc(st.teams, func(t *team) bool { return t.key == key })
}

func (st *teamStore) remove(id string) {
	st.teams = slices.DeleteFunc(st.teams, func(t *team) bool { return t.id == id })
}

// unknown returns the index of the first id that names no team, or -1.
func (st *teamStore) unknown(ids []string) int {
	for i, id := range ids {
		if st.find(id) == nil {
			return i
		}
	}
	return -1
}

// setWorkerTeams puts a worker on exactly the teams named (a worker's teamIds replace its
// memberships); a team it stays on keeps the time it joined.
func (st *teamStore) setWorkerTeams(workerID string, teamIDs []string, now time.Time) {
	for _, t := range st.teams {
		on := t.memberIndex(workerID) >= 0
		switch want := slices.Contains(teamIDs, t.id); {
		case want && !on:
			t.members = append(t.members, teamMember{workerID: workerID, addedAt: now})
		case !want && on:
			t.members = slices.Delete(t.members, t.memberIndex(workerID), t.memberIndex(workerID)+1)
		}
	}
}

// dropWorker takes a removed worker off every team.
func (st *teamStore) dropWorker(workerID string) { st.setWorkerTeams(workerID, nil, time.Time{}) }

// ofWorker lists a worker's teams as a worker read shows them.
func (st *teamStore) ofWorker(workerID string) []wireTeam {
	out := []wireTeam{}
	for _, t := range st.teams {
		if t.memberIndex(workerID) >= 0 {
			out = append(out, wireTeam{TeamID: t.id, Key: t.key, Name: t.name, Color: t.color, Role: "member"})
		}
	}
	return out
}

func (t *team) memberIndex(workerID string) int {
	return slices.IndexFunc(t.members, func(m teamMember) bool { return m.workerID == workerID })
}

type teamJSON struct {
	ID          string  `json:"id"`
	Key         string  `json:"key"`
	Tag         string  `json:"tag"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Color       *string `json:"color"`
	CreatedAt   string  `json:"createdAt"`
}

func (t *team) json() teamJSON {
	return teamJSON{ID: t.id, Key: t.key, Tag: teamTagPrefix + t.key, Name: t.name,
		Description: t.description, Color: t.color, CreatedAt: isoTime(t.createdAt)}
}

func teamOf(ws *workspace, id string) (*team, *apiError) {
	t := ws.teams.find(id)
	if t == nil {
		return nil, notFoundf("team %s not found", id)
	}
	return t, nil
}

// prepCreateTeam defines a team. The body was checked against api/openapi.json; a key
// already in use is a 409, since the key is what the routing tag derives from.
func prepCreateTeam(r *request) (op, *apiError) {
	var in struct {
		Key, Name          string
		Description, Color *string
	}
	if err := json.Unmarshal(r.body, &in); err != nil {
		return nil, invalidBodyf("body is not a JSON object")
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if ws.teams.keyTaken(in.Key) {
			return 0, nil, conflictf(CodeInvalidState, "a team with key %s already exists", in.Key)
		}
		t := &team{id: ws.newID("team_"), key: in.Key, name: in.Name, description: in.Description, color: in.Color, createdAt: now}
		ws.teams.teams = append(ws.teams.teams, t)
		return http.StatusOK, t.json(), nil
	}, nil
}

func prepListTeams(*request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		out := []teamJSON{}
		for _, t := range ws.teams.teams {
			out = append(out, t.json())
		}
		return http.StatusOK, struct {
			Teams []teamJSON `json:"teams"`
		}{out}, nil
	}, nil
}

func prepGetTeam(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		t, err := teamOf(ws, id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, t.json(), nil
	}, nil
}

// prepPatchTeam changes name, description or color; absent members keep their value and
// null clears description or color. The schema has no key member, so a key is refused
// before this runs.
func prepPatchTeam(r *request) (op, *apiError) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &in); err != nil {
		return nil, invalidBodyf("body is not a JSON object")
	}
	nullable := func(name string) (**string, *apiError) {
		raw, ok := in[name]
		if !ok {
			return nil, nil
		}
		var v *string
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, validationf("body/%s must be string or null", name)
		}
		return &v, nil
	}
	var name *string
	if raw, ok := in["name"]; ok {
		if err := json.Unmarshal(raw, &name); err != nil || name == nil {
			return nil, validationf("body/name must be string")
		}
	}
	desc, err := nullable("description")
	if err != nil {
		return nil, err
	}
	color, err := nullable("color")
	if err != nil {
		return nil, err
	}
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		t, err := teamOf(ws, id)
		if err != nil {
			return 0, nil, err
		}
		if name != nil {
			t.name = *name
		}
		if desc != nil {
			t.description = *desc
		}
		if color != nil {
			t.color = *color
		}
		return http.StatusOK, t.json(), nil
	}, nil
}

// prepRemoveTeam deletes a team; its workers stay, without it.
func prepRemoveTeam(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, err := teamOf(ws, id); err != nil {
			return 0, nil, err
		}
		members := ws.teams.find(id).memberIDs()
		ws.teams.remove(id)
		ws.syncRouting(now, members)
		return http.StatusNoContent, nil, nil
	}, nil
}

type teamMemberJSON struct {
	WorkerID string `json:"workerId"`
	Role     string `json:"role"`
	AddedAt  string `json:"addedAt"`
}

// prepTeamMembers lists a team's roster. The API has no call that makes a worker a lead, so
// every member is a "member".
func prepTeamMembers(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		t, err := teamOf(ws, id)
		if err != nil {
			return 0, nil, err
		}
		out := []teamMemberJSON{}
		for _, m := range t.members {
			out = append(out, teamMemberJSON{WorkerID: m.workerID, Role: "member", AddedAt: isoTime(m.addedAt)})
		}
		return http.StatusOK, struct {
			TeamID  string           `json:"teamId"`
			Members []teamMemberJSON `json:"members"`
		}{t.id, out}, nil
	}, nil
}

// prepSetTeamMembers replaces a team's roster: a worker left out leaves the team, one kept
// keeps the time it joined. A repeated id counts once; an id naming no worker refuses the
// whole call, leaving the roster as it was.
func prepSetTeamMembers(r *request) (op, *apiError) {
	var in struct {
		WorkerIDs []string `json:"workerIds"`
	}
	if err := json.Unmarshal(r.body, &in); err != nil {
		return nil, invalidBodyf("body is not a JSON object")
	}
	var ids []string
	for _, w := range in.WorkerIDs {
		if !slices.Contains(ids, w) {
			ids = append(ids, w)
		}
	}
	id := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		t, err := teamOf(ws, id)
		if err != nil {
			return 0, nil, err
		}
		for i, w := range ids {
			if _, err := ws.engine.Worker(w); err != nil {
				return 0, nil, validationf("body/workerIds/%s names no worker of this workspace (%s)", strconv.Itoa(i), w)
			}
		}
		roster := make([]teamMember, 0, len(ids))
		for _, w := range ids {
			m := teamMember{workerID: w, addedAt: now}
			if i := t.memberIndex(w); i >= 0 {
				m = t.members[i]
			}
			roster = append(roster, m)
		}
		before := t.memberIDs()
		t.members = roster
		ws.syncRouting(now, append(before, ids...))
		return http.StatusOK, struct {
			TeamID    string   `json:"teamId"`
			WorkerIDs []string `json:"workerIds"`
		}{t.id, orEmpty(ids)}, nil
	}, nil
}
