package mockserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Codes of the skill catalogue. The published contract lists 409 for skills.create and
// skills.remove without naming the codes; these are the mock's (docs/contract.md, "Skill
// catalogue").
const (
	CodeSkillExists = "skill_exists"
	CodeSkillInUse  = "skill_in_use"
)

// skill is one entry of a workspace's catalogue (Skill in api/openapi.json).
type skill struct {
	ID          string  `json:"id"`
	Key         string  `json:"key"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	CreatedAt   string  `json:"createdAt"`
}

// skillCatalog is a workspace's skills in creation order; keys are unique in it.
type skillCatalog struct {
	skills []skill
}

func (c *skillCatalog) byID(id string) int {
	return slices.IndexFunc(c.skills, func(s skill) bool { return s.ID == id })
}

func (c *skillCatalog) byKey(key string) (skill, bool) {
	i := slices.IndexFunc(c.skills, func(s skill) bool { return s.Key == key })
	if i < 0 {
		return skill{}, false
	}
	return c.skills[i], true
}

// resolve finds a skill by id, else by key, as a worker's skillId may name either.
func (c *skillCatalog) resolve(ref string) (skill, bool) {
	if i := c.byID(ref); i >= 0 {
		return c.skills[i], true
	}
	return c.byKey(ref)
}

type skillList struct {
	Skills []skill `json:"skills"`
}

// prepCreateSkill is POST /skills; the schema has already held the body to its limits.
func prepCreateSkill(r *request) (op, *apiError) {
	var in struct {
		Key         string  `json:"key"`
		Name        string  `json:"name"`
		Description *string `json:"description"`
	}
	if err := json.Unmarshal(r.body, &in); err != nil {
		return nil, invalidBodyf("body is not a skill")
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, taken := ws.skillCat.byKey(in.Key); taken {
			return 0, nil, conflictf(CodeSkillExists, "a skill with key %q already exists", in.Key)
		}
		s := skill{ID: ws.freshSkillID(), Key: in.Key, Name: in.Name, Description: in.Description, CreatedAt: isoTime(now)}
		ws.skillCat.skills = append(ws.skillCat.skills, s)
		return http.StatusCreated, s, nil
	}, nil
}

func (ws *workspace) freshSkillID() string {
	for {
		id := ws.newID("skl_")
		if ws.skillCat.byID(id) < 0 {
			return id
		}
	}
}

// queryLimit reads an optional limit; the schema has already checked its range.
func queryLimit(r *request, def int) (int, *apiError) {
	l := r.query.Get("limit")
	if l == "" {
		return def, nil
	}
	n, err := strconv.ParseFloat(l, 64)
	if err != nil || n != float64(int(n)) {
		return 0, validationf("querystring/limit must be integer")
	}
	return int(n), nil
}

// prepListSkills is GET /skills: q matches key, name or description (case-insensitive);
// the answer is ordered by key.
func prepListSkills(r *request) (op, *apiError) {
	limit, err := queryLimit(r, 100)
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(r.query.Get("q"))
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		out := []skill{}
		for _, s := range sortedByKey(ws.skillCat.skills) {
			if q == "" || strings.Contains(strings.ToLower(s.Key), q) || strings.Contains(strings.ToLower(s.Name), q) ||
				(s.Description != nil && strings.Contains(strings.ToLower(*s.Description), q)) {
				out = append(out, s)
			}
		}
		return http.StatusOK, skillList{Skills: out[:min(limit, len(out))]}, nil
	}, nil
}

func sortedByKey(in []skill) []skill {
	out := slices.Clone(in)
	slices.SortFunc(out, func(a, b skill) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// prepGetSkill is GET /skills/{id}.
func prepGetSkill(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i := ws.skillCat.byID(id)
		if i < 0 {
			return 0, nil, notFoundf("skill %s not found", id)
		}
		return http.StatusOK, ws.skillCat.skills[i], nil
	}, nil
}

// prepPatchSkill is PATCH /skills/{id}: name and description change, the key never does;
// description null clears it.
func prepPatchSkill(r *request) (op, *apiError) {
	var in struct {
		Name        *string         `json:"name"`
		Description json.RawMessage `json:"description"`
	}
	if err := json.Unmarshal(r.body, &in); err != nil {
		return nil, invalidBodyf("body is not a skill patch")
	}
	var desc *string
	if in.Description != nil && !isNull(in.Description) {
		desc = new(string)
		if err := json.Unmarshal(in.Description, desc); err != nil {
			return nil, validationf("body/description must be string,null")
		}
	}
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i := ws.skillCat.byID(id)
		if i < 0 {
			return 0, nil, notFoundf("skill %s not found", id)
		}
		s := &ws.skillCat.skills[i]
		if in.Name != nil {
			s.Name = *in.Name
		}
		if in.Description != nil {
			s.Description = desc
		}
		return http.StatusOK, *s, nil
	}, nil
}

// prepRemoveSkill is DELETE /skills/{id}. A skill some worker still holds is refused with
// 409 skill_in_use, so no worker is left pointing at nothing.
func prepRemoveSkill(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		i := ws.skillCat.byID(id)
		if i < 0 {
			return 0, nil, notFoundf("skill %s not found", id)
		}
		if n := len(ws.holders()[id]); n > 0 {
			return 0, nil, conflictf(CodeSkillInUse, "skill %s is held by %d worker(s); take it off them first", id, n)
		}
		ws.skillCat.skills = slices.Delete(ws.skillCat.skills, i, i+1)
		return http.StatusNoContent, nil, nil
	}, nil
}

// prepSuggestSkills is GET /skills/suggest. With skills selected, it ranks the others by how
// many workers hold them together with a selected one; with none, by how many workers hold
// them. Ties go by key; skills no worker holds come last.
func prepSuggestSkills(r *request) (op, *apiError) {
	limit, err := queryLimit(r, 10)
	if err != nil {
		return nil, err
	}
	var selected []string
	if s := r.query.Get("selected"); s != "" {
		selected = strings.Split(s, ",")
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		held := ws.holders()
		chosen := map[string]bool{}
		for _, ref := range selected {
			if s, ok := ws.skillCat.resolve(ref); ok {
				chosen[s.ID] = true
			}
		}
		score := map[string]int{}
		for _, s := range ws.skillCat.skills {
			for w := range held[s.ID] {
				if len(selected) == 0 || holdsAny(held, w, chosen) {
					score[s.ID]++
				}
			}
		}
		out := []skill{}
		for _, s := range sortedByKey(ws.skillCat.skills) {
			if !chosen[s.ID] {
				out = append(out, s)
			}
		}
		slices.SortStableFunc(out, func(a, b skill) int { return score[b.ID] - score[a.ID] })
		return http.StatusOK, skillList{Skills: out[:min(limit, len(out))]}, nil
	}, nil
}

func holdsAny(held map[string]map[string]bool, worker string, chosen map[string]bool) bool {
	for id := range chosen {
		if held[id][worker] {
			return true
		}
	}
	return false
}

// holders maps each skill id to the workers holding it.
func (ws *workspace) holders() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, wid := range ws.engine.WorkerIDs() {
		w, err := ws.engine.Worker(wid)
		if err != nil {
			continue
		}
		for _, a := range storedSkills(w.Extra) {
			if out[a.SkillID] == nil {
				out[a.SkillID] = map[string]bool{}
			}
			out[a.SkillID][wid] = true
		}
	}
	return out
}

// skillAssignment is a worker's skill as stored: skillId is always a catalogue id.
type skillAssignment struct {
	SkillID        string   `json:"skillId"`
	Level          int      `json:"level"`
	WeightOverride *float64 `json:"weightOverride,omitempty"`
	ValidUntil     string   `json:"validUntil,omitempty"` // YYYY-MM-DD, inclusive
}

func storedSkills(extra any) []skillAssignment {
	x, ok := extra.(*workerExtra)
	if !ok || x.skills == nil {
		return nil
	}
	var in []skillAssignment
	_ = json.Unmarshal(x.skills, &in) // checked when stored
	return in
}

// resolveWorkerSkills rewrites a worker's sent skills so each names a catalogue id; a skill
// named by id or key must exist in the workspace's catalogue.
func (ws *workspace) resolveWorkerSkills(x *workerExtra) *apiError {
	if x == nil || x.skills == nil {
		return nil
	}
	var in []skillAssignment
	if err := json.Unmarshal(x.skills, &in); err != nil {
		return invalidBodyf("body/skills is not a list of skills")
	}
	seen := map[string]bool{}
	for i := range in {
		s, ok := ws.skillCat.resolve(in[i].SkillID)
		if !ok {
			return validationf("body/skills/%d/skillId names no skill of this workspace: %s", i, in[i].SkillID)
		}
		if seen[s.ID] {
			return validationf("body/skills/%d/skillId repeats skill %s", i, s.ID)
		}
		seen[s.ID] = true
		in[i].SkillID = s.ID
	}
	b, err := json.Marshal(in)
	if err != nil {
		return errorf(http.StatusInternalServerError, CodeInternalError, "%s", err.Error())
	}
	x.skills = b
	return nil
}
