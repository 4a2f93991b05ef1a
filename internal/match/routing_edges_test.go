package match

import (
	"math"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRoutingRuleEdges pins the routing rules at their edges, as an explanation
// (SuggestWorkers) shows them: a skill at exactly the minimum level, a skill's validUntil
// (the first instant it no longer counts), a distance of exactly the limit, the tighter of
// the task's and the worker's limits, requireGeo on either side, an IPv4 address written as
// IPv6, and every failing rule listed when explained, in the rules' order.
func TestRoutingRuleEdges(t *testing.T) {
	paris := GeoPoint{Lat: 48.8566, Lng: 2.3522}
	versailles := GeoPoint{Lat: 48.8049, Lng: 2.1204}
	d := DistanceKm(paris, versailles) // about 18 km
	now := t0.Add(time.Hour)
	skill := func(level int, until time.Time) *WorkerRouting {
		return &WorkerRouting{Skills: []WorkerSkill{{ID: "s", Level: level, ValidUntil: until}}}
	}
	needs := func(min int) *TaskRouting {
		return &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s", MinLevel: min}}}
	}
	at := func(g GeoPoint, max *float64) *WorkerRouting { return &WorkerRouting{Geo: &g, MaxTravelKm: max} }
	from := func(g GeoPoint, max *float64) *TaskRouting { return &TaskRouting{Geo: &g, MaxDistanceKm: max} }
	tooFar := func(limit float64) Reason { return Reason{Kind: ReasonTooFar, Distance: d, MaxDistance: limit} }
	cases := []struct {
		name     string
		worker   *WorkerRouting
		task     *TaskRouting
		eligible bool
		reasons  []Reason // the routing rules' reasons
	}{
		{"a skill at the minimum level", skill(3, time.Time{}), needs(3), true,
			[]Reason{{Kind: ReasonSkillWeight, Skill: "s", Level: 3, Weight: 60}}},
		{"a skill one level below", skill(2, time.Time{}), needs(3), false,
			[]Reason{{Kind: ReasonSkillLevelTooLow, Skill: "s", Level: 2, MinLevel: 3}}},
		{"a skill valid until now", skill(5, now), needs(1), false,
			[]Reason{{Kind: ReasonSkillExpired, Skill: "s"}}},
		{"a skill valid one instant longer", skill(5, now.Add(time.Nanosecond)), needs(1), true,
			[]Reason{{Kind: ReasonSkillWeight, Skill: "s", Level: 5, Weight: 100}}},
		{"a distance of exactly the task's limit", at(versailles, nil), from(paris, ptr(d)), true, nil},
		{"a distance just past the task's limit", at(versailles, nil), from(paris, ptr(math.Nextafter(d, 0))), false,
			[]Reason{tooFar(math.Nextafter(d, 0))}},
		{"a distance of exactly the worker's limit", at(versailles, ptr(d)), from(paris, nil), true, nil},
		{"a distance just past the worker's limit", at(versailles, ptr(math.Nextafter(d, 0))), from(paris, nil), false,
			[]Reason{tooFar(math.Nextafter(d, 0))}},
		{"the task's limit when tighter", at(versailles, ptr(1000.0)), from(paris, ptr(10.0)), false, []Reason{tooFar(10)}},
		{"the worker's limit when tighter", at(versailles, ptr(10.0)), from(paris, ptr(1000.0)), false, []Reason{tooFar(10)}},
		{"the worker's limit without the task's", at(versailles, ptr(10.0)), from(paris, nil), false, []Reason{tooFar(10)}},
		{"requireGeo, both located", at(versailles, nil), &TaskRouting{Geo: &paris, RequireGeo: true}, true, nil},
		{"requireGeo, the task not located", at(versailles, nil), &TaskRouting{RequireGeo: true}, false,
			[]Reason{{Kind: ReasonNoGeo}}},
		{"requireGeo, the worker not located", &WorkerRouting{}, &TaskRouting{Geo: &paris, RequireGeo: true}, false,
			[]Reason{{Kind: ReasonNoGeo}}},
		{"an IPv4 address written as IPv6", &WorkerRouting{IP: netip.MustParseAddr("::ffff:10.1.2.3")},
			&TaskRouting{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("10.0.0.0/8")}}, true, nil},
		{"an address in no range", &WorkerRouting{IP: netip.MustParseAddr("11.1.2.3")},
			&TaskRouting{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, false,
			[]Reason{{Kind: ReasonIPNotAllowed}}},
		{"every failing rule, in order",
			&WorkerRouting{Geo: &versailles, Teams: []string{"b"}, Skills: []WorkerSkill{{ID: "s", Level: 1}}, IP: netip.MustParseAddr("11.1.2.3")},
			&TaskRouting{TeamID: "a", RequiredSkills: []RequiredSkill{{ID: "r", MinLevel: 2}, {ID: "s", MinLevel: 2}}, Geo: &paris,
				MaxDistanceKm: ptr(1.0), AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, PreferTeamID: "b"},
			false,
			[]Reason{{Kind: ReasonNotInTeam, Team: "a"}, {Kind: ReasonMissingSkill, Skill: "r", MinLevel: 2},
				{Kind: ReasonSkillLevelTooLow, Skill: "s", Level: 1, MinLevel: 2}, tooFar(1), {Kind: ReasonIPNotAllowed},
				{Kind: ReasonPreferredTeam, Team: "b", Weight: PreferredTeamBonus}}},
	}
	routing := []ReasonKind{ReasonMissingSkill, ReasonSkillExpired, ReasonSkillLevelTooLow, ReasonNotInTeam, ReasonTooFar,
		ReasonNoGeo, ReasonIPNotAllowed, ReasonSkillWeight, ReasonPreferredTeam}
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		for _, tc := range cases {
			t.Run(string(rules)+"/"+tc.name, func(t *testing.T) {
				e := New(Config{Rules: rules})
				if _, err := e.UpsertWorker(now, WorkerInput{ID: "w", Tags: []string{"a"}, Available: ptr(true), Routing: tc.worker}); err != nil {
					t.Fatal(err)
				}
				cands, err := e.SuggestWorkers(SuggestInput{Tags: []string{"a"}, Routing: tc.task})
				if err != nil {
					t.Fatal(err)
				}
				if len(cands) != 1 {
					t.Fatalf("candidates %+v, want the one worker", cands)
				}
				var got []Reason
				for _, r := range cands[0].Reasons {
					if slices.Contains(routing, r.Kind) {
						got = append(got, r)
					}
				}
				if cands[0].Eligible != tc.eligible {
					t.Errorf("eligible %v, want %v (reasons %+v)", cands[0].Eligible, tc.eligible, cands[0].Reasons)
				}
				if diff := cmp.Diff(tc.reasons, got); diff != "" {
					t.Errorf("routing reasons (-want +got):\n%s", diff)
				}
			})
		}
	}
}
