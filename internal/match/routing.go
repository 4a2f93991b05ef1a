package match

import (
	"math"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// Routing inputs beyond tags: catalogue skills with levels, teams, place and network. A task
// that names none of them (TaskInput.Routing nil) never reaches this file's code on the
// matching path, so the tag-only cost is unchanged.

// Reason kinds of the routing inputs (docs/contract.md, section 7, "Skills, teams, place and
// network").
const (
	ReasonMissingSkill     ReasonKind = "missingSkill"     // Skill: a required skill the worker does not hold
	ReasonSkillExpired     ReasonKind = "skillExpired"     // Skill: held, but its validUntil has passed
	ReasonSkillLevelTooLow ReasonKind = "skillLevelTooLow" // Skill, Level, MinLevel
	ReasonNotInTeam        ReasonKind = "notInTeam"        // Team: the task's teamId
	ReasonTooFar           ReasonKind = "tooFar"           // Distance, MaxDistance: the limit broken
	ReasonNoGeo            ReasonKind = "noGeo"            // requireGeo and the worker (or task) has no location
	ReasonIPNotAllowed     ReasonKind = "ipNotAllowed"     // the worker's ip is in none of allowedCidrs (or unknown)
	ReasonSkillWeight      ReasonKind = "skillWeight"      // Skill, Level, Weight: a required skill's score
	ReasonPreferredTeam    ReasonKind = "preferredTeam"    // Team, Weight: the preferTeamId bonus
)

// PreferredTeamBonus is added to the score of a member of a task's preferTeamId: as much as a
// required skill held at level 5 without an override.
const PreferredTeamBonus = 100

// SkillLevelWeight is the score of a held skill per level when it has no weight override.
const SkillLevelWeight = 20

// GeoPoint is a location in degrees.
type GeoPoint struct {
	Lat, Lng float64
}

// WorkerSkill is a catalogue skill a worker holds.
type WorkerSkill struct {
	ID    string // the catalogue id (the adapter resolves keys)
	Level int    // 1-5
	// Weight overrides Level × SkillLevelWeight in the score when non-nil.
	Weight *float64
	// ValidUntil is the first instant the skill no longer counts; zero: no expiry.
	ValidUntil time.Time
}

// WorkerRouting is what a worker brings to the routing rules besides its tags.
type WorkerRouting struct {
	Skills []WorkerSkill
	Teams  []string
	Geo    *GeoPoint
	// MaxTravelKm bounds the distance to a task with a location; nil: no bound.
	MaxTravelKm *float64
	// IP is the worker's address; the zero Addr means unknown.
	IP netip.Addr
}

// RequiredSkill is a task's minimum level in one catalogue skill.
type RequiredSkill struct {
	ID       string
	MinLevel int
}

// TaskRouting is what a task asks of a worker besides its tags.
type TaskRouting struct {
	RequiredSkills []RequiredSkill
	TeamID         string // only members of this team; "" any
	PreferTeamID   string // members get PreferredTeamBonus
	Geo            *GeoPoint
	MaxDistanceKm  *float64 // with Geo: workers farther away are ineligible
	RequireGeo     bool     // the worker must have a location
	AllowedCIDRs   []netip.Prefix
}

func (r *TaskRouting) empty() bool {
	return r == nil || (len(r.RequiredSkills) == 0 && r.TeamID == "" && r.PreferTeamID == "" &&
		r.Geo == nil && !r.RequireGeo && len(r.AllowedCIDRs) == 0)
}

// scores reports whether the rules add to the score, which the ordered walk of the tag
// heaps cannot bound: such tasks take the route heaps when they require one skill
// (routeindex.go), else the full scan of the rarest tag's ready carriers.
func (r *TaskRouting) scores() bool {
	return r != nil && (len(r.RequiredSkills) > 0 || r.PreferTeamID != "")
}

func checkTaskRouting(r *TaskRouting) error {
	if r == nil {
		return nil
	}
	for _, s := range r.RequiredSkills {
		if s.ID == "" {
			return inputErr("requiredSkills", "a skill id must not be empty")
		}
		if s.MinLevel < 1 || s.MinLevel > 5 {
			return inputErr("requiredSkills", "minLevel must be 1-5")
		}
	}
	if err := checkGeo("latitude", r.Geo); err != nil {
		return err
	}
	if d := r.MaxDistanceKm; d != nil && (math.IsNaN(*d) || *d < 0) {
		return inputErr("maxDistanceKm", "must be a number >= 0")
	}
	for _, p := range r.AllowedCIDRs {
		if !p.IsValid() {
			return inputErr("allowedCidrs", "must be valid prefixes")
		}
	}
	return nil
}

func checkWorkerRouting(r *WorkerRouting) error {
	if r == nil {
		return nil
	}
	for _, s := range r.Skills {
		if s.ID == "" {
			return inputErr("skills", "a skill id must not be empty")
		}
		if s.Level < 1 || s.Level > 5 {
			return inputErr("skills", "level must be 1-5")
		}
		if s.Weight != nil && (math.IsNaN(*s.Weight) || *s.Weight < 0) {
			return inputErr("skills", "weight must be a number >= 0")
		}
	}
	if err := checkGeo("latitude", r.Geo); err != nil {
		return err
	}
	if d := r.MaxTravelKm; d != nil && (math.IsNaN(*d) || *d < 0) {
		return inputErr("maxTravelDistanceKm", "must be a number >= 0")
	}
	return nil
}

func checkGeo(field string, g *GeoPoint) error {
	if g == nil {
		return nil
	}
	if !(g.Lat >= -90 && g.Lat <= 90 && g.Lng >= -180 && g.Lng <= 180) {
		return inputErr(field, "must be a location in degrees")
	}
	return nil
}

// cloneWorkerRouting copies r with its skills sorted by id and teams sorted, so lookups
// are binary searches and the engine shares nothing with the caller.
func cloneWorkerRouting(r *WorkerRouting) *WorkerRouting {
	c := *r
	c.Skills = slices.Clone(r.Skills)
	slices.SortStableFunc(c.Skills, func(a, b WorkerSkill) int { return strings.Compare(a.ID, b.ID) })
	c.Teams = slices.Clone(r.Teams)
	slices.Sort(c.Teams)
	c.Teams = slices.Compact(c.Teams)
	if r.Geo != nil {
		g := *r.Geo
		c.Geo = &g
	}
	if r.MaxTravelKm != nil {
		d := *r.MaxTravelKm
		c.MaxTravelKm = &d
	}
	return &c
}

func cloneTaskRouting(r *TaskRouting) *TaskRouting {
	if r.empty() {
		return nil
	}
	c := *r
	c.RequiredSkills = slices.Clone(r.RequiredSkills)
	c.AllowedCIDRs = slices.Clone(r.AllowedCIDRs)
	if r.Geo != nil {
		g := *r.Geo
		c.Geo = &g
	}
	if r.MaxDistanceKm != nil {
		d := *r.MaxDistanceKm
		c.MaxDistanceKm = &d
	}
	return &c
}

func (r *WorkerRouting) skill(id string) (WorkerSkill, bool) {
	if r == nil {
		return WorkerSkill{}, false
	}
	i, ok := slices.BinarySearchFunc(r.Skills, id, func(s WorkerSkill, id string) int { return strings.Compare(s.ID, id) })
	if !ok {
		return WorkerSkill{}, false
	}
	return r.Skills[i], true
}

func (r *WorkerRouting) inTeam(team string) bool {
	if r == nil {
		return false
	}
	_, ok := slices.BinarySearch(r.Teams, team)
	return ok
}

// weight is the skill's score: the override, else its level × SkillLevelWeight.
func (s WorkerSkill) weight() float64 {
	if s.Weight != nil {
		return *s.Weight
	}
	return float64(s.Level * SkillLevelWeight)
}

// earthRadiusKm is the mean radius the haversine distance uses.
const earthRadiusKm = 6371.0088

// DistanceKm is the great-circle (haversine) distance between two points.
func DistanceKm(a, b GeoPoint) float64 {
	rad := math.Pi / 180
	dLat := (b.Lat - a.Lat) * rad
	dLng := (b.Lng - a.Lng) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * earthRadiusKm * math.Asin(math.Sqrt(min(1, h)))
}

// checkRouting applies a task's routing rules to w at the engine's time. With rs nil it
// stops at the first failure; otherwise it records every failure and the score parts.
func (e *Engine) checkRouting(w *worker, r *TaskRouting, rs *[]Reason) (ok bool, bonus float64) {
	ok = true
	explain := rs != nil
	fail := func(x Reason) bool {
		ok = false
		if explain {
			*rs = append(*rs, x)
		}
		return !explain // stop
	}
	wr := w.rt
	if r.TeamID != "" && !wr.inTeam(r.TeamID) {
		if fail(Reason{Kind: ReasonNotInTeam, Team: r.TeamID}) {
			return false, 0
		}
	}
	for _, req := range r.RequiredSkills {
		s, held := wr.skill(req.ID)
		switch {
		case !held:
			if fail(Reason{Kind: ReasonMissingSkill, Skill: req.ID, MinLevel: req.MinLevel}) {
				return false, 0
			}
		case !s.ValidUntil.IsZero() && e.now >= s.ValidUntil.UnixNano():
			if fail(Reason{Kind: ReasonSkillExpired, Skill: req.ID}) {
				return false, 0
			}
		case s.Level < req.MinLevel:
			if fail(Reason{Kind: ReasonSkillLevelTooLow, Skill: req.ID, Level: s.Level, MinLevel: req.MinLevel}) {
				return false, 0
			}
		default:
			bonus += s.weight()
			if explain {
				*rs = append(*rs, Reason{Kind: ReasonSkillWeight, Skill: req.ID, Level: s.Level, Weight: s.weight()})
			}
		}
	}
	var wGeo *GeoPoint
	if wr != nil {
		wGeo = wr.Geo
	}
	if r.RequireGeo && (wGeo == nil || r.Geo == nil) {
		if fail(Reason{Kind: ReasonNoGeo}) {
			return false, 0
		}
	}
	if r.Geo != nil && wGeo != nil {
		d := DistanceKm(*r.Geo, *wGeo)
		limit := math.Inf(1)
		if r.MaxDistanceKm != nil {
			limit = *r.MaxDistanceKm
		}
		if wr.MaxTravelKm != nil && *wr.MaxTravelKm < limit {
			limit = *wr.MaxTravelKm
		}
		if d > limit {
			if fail(Reason{Kind: ReasonTooFar, Distance: d, MaxDistance: limit}) {
				return false, 0
			}
		}
	}
	if len(r.AllowedCIDRs) > 0 && !ipAllowed(wr, r.AllowedCIDRs) {
		if fail(Reason{Kind: ReasonIPNotAllowed}) {
			return false, 0
		}
	}
	if r.PreferTeamID != "" && wr.inTeam(r.PreferTeamID) {
		bonus += PreferredTeamBonus
		if explain {
			*rs = append(*rs, Reason{Kind: ReasonPreferredTeam, Team: r.PreferTeamID, Weight: PreferredTeamBonus})
		}
	}
	return ok, bonus
}

func ipAllowed(wr *WorkerRouting, cidrs []netip.Prefix) bool {
	if wr == nil || !wr.IP.IsValid() {
		return false
	}
	ip := wr.IP.Unmap()
	for _, p := range cidrs {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// SetWorkerRouting replaces a worker's routing inputs (nil clears them) and rematches: the
// mock server calls it when a worker's team membership changes outside a worker write.
func (e *Engine) SetWorkerRouting(now time.Time, id string, r *WorkerRouting) (Result, error) {
	res := e.begin(&Result{}, now)
	w, err := e.lookupWorker(id)
	if err != nil {
		return e.fail(res, err)
	}
	if err := checkWorkerRouting(r); err != nil {
		return e.fail(res, err)
	}
	e.setRouting(w, r)
	e.markWorker(w)
	return e.finish(res), nil
}

func (e *Engine) setRouting(w *worker, r *WorkerRouting) {
	// Teams and skills place a ready worker in the route heaps (routeindex.go).
	if w.ready {
		e.unreadyRoutes(w)
		defer e.readyRoutes(w)
	}
	if r == nil {
		w.rt = nil
		return
	}
	w.rt = cloneWorkerRouting(r)
}

// bestWorkerMasked is bestWorkerOrdered for a task whose routing rules add to the score
// and that the route heaps do not serve (two or more required skills, or a preferred team
// alone): the heap's bounds do not cover those scores, so it
// examines every ready carrier of the rarest tag, in heap order, skipping by the tag mask
// those that lack a task tag without touching the worker.
func (e *Engine) bestWorkerMasked(s *spec, rarest int32, sc *scanResult) {
	for _, w := range e.readyPat.items {
		if !hasID(w.carried, rarest) {
			e.examine(s, w, sc)
		}
	}
	var need uint64
	for _, id := range s.tags {
		need |= tagBit(id)
	}
	h := e.ready[rarest].items
	for i := range h {
		if need&^h[i].mask != 0 {
			if len(sc.inelig) < sc.limit {
				sc.inelig = append(sc.inelig, h[i].w)
			}
			continue
		}
		e.examine(s, h[i].w, sc)
	}
}
