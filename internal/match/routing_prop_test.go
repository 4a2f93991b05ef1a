package match

import (
	"fmt"
	"net/netip"
	"slices"
	"time"
)

// The property test's routing inputs: few values, so that rules pass and fail often.

var (
	propPlaces = []GeoPoint{*paris, *versailles, *lyon}
	propIPs    = []string{"10.0.0.5", "10.9.0.1", "192.0.2.4", "2001:db8::7"}
	propCIDRs  = []string{"10.0.0.0/16", "10.0.0.0/8", "2001:db8::/32", "192.0.2.0/24"}
)

func (p *propRun) workerRouting() *WorkerRouting {
	r := &WorkerRouting{}
	for _, id := range []string{"s1", "s2"} {
		if p.rng.IntN(2) == 0 {
			s := WorkerSkill{ID: id, Level: 1 + p.rng.IntN(5)}
			if p.rng.IntN(4) == 0 {
				s.Weight = ptr(float64(p.rng.IntN(50)))
			}
			if p.rng.IntN(4) == 0 {
				s.ValidUntil = p.now.Add(time.Duration(p.rng.IntN(600)) * time.Second)
			}
			r.Skills = append(r.Skills, s)
		}
	}
	for _, team := range []string{"tA", "tB"} {
		if p.rng.IntN(2) == 0 {
			r.Teams = append(r.Teams, team)
		}
	}
	if p.rng.IntN(2) == 0 {
		g := propPlaces[p.rng.IntN(len(propPlaces))]
		r.Geo = &g
		if p.rng.IntN(3) == 0 {
			r.MaxTravelKm = ptr([]float64{5, 50, 1000}[p.rng.IntN(3)])
		}
	}
	if p.rng.IntN(2) == 0 {
		r.IP = netip.MustParseAddr(propIPs[p.rng.IntN(len(propIPs))])
	}
	return r
}

func (p *propRun) taskRouting() *TaskRouting {
	r := &TaskRouting{}
	switch p.rng.IntN(6) {
	case 0:
		r.RequiredSkills = []RequiredSkill{{ID: []string{"s1", "s2"}[p.rng.IntN(2)], MinLevel: 1 + p.rng.IntN(5)}}
	case 1:
		r.TeamID = []string{"tA", "tB"}[p.rng.IntN(2)]
	case 2:
		r.PreferTeamID = []string{"tA", "tB"}[p.rng.IntN(2)]
	case 3:
		g := propPlaces[p.rng.IntN(len(propPlaces))]
		r.Geo = &g
		r.MaxDistanceKm = ptr([]float64{20, 500}[p.rng.IntN(2)])
		r.RequireGeo = p.rng.IntN(2) == 0
	case 4:
		r.RequireGeo = true
	default:
		r.AllowedCIDRs = []netip.Prefix{netip.MustParsePrefix(propCIDRs[p.rng.IntN(len(propCIDRs))])}
	}
	return r
}

// oracleRouting applies a task's routing rules to a worker's public view, written apart
// from the engine's checkRouting: "" when every rule holds.
func oracleRouting(w WorkerDetail, t Task, now time.Time) string {
	r := t.Routing
	if r == nil {
		return ""
	}
	wr := w.Routing
	if wr == nil {
		wr = &WorkerRouting{}
	}
	if r.TeamID != "" && !slices.Contains(wr.Teams, r.TeamID) {
		return "not in team " + r.TeamID
	}
	for _, req := range r.RequiredSkills {
		i := slices.IndexFunc(wr.Skills, func(s WorkerSkill) bool { return s.ID == req.ID })
		if i < 0 {
			return "missing skill " + req.ID
		}
		s := wr.Skills[i]
		if !s.ValidUntil.IsZero() && !now.Before(s.ValidUntil) {
			return "expired skill " + req.ID
		}
		if s.Level < req.MinLevel {
			return fmt.Sprintf("skill %s level %d < %d", req.ID, s.Level, req.MinLevel)
		}
	}
	if r.RequireGeo && (wr.Geo == nil || r.Geo == nil) {
		return "no geo"
	}
	if r.Geo != nil && wr.Geo != nil {
		d := DistanceKm(*r.Geo, *wr.Geo)
		if r.MaxDistanceKm != nil && d > *r.MaxDistanceKm {
			return "too far for the task"
		}
		if wr.MaxTravelKm != nil && d > *wr.MaxTravelKm {
			return "too far for the worker"
		}
	}
	if len(r.AllowedCIDRs) > 0 {
		if !wr.IP.IsValid() || !slices.ContainsFunc(r.AllowedCIDRs, func(p netip.Prefix) bool { return p.Contains(wr.IP) }) {
			return "ip not allowed"
		}
	}
	return ""
}

// appendRouting renders a worker's routing inputs by value, for the property test's dump.
func appendRouting(b []byte, r *WorkerRouting) []byte {
	for _, s := range r.Skills {
		b = fmt.Appendf(b, "%s:%d:%v", s.ID, s.Level, s.ValidUntil.UnixNano())
		if s.Weight != nil {
			b = fmt.Appendf(b, ":%v", *s.Weight)
		}
	}
	b = fmt.Appendf(b, "%v%v", r.Teams, r.IP)
	if r.Geo != nil {
		b = fmt.Appendf(b, "%v", *r.Geo)
	}
	if r.MaxTravelKm != nil {
		b = fmt.Appendf(b, "%v", *r.MaxTravelKm)
	}
	return b
}
