package match

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Places for the distance rules: Paris-Lyon is about 392 km, Paris-Versailles about 17 km.
var (
	paris      = &GeoPoint{Lat: 48.8566, Lng: 2.3522}
	versailles = &GeoPoint{Lat: 48.8049, Lng: 2.1204}
	lyon       = &GeoPoint{Lat: 45.7640, Lng: 4.8357}
)

func skills(s ...WorkerSkill) *WorkerRouting { return &WorkerRouting{Skills: s} }

func teams(t ...string) *WorkerRouting { return &WorkerRouting{Teams: t} }

func at(g *GeoPoint, maxKm *float64) *WorkerRouting {
	return &WorkerRouting{Geo: g, MaxTravelKm: maxKm}
}

func withIP(ip string) *WorkerRouting { return &WorkerRouting{IP: netip.MustParseAddr(ip)} }

// routeStory upserts available workers "a" and "b" (tag x, "a" wins ties by id) with the
// given routing inputs, then creates task t1 (tag x) with the given rules.
func routeStory(a, b *WorkerRouting, rt *TaskRouting) func(h *harness) {
	return func(h *harness) {
		h.workerIn(WorkerInput{ID: "a", Tags: []string{"x"}, Available: ptr(true), Routing: a})
		h.workerIn(WorkerInput{ID: "b", Tags: []string{"x"}, Available: ptr(true), Routing: b})
		h.taskIn(TaskInput{ID: "t1", Tags: []string{"x"}, Routing: rt})
	}
}

// TestRoutingScenarios shows each routing input deciding a match, and the decision's
// explanation naming the rule that excluded the other worker.
func TestRoutingScenarios(t *testing.T) {
	expiry := t0.Add(time.Minute) // the harness's clock passes it after 60 commands
	tests := []struct {
		name string
		run  func(h *harness)
		want string // t1's state
		// wantLoser: the reasons of worker "a" in t1's decision, failures and score parts
		// only (tagWeight left out); nil: not compared.
		wantLoser []Reason
	}{
		{
			name: "required skill: a worker without it is not eligible",
			run: routeStory(nil, skills(WorkerSkill{ID: "skl_es", Level: 1}),
				&TaskRouting{RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 1}}}),
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonMissingSkill, Skill: "skl_es", MinLevel: 1}},
		},
		{
			name: "required skill: below the minimum level is not eligible",
			run: routeStory(skills(WorkerSkill{ID: "skl_es", Level: 2}), skills(WorkerSkill{ID: "skl_es", Level: 3}),
				&TaskRouting{RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 3}}}),
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonSkillLevelTooLow, Skill: "skl_es", Level: 2, MinLevel: 3}},
		},
		{
			name: "required skill: the higher level scores more",
			run: routeStory(skills(WorkerSkill{ID: "skl_es", Level: 2}), skills(WorkerSkill{ID: "skl_es", Level: 5}),
				&TaskRouting{RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 1}}}),
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonSkillWeight, Skill: "skl_es", Level: 2, Weight: 40}},
		},
		{
			name: "required skill: a weight override replaces level x 20",
			run: routeStory(skills(WorkerSkill{ID: "skl_es", Level: 5, Weight: ptr(10.0)}), skills(WorkerSkill{ID: "skl_es", Level: 1}),
				&TaskRouting{RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 1}}}),
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonSkillWeight, Skill: "skl_es", Level: 5, Weight: 10}},
		},
		{
			name: "required skill: an expired skill does not count",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "a", Tags: []string{"x"}, Available: ptr(true),
					Routing: skills(WorkerSkill{ID: "skl_es", Level: 5, ValidUntil: expiry})})
				h.workerIn(WorkerInput{ID: "b", Tags: []string{"x"}, Available: ptr(true),
					Routing: skills(WorkerSkill{ID: "skl_es", Level: 1})})
				h.advance(2 * time.Minute)
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"x"}, Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 1}}}})
			},
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonSkillExpired, Skill: "skl_es"}},
		},
		{
			name: "required skill: before its expiry the skill counts",
			run: routeStory(skills(WorkerSkill{ID: "skl_es", Level: 5, ValidUntil: expiry}), skills(WorkerSkill{ID: "skl_es", Level: 1}),
				&TaskRouting{RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 1}}}),
			want: "pending:a",
		},
		{
			name:      "teamId: only members",
			run:       routeStory(teams("team_2"), teams("team_1"), &TaskRouting{TeamID: "team_1"}),
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonNotInTeam, Team: "team_1"}},
		},
		{
			name: "teamId: no member waits in the queue",
			run:  routeStory(nil, nil, &TaskRouting{TeamID: "team_1"}),
			want: "queued",
		},
		{
			name: "preferTeamId: a member wins over a better-scored outsider",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "a", Tags: []string{"x"}, Available: ptr(true), RoutingWeights: map[string]float64{"x": 50}})
				h.workerIn(WorkerInput{ID: "b", Tags: []string{"x"}, Available: ptr(true), Routing: teams("team_1")})
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"x"}, Routing: &TaskRouting{PreferTeamID: "team_1"}})
			},
			want:      "pending:b",
			wantLoser: []Reason{},
		},
		{
			name: "preferTeamId: without a member anyone eligible gets it",
			run:  routeStory(nil, teams("team_2"), &TaskRouting{PreferTeamID: "team_1"}),
			want: "pending:a",
		},
		{
			name:      "maxDistanceKm: a worker farther away is not eligible",
			run:       routeStory(at(lyon, nil), at(versailles, nil), &TaskRouting{Geo: paris, MaxDistanceKm: ptr(50.0)}),
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonTooFar, Distance: DistanceKm(*paris, *lyon), MaxDistance: 50}},
		},
		{
			name:      "maxTravelDistanceKm: the worker's own limit counts too",
			run:       routeStory(at(versailles, ptr(10.0)), at(versailles, nil), &TaskRouting{Geo: paris}),
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonTooFar, Distance: DistanceKm(*paris, *versailles), MaxDistance: 10}},
		},
		{
			name: "without requireGeo a worker with no location passes the distance rule",
			run:  routeStory(nil, at(lyon, nil), &TaskRouting{Geo: paris, MaxDistanceKm: ptr(50.0)}),
			want: "pending:a",
		},
		{
			name:      "requireGeo: a worker with no location is not eligible",
			run:       routeStory(nil, at(lyon, nil), &TaskRouting{Geo: paris, RequireGeo: true}),
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonNoGeo}},
		},
		{
			name: "allowedCidrs: a worker outside every range is not eligible",
			run: routeStory(withIP("192.0.2.7"), withIP("10.1.2.3"),
				&TaskRouting{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32")}}),
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonIPNotAllowed}},
		},
		{
			name:      "allowedCidrs: a worker with no ip is not eligible",
			run:       routeStory(nil, withIP("2001:db8::1"), &TaskRouting{AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("2001:db8::/32")}}),
			want:      "pending:b",
			wantLoser: []Reason{{Kind: ReasonIPNotAllowed}},
		},
		{
			name: "a queued task reaches a worker that gains the skill",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "a", Tags: []string{"x"}, Available: ptr(true)})
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"x"}, Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 2}}}})
				h.ok(h.e.PatchWorker(h.step(), "a", WorkerInput{Routing: skills(WorkerSkill{ID: "skl_es", Level: 2})}))
			},
			want: "pending:a",
		},
		{
			name: "a queued task reaches a worker that joins the team",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "a", Tags: []string{"x"}, Available: ptr(true)})
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"x"}, Routing: &TaskRouting{TeamID: "team_1"}})
				h.ok(h.e.SetWorkerRouting(h.step(), "a", teams("team_1")))
			},
			want: "pending:a",
		},
		{
			name: "a freed worker skips a queued task of another team for the next one",
			run: func(h *harness) {
				h.workerIn(WorkerInput{ID: "a", Tags: []string{"x"}, MaxBacklogSize: ptr(1), Routing: teams("team_2")})
				h.taskIn(TaskInput{ID: "t0", Tags: []string{"x"}, Priority: 5, Routing: &TaskRouting{TeamID: "team_1"}})
				h.taskIn(TaskInput{ID: "t1", Tags: []string{"x"}})
				h.available("a", true)
			},
			want: "pending:a",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			tc.run(h)
			if got := h.state()["t1"]; got != tc.want {
				t.Errorf("t1 is %s, want %s", got, tc.want)
			}
			if tc.wantLoser != nil {
				d := h.lastDecision("t1")
				got := []Reason{}
				for _, c := range d.Candidates {
					if c.WorkerID != "a" {
						continue
					}
					for _, r := range c.Reasons {
						if r.Kind != ReasonTagWeight {
							got = append(got, r)
						}
					}
				}
				if diff := cmp.Diff(tc.wantLoser, got); diff != "" {
					t.Errorf("worker a's reasons in t1's decision (-want +got):\n%s", diff)
				}
			}
			if err := verifyInternal(h.e); err != nil {
				t.Error(err)
			}
		})
	}
}

func (h *harness) lastDecision(task string) Decision {
	h.t.Helper()
	for i := len(h.decisions) - 1; i >= 0; i-- {
		if h.decisions[i].TaskID == task {
			return h.decisions[i]
		}
	}
	h.t.Fatalf("no decision for %s", task)
	return Decision{}
}

// TestRoutingExplanations checks that suggest-workers and the unmatched explanation name the
// routing rule that excludes a worker.
func TestRoutingExplanations(t *testing.T) {
	h := newHarness(t, Config{})
	h.workerIn(WorkerInput{ID: "a", Tags: []string{"x"}, Available: ptr(true), Routing: &WorkerRouting{
		Skills: []WorkerSkill{{ID: "skl_es", Level: 1}}, Teams: []string{"team_2"}, Geo: lyon, IP: netip.MustParseAddr("192.0.2.1")}})
	rt := &TaskRouting{
		RequiredSkills: []RequiredSkill{{ID: "skl_es", MinLevel: 2}, {ID: "skl_fr", MinLevel: 1}},
		TeamID:         "team_1", Geo: paris, MaxDistanceKm: ptr(100.0),
		AllowedCIDRs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
	}
	want := []Reason{
		{Kind: ReasonNotInTeam, Team: "team_1"},
		{Kind: ReasonSkillLevelTooLow, Skill: "skl_es", Level: 1, MinLevel: 2},
		{Kind: ReasonMissingSkill, Skill: "skl_fr", MinLevel: 1},
		{Kind: ReasonTooFar, Distance: DistanceKm(*paris, *lyon), MaxDistance: 100},
		{Kind: ReasonIPNotAllowed},
		{Kind: ReasonTagWeight, Tag: "x", Weight: 1},
	}
	cands, err := h.e.SuggestWorkers(SuggestInput{Tags: []string{"x"}, Routing: rt})
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || cands[0].Eligible {
		t.Fatalf("suggest: want worker a ineligible, got %+v", cands)
	}
	if diff := cmp.Diff(want, cands[0].Reasons); diff != "" {
		t.Errorf("suggest reasons (-want +got):\n%s", diff)
	}
	h.taskIn(TaskInput{ID: "t1", Tags: []string{"x"}, Routing: rt})
	un, err := h.e.WhyUnmatched("t1", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(un.Nearest) != 1 {
		t.Fatalf("unmatched: want one nearest worker, got %+v", un)
	}
	if diff := cmp.Diff(want, un.Nearest[0].Reasons); diff != "" {
		t.Errorf("unmatched reasons (-want +got):\n%s", diff)
	}
	task, err := h.e.Task("t1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rt, task.Routing, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Errorf("task routing read back (-want +got):\n%s", diff)
	}
}

// TestRoutingAssign: an assignment is the operator's override of matching, so the routing
// rules do not refuse it: a non-member may be handed a team's task, forced or not.
func TestRoutingAssign(t *testing.T) {
	for _, force := range []bool{false, true} {
		h := newHarness(t, Config{})
		h.workerIn(WorkerInput{ID: "a", Tags: []string{"x"}})
		h.workerIn(WorkerInput{ID: "b", Tags: []string{"x"}, Available: ptr(true), Routing: teams("team_1")})
		h.available("b", false)
		h.available("a", true)
		h.taskIn(TaskInput{ID: "t1", Tags: []string{"x"}, Routing: &TaskRouting{TeamID: "team_1"}})
		if _, err := h.e.Assign(h.step(), "t1", "a", force); err != nil {
			t.Errorf("assign to a non-member (force %v): %v", force, err)
		}
		if got := h.state()["t1"]; got != "pending:a" {
			t.Errorf("t1 is %s, want pending:a (force %v)", got, force)
		}
	}
}

func TestDistanceKm(t *testing.T) {
	tests := []struct {
		a, b   GeoPoint
		lo, hi float64
	}{
		{*paris, *paris, 0, 0},
		{*paris, *lyon, 390, 394},
		{*paris, *versailles, 16, 19},
		{GeoPoint{0, 0}, GeoPoint{0, 180}, 20014, 20016},
	}
	for _, tc := range tests {
		if d := DistanceKm(tc.a, tc.b); d < tc.lo || d > tc.hi {
			t.Errorf("DistanceKm(%v, %v) = %.1f, want %v-%v", tc.a, tc.b, d, tc.lo, tc.hi)
		}
	}
}

func TestRoutingBadInput(t *testing.T) {
	e := New(Config{Rules: RulesEveryTag})
	tests := []struct {
		name string
		err  error
	}{
		{"skill level 0", func() error {
			_, err := e.UpsertWorker(t0, WorkerInput{ID: "w", Routing: skills(WorkerSkill{ID: "s", Level: 0})})
			return err
		}()},
		{"minLevel 6", func() error {
			_, err := e.CreateTask(t0, TaskInput{ID: "t", Tags: []string{"x"}, Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s", MinLevel: 6}}}})
			return err
		}()},
		{"latitude 91", func() error {
			_, err := e.CreateTask(t0, TaskInput{ID: "t", Tags: []string{"x"}, Routing: &TaskRouting{Geo: &GeoPoint{Lat: 91}}})
			return err
		}()},
		{"negative travel", func() error {
			_, err := e.UpsertWorker(t0, WorkerInput{ID: "w", Routing: &WorkerRouting{MaxTravelKm: ptr(-1.0)}})
			return err
		}()},
	}
	for _, tc := range tests {
		if tc.err == nil {
			t.Errorf("%s: want an error", tc.name)
		}
	}
	if len(e.WorkerIDs()) != 0 {
		t.Errorf("bad input left workers: %v", e.WorkerIDs())
	}
	if page, _ := e.Tasks(TaskQuery{Limit: 10}); len(page.Tasks) != 0 {
		t.Errorf("bad input left tasks")
	}
}
