package mockserver

import (
	"encoding/json"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// The routing inputs beyond tags (docs/contract.md, section 7, "Skills, teams, place and
// network"): this file turns a task's and a worker's platform members into the matcher's
// TaskRouting and WorkerRouting. The members are still stored and echoed as before.

// taskRoutingRaw holds a task's (or a suggest-workers body's) routing members as sent.
type taskRoutingRaw struct {
	RequiredSkills, Latitude, Longitude, MaxDistanceKm, RequireGeo, AllowedCidrs, TeamID, PreferTeamID json.RawMessage
}

// none reports whether no routing member was sent at all.
func (m *taskRoutingRaw) none() bool {
	return m.RequiredSkills == nil && m.Latitude == nil && m.Longitude == nil && m.MaxDistanceKm == nil &&
		m.RequireGeo == nil && m.AllowedCidrs == nil && m.TeamID == nil && m.PreferTeamID == nil
}

// present decodes one member into v; false when it is absent or null.
func present(raw json.RawMessage, v any) (bool, *apiError) {
	if raw == nil || isNull(raw) {
		return false, nil
	}
	if err := decodeBody(raw, v); err != nil {
		return false, err
	}
	return true, nil
}

// decodeTaskRouting reads the routing members; the schema has already held them to their
// types and limits. It returns nil when none is sent. Skill and team references are
// resolved later, against the workspace.
func decodeTaskRouting(m taskRoutingRaw) (*match.TaskRouting, *apiError) {
	if m.none() {
		return nil, nil // none sent: the usual create, without the decoders' allocations below
	}
	r := &match.TaskRouting{}
	var skills []struct {
		SkillID  string  `json:"skillId"`
		MinLevel float64 `json:"minLevel"`
	}
	if _, err := present(m.RequiredSkills, &skills); err != nil {
		return nil, err
	}
	for i, s := range skills {
		if s.MinLevel != float64(int(s.MinLevel)) {
			return nil, validationf("body/requiredSkills/%d/minLevel must be integer", i)
		}
		r.RequiredSkills = append(r.RequiredSkills, match.RequiredSkill{ID: s.SkillID, MinLevel: int(s.MinLevel)})
	}
	var lat, lng float64
	hasLat, err := present(m.Latitude, &lat)
	if err != nil {
		return nil, err
	}
	hasLng, err := present(m.Longitude, &lng)
	if err != nil {
		return nil, err
	}
	if hasLat != hasLng {
		return nil, invalidBodyf("latitude and longitude go together")
	}
	if hasLat {
		r.Geo = &match.GeoPoint{Lat: lat, Lng: lng}
	}
	var d float64
	if ok, err := present(m.MaxDistanceKm, &d); err != nil {
		return nil, err
	} else if ok {
		r.MaxDistanceKm = &d
	}
	if _, err := present(m.RequireGeo, &r.RequireGeo); err != nil {
		return nil, err
	}
	var cidrs []string
	if _, err := present(m.AllowedCidrs, &cidrs); err != nil {
		return nil, err
	}
	for i, s := range cidrs {
		p, ok := parsePrefix(s)
		if !ok {
			return nil, invalidBodyf("body/allowedCidrs/%d is not a CIDR range or an IP address: %s", i, s)
		}
		r.AllowedCIDRs = append(r.AllowedCIDRs, p)
	}
	if _, err := present(m.TeamID, &r.TeamID); err != nil {
		return nil, err
	}
	if _, err := present(m.PreferTeamID, &r.PreferTeamID); err != nil {
		return nil, err
	}
	if r.TeamID == "" && r.PreferTeamID == "" && r.Geo == nil && !r.RequireGeo && r.MaxDistanceKm == nil &&
		len(r.RequiredSkills) == 0 && len(r.AllowedCIDRs) == 0 {
		return nil, nil
	}
	return r, nil
}

// parsePrefix reads a CIDR range; a bare address stands for itself (a /32 or /128).
func parsePrefix(s string) (netip.Prefix, bool) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// resolveTaskRouting returns a copy of r whose skill and team references name catalogue
// and team ids: a reference that is an id stays, a key becomes its id, and one naming
// nothing in the workspace stays as sent (no worker holds it, so the rule excludes
// everyone).
func (ws *workspace) resolveTaskRouting(r *match.TaskRouting) *match.TaskRouting {
	if r == nil {
		return nil
	}
	c := *r
	c.RequiredSkills = slices.Clone(r.RequiredSkills)
	for i, s := range c.RequiredSkills {
		if sk, ok := ws.skillCat.resolve(s.ID); ok {
			c.RequiredSkills[i].ID = sk.ID
		}
	}
	c.TeamID = ws.resolveTeam(r.TeamID)
	c.PreferTeamID = ws.resolveTeam(r.PreferTeamID)
	return &c
}

// resolveTeam maps a team id or key to the team's id.
func (ws *workspace) resolveTeam(ref string) string {
	if ref == "" || ws.teams.find(ref) != nil {
		return ref
	}
	for _, t := range ws.teams.teams {
		if t.key == ref {
			return t.id
		}
	}
	return ref
}

// workerRouting builds a worker's routing inputs from its stored members (skills already
// resolved to catalogue ids) and the teams it is on.
func workerRouting(extra any, teams []string) *match.WorkerRouting {
	r := &match.WorkerRouting{Teams: teams}
	for _, a := range storedSkills(extra) {
		s := match.WorkerSkill{ID: a.SkillID, Level: a.Level, Weight: a.WeightOverride}
		if a.ValidUntil != "" {
			if day, err := time.Parse(time.DateOnly, a.ValidUntil); err == nil {
				s.ValidUntil = day.Add(24 * time.Hour) // the day itself still counts
			}
		}
		r.Skills = append(r.Skills, s)
	}
	x, _ := extra.(*workerExtra)
	if x == nil {
		return r
	}
	lat, hasLat := x.others["latitude"].(float64)
	lng, hasLng := x.others["longitude"].(float64)
	if hasLat && hasLng {
		r.Geo = &match.GeoPoint{Lat: lat, Lng: lng}
	}
	if d, ok := x.others["maxTravelDistanceKm"].(float64); ok {
		r.MaxTravelKm = &d
	}
	if s, ok := x.others["ip"].(string); ok {
		if a, err := netip.ParseAddr(s); err == nil {
			r.IP = a.Unmap()
		}
	}
	return r
}

// teamIDsOf lists the ids of the teams a worker is on.
func (st *teamStore) teamIDsOf(workerID string) []string {
	var out []string
	for _, t := range st.teams {
		if t.memberIndex(workerID) >= 0 {
			out = append(out, t.id)
		}
	}
	return out
}

// syncRouting hands the matcher a worker's current routing inputs after its team
// membership changed outside a worker write (teams.setMembers, teams.remove); the workers
// are visited in id order so that the matches they trigger are deterministic.
func (ws *workspace) syncRouting(now time.Time, workerIDs []string) {
	ids := slices.Clone(workerIDs)
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		w, err := ws.engine.Worker(id)
		if err != nil {
			continue
		}
		res, _ := ws.engine.SetWorkerRouting(now, id, workerRouting(w.Extra, ws.teams.teamIDsOf(id)))
		ws.publish(res)
	}
}

// memberIDs lists a team's members.
func (t *team) memberIDs() []string {
	out := make([]string, 0, len(t.members))
	for _, m := range t.members {
		out = append(out, m.workerID)
	}
	return out
}

// checkSkillDays holds each skill's validUntil to a calendar day (the schema only checks
// its digits).
func checkSkillDays(raw json.RawMessage) *apiError {
	var skills []struct {
		ValidUntil string `json:"validUntil"`
	}
	if ok, err := present(raw, &skills); err != nil || !ok {
		return err
	}
	for i, s := range skills {
		if s.ValidUntil == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, s.ValidUntil); err != nil {
			return validationf("body/skills/%d/validUntil must be a date (YYYY-MM-DD)", i)
		}
	}
	return nil
}

// checkWorkerIP refuses an ip member that is no IP address: the allowedCidrs rule reads it.
func checkWorkerIP(path, s string) *apiError {
	if _, err := netip.ParseAddr(s); err != nil {
		return invalidBodyf("%s is not an IP address", path)
	}
	return nil
}

// reasonSubject is what a reason is about, for the one-line summary: a tag, a skill or a
// team.
func reasonSubject(r MatchReason) string {
	switch {
	case r.Tag != "":
		return r.Tag
	case r.SkillID != "":
		return r.SkillID
	case r.TeamID != "":
		return r.TeamID
	case r.DistanceKm != nil:
		return strconv.FormatFloat(*r.DistanceKm, 'f', 1, 64) + " km"
	}
	return ""
}

// routingReasonJSON fills the members of the routing reasons; false for other kinds.
func routingReasonJSON(r match.Reason, out *MatchReason) bool {
	level, minLevel, w, d, maxD := r.Level, r.MinLevel, r.Weight, r.Distance, r.MaxDistance
	switch r.Kind {
	case match.ReasonMissingSkill:
		out.SkillID, out.MinLevel = r.Skill, &minLevel
	case match.ReasonSkillExpired:
		out.SkillID = r.Skill
	case match.ReasonSkillLevelTooLow:
		out.SkillID, out.Level, out.MinLevel = r.Skill, &level, &minLevel
	case match.ReasonSkillWeight:
		out.SkillID, out.Level, out.Weight = r.Skill, &level, &w
	case match.ReasonNotInTeam:
		out.TeamID = r.Team
	case match.ReasonPreferredTeam:
		out.TeamID, out.Weight = r.Team, &w
	case match.ReasonTooFar:
		d = roundKm(d)
		out.DistanceKm, out.MaxDistanceKm = &d, &maxD
	case match.ReasonNoGeo, match.ReasonIPNotAllowed:
	default:
		return false
	}
	return true
}

// roundKm keeps a distance to metres, so answers do not carry float noise.
func roundKm(d float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(d, 'f', 3, 64), 64)
	return v
}
