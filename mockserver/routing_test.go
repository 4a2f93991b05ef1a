package mockserver_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// routingFixture is a server with a skill catalogue entry (key "spanish") and two teams.
type routingFixture struct {
	c          *taskrouting.Client
	srv        *mockserver.Server
	clk        *mockserver.ManualClock
	skill      *taskrouting.Skill
	red, night *taskrouting.Team
}

// bothRules are the rule sets the routing scenarios run under: the routing rules beyond
// tags apply alike under both.
var bothRules = []mockserver.MatchRules{mockserver.RulesPlatform, mockserver.RulesEveryTag}

func newRoutingFixture(t *testing.T, rules mockserver.MatchRules) *routingFixture {
	t.Helper()
	t0 := time.Date(2026, 7, 20, 9, 0, 0, 0, time.UTC)
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk), mockserver.WithMatcher(mockserver.MatcherConfig{Rules: rules}))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	f := &routingFixture{c: c, srv: srv, clk: clk}
	var err error
	f.skill, err = c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "spanish", Name: "Spanish"})
	require.NoError(t, err)
	f.red, err = c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "red", Name: "Red"})
	require.NoError(t, err)
	f.night, err = c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "night", Name: "Night"})
	require.NoError(t, err)
	return f
}

// worker upserts an available worker with tag "repair" and the given extras.
func (f *routingFixture) worker(t *testing.T, p taskrouting.UpsertWorkerParams) {
	t.Helper()
	p.Tags, p.Available = []string{"repair"}, taskrouting.Ptr(true)
	_, err := f.c.Workers.Upsert(context.Background(), p)
	require.NoError(t, err)
}

// holder returns who holds the task ("" when queued).
func (f *routingFixture) holder(t *testing.T, id string) string {
	t.Helper()
	task, err := f.c.Tasks.Get(context.Background(), id)
	require.NoError(t, err)
	return task.WorkerID
}

// reasonsOf returns one candidate's reasons in the task's latest decision, tagWeight left out.
func (f *routingFixture) reasonsOf(t *testing.T, taskID, workerID string) []taskrouting.Reason {
	t.Helper()
	ds, err := f.c.Decisions.List(context.Background(), taskrouting.ListDecisionsParams{TaskID: taskID})
	require.NoError(t, err)
	require.NotEmpty(t, ds, "task %s has no decision", taskID)
	out := []taskrouting.Reason{}
	for _, cand := range ds[0].Candidates {
		if cand.WorkerID != workerID {
			continue
		}
		for _, r := range cand.Reasons {
			if r.Kind != taskrouting.ReasonTagWeight {
				out = append(out, r)
			}
		}
	}
	return out
}

var ignoreRaw = cmpopts.IgnoreFields(taskrouting.Reason{}, "Raw")

// TestRoutingThroughClient shows each routing input deciding who gets a task over real
// HTTP, and the decision naming the rule that excluded the other worker ("ana", who wins
// every tie by id).
func TestRoutingThroughClient(t *testing.T) {
	t.Parallel()
	type setup func(f *routingFixture) (ana, ben taskrouting.UpsertWorkerParams, task taskrouting.CreateTaskParams)
	skill := func(level int) []taskrouting.SkillAssignment {
		return []taskrouting.SkillAssignment{{SkillID: "spanish", Level: level}}
	}
	tests := []struct {
		name     string
		setup    setup
		want     string
		wantAna  func(f *routingFixture) []taskrouting.Reason // nil: not compared
		teamsSet bool
	}{
		{
			name: "required skill by key, minimum level",
			setup: func(f *routingFixture) (taskrouting.UpsertWorkerParams, taskrouting.UpsertWorkerParams, taskrouting.CreateTaskParams) {
				return taskrouting.UpsertWorkerParams{ID: "ana", Skills: skill(2)}, taskrouting.UpsertWorkerParams{ID: "ben", Skills: skill(4)},
					taskrouting.CreateTaskParams{RequiredSkills: []taskrouting.RequiredSkill{{SkillID: "spanish", MinLevel: 3}}}
			},
			want: "ben",
			wantAna: func(f *routingFixture) []taskrouting.Reason {
				return []taskrouting.Reason{{Kind: taskrouting.ReasonSkillLevelTooLow, SkillID: f.skill.ID, Level: 2, MinLevel: 3}}
			},
		},
		{
			name: "required skill by id: the higher level wins",
			setup: func(f *routingFixture) (taskrouting.UpsertWorkerParams, taskrouting.UpsertWorkerParams, taskrouting.CreateTaskParams) {
				return taskrouting.UpsertWorkerParams{ID: "ana", Skills: skill(3)}, taskrouting.UpsertWorkerParams{ID: "ben", Skills: skill(5)},
					taskrouting.CreateTaskParams{RequiredSkills: []taskrouting.RequiredSkill{{SkillID: f.skill.ID, MinLevel: 1}}}
			},
			want: "ben",
			wantAna: func(f *routingFixture) []taskrouting.Reason {
				return []taskrouting.Reason{{Kind: taskrouting.ReasonSkillWeight, SkillID: f.skill.ID, Level: 3, Weight: 60}}
			},
		},
		{
			name: "teamId by key: members only",
			setup: func(f *routingFixture) (taskrouting.UpsertWorkerParams, taskrouting.UpsertWorkerParams, taskrouting.CreateTaskParams) {
				return taskrouting.UpsertWorkerParams{ID: "ana", TeamIDs: []string{f.night.ID}}, taskrouting.UpsertWorkerParams{ID: "ben", TeamIDs: []string{f.red.ID}},
					taskrouting.CreateTaskParams{TeamID: "red"}
			},
			want: "ben",
			wantAna: func(f *routingFixture) []taskrouting.Reason {
				return []taskrouting.Reason{{Kind: taskrouting.ReasonNotInTeam, TeamID: f.red.ID}}
			},
		},
		{
			name: "preferTeamId: the member first",
			setup: func(f *routingFixture) (taskrouting.UpsertWorkerParams, taskrouting.UpsertWorkerParams, taskrouting.CreateTaskParams) {
				return taskrouting.UpsertWorkerParams{ID: "ana"}, taskrouting.UpsertWorkerParams{ID: "ben", TeamIDs: []string{f.night.ID}},
					taskrouting.CreateTaskParams{PreferTeamID: f.night.ID}
			},
			want: "ben",
		},
		{
			name: "maxDistanceKm: Versailles is near Paris, Lyon is not",
			setup: func(f *routingFixture) (taskrouting.UpsertWorkerParams, taskrouting.UpsertWorkerParams, taskrouting.CreateTaskParams) {
				return taskrouting.UpsertWorkerParams{ID: "ana", Latitude: taskrouting.Ptr(45.764), Longitude: taskrouting.Ptr(4.8357)},
					taskrouting.UpsertWorkerParams{ID: "ben", Latitude: taskrouting.Ptr(48.8049), Longitude: taskrouting.Ptr(2.1204)},
					taskrouting.CreateTaskParams{Latitude: taskrouting.Ptr(48.8566), Longitude: taskrouting.Ptr(2.3522), MaxDistanceKm: taskrouting.Ptr(50.0)}
			},
			want: "ben",
			wantAna: func(f *routingFixture) []taskrouting.Reason {
				return []taskrouting.Reason{{Kind: taskrouting.ReasonTooFar, DistanceKm: 391.499, MaxDistanceKm: 50}}
			},
		},
		{
			name: "maxTravelDistanceKm: the worker's own limit",
			setup: func(f *routingFixture) (taskrouting.UpsertWorkerParams, taskrouting.UpsertWorkerParams, taskrouting.CreateTaskParams) {
				return taskrouting.UpsertWorkerParams{ID: "ana", Latitude: taskrouting.Ptr(48.8049), Longitude: taskrouting.Ptr(2.1204), MaxTravelDistanceKm: taskrouting.Ptr(5.0)},
					taskrouting.UpsertWorkerParams{ID: "ben", Latitude: taskrouting.Ptr(48.8049), Longitude: taskrouting.Ptr(2.1204)},
					taskrouting.CreateTaskParams{Latitude: taskrouting.Ptr(48.8566), Longitude: taskrouting.Ptr(2.3522)}
			},
			want: "ben",
		},
		{
			name: "requireGeo: a worker with no location is out",
			setup: func(f *routingFixture) (taskrouting.UpsertWorkerParams, taskrouting.UpsertWorkerParams, taskrouting.CreateTaskParams) {
				return taskrouting.UpsertWorkerParams{ID: "ana"},
					taskrouting.UpsertWorkerParams{ID: "ben", Latitude: taskrouting.Ptr(45.764), Longitude: taskrouting.Ptr(4.8357)},
					taskrouting.CreateTaskParams{Latitude: taskrouting.Ptr(48.8566), Longitude: taskrouting.Ptr(2.3522), RequireGeo: true}
			},
			want: "ben",
			wantAna: func(f *routingFixture) []taskrouting.Reason {
				return []taskrouting.Reason{{Kind: taskrouting.ReasonNoGeo}}
			},
		},
		{
			name: "allowedCidrs: the worker's ip must be inside",
			setup: func(f *routingFixture) (taskrouting.UpsertWorkerParams, taskrouting.UpsertWorkerParams, taskrouting.CreateTaskParams) {
				return taskrouting.UpsertWorkerParams{ID: "ana", IP: "192.0.2.10"}, taskrouting.UpsertWorkerParams{ID: "ben", IP: "10.1.2.3"},
					taskrouting.CreateTaskParams{AllowedCIDRs: []string{"10.0.0.0/8", "2001:db8::1"}}
			},
			want: "ben",
			wantAna: func(f *routingFixture) []taskrouting.Reason {
				return []taskrouting.Reason{{Kind: taskrouting.ReasonIPNotAllowed}}
			},
		},
		{
			name: "allowedCidrs: an IPv4-mapped IPv6 ip is inside its IPv4 range",
			setup: func(f *routingFixture) (taskrouting.UpsertWorkerParams, taskrouting.UpsertWorkerParams, taskrouting.CreateTaskParams) {
				return taskrouting.UpsertWorkerParams{ID: "ana", IP: "::ffff:10.0.0.5"}, taskrouting.UpsertWorkerParams{ID: "ben", IP: "192.0.2.10"},
					taskrouting.CreateTaskParams{AllowedCIDRs: []string{"10.0.0.0/8"}}
			},
			want: "ana",
		},
		{
			name: "allowedCidrs: an IPv4-mapped range holds the plain IPv4 ip",
			setup: func(f *routingFixture) (taskrouting.UpsertWorkerParams, taskrouting.UpsertWorkerParams, taskrouting.CreateTaskParams) {
				return taskrouting.UpsertWorkerParams{ID: "ana", IP: "10.0.0.5"}, taskrouting.UpsertWorkerParams{ID: "ben", IP: "192.0.2.10"},
					taskrouting.CreateTaskParams{AllowedCIDRs: []string{"::ffff:10.0.0.5"}}
			},
			want: "ana",
		},
	}
	for _, tc := range tests {
		for _, rules := range bothRules {
			t.Run(tc.name+"/"+string(rules), func(t *testing.T) {
				t.Parallel()
				f := newRoutingFixture(t, rules)
				ana, ben, task := tc.setup(f)
				f.worker(t, ana)
				f.worker(t, ben)
				task.ID, task.Tags = "job", []string{"repair"}
				_, err := f.c.Tasks.Create(context.Background(), task)
				require.NoError(t, err)
				assert.Equal(t, tc.want, f.holder(t, "job"))
				if tc.wantAna != nil {
					if diff := cmp.Diff(tc.wantAna(f), f.reasonsOf(t, "job", "ana"), ignoreRaw); diff != "" {
						t.Errorf("ana's reasons (-want +got):\n%s", diff)
					}
				}
			})
		}
	}
}

// TestRoutingFollowsChanges: a waiting task reaches a worker when a team roster, a skill or
// a location changes, and a skill past its validUntil (on the server clock) stops counting.
func TestRoutingFollowsChanges(t *testing.T) {
	for _, rules := range bothRules {
		t.Run(string(rules), func(t *testing.T) {
			t.Parallel()
			f := newRoutingFixture(t, rules)
			ctx := context.Background()
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "ana"})

			_, err := f.c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "team-job", Tags: []string{"repair"}, TeamID: f.red.ID})
			require.NoError(t, err)
			assert.Empty(t, f.holder(t, "team-job"))
			_, err = f.c.Teams.SetMembers(ctx, f.red.ID, []string{"ana"})
			require.NoError(t, err)
			assert.Equal(t, "ana", f.holder(t, "team-job"), "joining the team through its roster routes the waiting task")

			_, err = f.c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "skill-job", Tags: []string{"repair"},
				RequiredSkills: []taskrouting.RequiredSkill{{SkillID: "spanish", MinLevel: 2}}})
			require.NoError(t, err)
			assert.Empty(t, f.holder(t, "skill-job"))
			_, err = f.c.Workers.Patch(ctx, "ana", taskrouting.PatchWorkerParams{Skills: []taskrouting.SkillAssignment{{SkillID: "spanish", Level: 2, ValidUntil: "2026-07-21"}}})
			require.NoError(t, err)
			assert.Equal(t, "ana", f.holder(t, "skill-job"), "gaining the skill routes the waiting task")

			// The skill counts through 2026-07-21 and not after.
			f.clk.Advance(2 * 24 * time.Hour)
			_, err = f.c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "late-job", Tags: []string{"repair"},
				RequiredSkills: []taskrouting.RequiredSkill{{SkillID: "spanish", MinLevel: 1}}})
			require.NoError(t, err)
			assert.Empty(t, f.holder(t, "late-job"))
			why, err := f.srv.WhyUnmatched("late-job")
			require.NoError(t, err)
			assert.Equal(t, "nearest workers: ana skillExpired "+f.skill.ID, why.Summary)

			exp, err := f.c.Skills.Expiring(ctx, taskrouting.ExpiringSkillsParams{})
			require.NoError(t, err)
			assert.Equal(t, &taskrouting.ExpiringSkills{AsOf: "2026-07-22", Skills: []taskrouting.ExpiringSkill{{WorkerID: "ana", Label: "ana",
				SkillID: f.skill.ID, Key: "spanish", Name: "Spanish", ValidUntil: "2026-07-21", Expired: true}}}, exp)
			w, err := f.c.Workers.Get(ctx, "ana")
			require.NoError(t, err)
			require.Len(t, w.Skills, 1)
			assert.Equal(t, "2026-07-21", w.Skills[0].ValidUntil, "the worker read shows the day")

			// Removing the team ends the membership the task depended on: a new team task waits.
			require.NoError(t, f.c.Teams.Remove(ctx, f.red.ID))
			_, err = f.c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "team-job-2", Tags: []string{"repair"}, TeamID: f.red.ID})
			require.NoError(t, err)
			assert.Empty(t, f.holder(t, "team-job-2"))
		})
	}
}

// TestSkillsExpiringWindow checks the window, the day and the order of skills.expiring.
func TestSkillsExpiringWindow(t *testing.T) {
	for _, rules := range bothRules {
		t.Run(string(rules), func(t *testing.T) {
			t.Parallel()
			f := newRoutingFixture(t, rules)
			ctx := context.Background()
			until := func(day string) []taskrouting.SkillAssignment {
				return []taskrouting.SkillAssignment{{SkillID: "spanish", Level: 1, ValidUntil: day}}
			}
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "cy", Skills: until("2026-08-30")})
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "ben", Skills: until("2026-07-25")})
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "ana", Skills: until("2026-07-25")})
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "dee", Skills: until("2026-07-01")})
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "eve", Skills: []taskrouting.SkillAssignment{{SkillID: "spanish", Level: 1}}})
			row := func(id, day string, expired bool) taskrouting.ExpiringSkill {
				return taskrouting.ExpiringSkill{WorkerID: id, Label: id, SkillID: f.skill.ID, Key: "spanish", Name: "Spanish", ValidUntil: day, Expired: expired}
			}
			tests := []struct {
				name string
				p    taskrouting.ExpiringSkillsParams
				want *taskrouting.ExpiringSkills
			}{
				{"default: 30 days from the server's day", taskrouting.ExpiringSkillsParams{},
					&taskrouting.ExpiringSkills{AsOf: "2026-07-20", Skills: []taskrouting.ExpiringSkill{
						row("dee", "2026-07-01", true), row("ana", "2026-07-25", false), row("ben", "2026-07-25", false)}}},
				{"zero days: lapsed only", taskrouting.ExpiringSkillsParams{WithinDays: taskrouting.Ptr(0)},
					&taskrouting.ExpiringSkills{AsOf: "2026-07-20", Skills: []taskrouting.ExpiringSkill{row("dee", "2026-07-01", true)}}},
				{"another day, the last one counted", taskrouting.ExpiringSkillsParams{AsOf: "2026-08-25", WithinDays: taskrouting.Ptr(5)},
					&taskrouting.ExpiringSkills{AsOf: "2026-08-25", Skills: []taskrouting.ExpiringSkill{
						row("dee", "2026-07-01", true), row("ana", "2026-07-25", true), row("ben", "2026-07-25", true), row("cy", "2026-08-30", false)}}},
			}
			for _, tc := range tests {
				got, err := f.c.Skills.Expiring(ctx, tc.p)
				require.NoError(t, err, tc.name)
				assert.Equal(t, tc.want, got, tc.name)
			}
		})
	}
}

// TestRoutingRefusals: a worker ip, a CIDR or a skill's validUntil that does not parse is a
// 4xx and changes nothing, and an assignment to a worker the rules exclude is refused.
func TestRoutingRefusals(t *testing.T) {
	for _, rules := range bothRules {
		t.Run(string(rules), func(t *testing.T) {
			t.Parallel()
			f := newRoutingFixture(t, rules)
			ctx := context.Background()
			_, err := f.c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", IP: "not-an-ip"})
			assertCode(t, err, 400, "invalid_body")
			_, err = f.c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "job", Tags: []string{"repair"}, AllowedCIDRs: []string{"10.0.0.0/33"}})
			assertCode(t, err, 400, "invalid_body")
			_, err = f.c.Tasks.SuggestWorkers(ctx, taskrouting.SuggestWorkersParams{Tags: []string{"repair"}, AllowedCIDRs: []string{"ten"}})
			assertCode(t, err, 400, "invalid_body")
			// The client refuses a day that is not one; the server does too.
			_, err = f.c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Skills: []taskrouting.SkillAssignment{{SkillID: "spanish", Level: 1, ValidUntil: "2026-13-45"}}})
			var pe *taskrouting.ParamError
			assert.ErrorAs(t, err, &pe)
			req, _ := http.NewRequest("POST", f.srv.URL()+"/workers", strings.NewReader(`{"id":"ana","skills":[{"skillId":"spanish","level":1,"validUntil":"2026-13-45"}]}`))
			req.Header.Set("Authorization", "Bearer "+f.srv.APIKey())
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, 400, resp.StatusCode)
			assert.Contains(t, string(raw), "validation_failed")
			_, err = f.c.Workers.Get(ctx, "ana")
			assert.ErrorIs(t, err, taskrouting.ErrNotFound)
			_, err = f.c.Tasks.Get(ctx, "job")
			assert.ErrorIs(t, err, taskrouting.ErrNotFound)

			// An assignment is the operator's override: the routing rules do not refuse it.
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "ben"})
			_, err = f.c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "red-job", Tags: []string{"repair"}, TeamID: f.red.ID})
			require.NoError(t, err)
			_, err = f.c.Tasks.Assign(ctx, "red-job", taskrouting.AssignTaskParams{WorkerID: "ben"})
			require.NoError(t, err)
			assert.Equal(t, "ben", f.holder(t, "red-job"))
		})
	}
}

func assertCode(t *testing.T, err error, status int, code string) {
	t.Helper()
	var apiErr *taskrouting.APIError
	if assert.True(t, errors.As(err, &apiErr), "want an API error, got %v", err) {
		assert.Equal(t, status, apiErr.StatusCode)
		assert.Equal(t, code, apiErr.Code)
	}
}

// TestSuggestWorkersRouting: the dry run applies required skills, place and network like a
// task, and names the rule in reasons.
func TestSuggestWorkersRouting(t *testing.T) {
	for _, rules := range bothRules {
		t.Run(string(rules), func(t *testing.T) {
			t.Parallel()
			f := newRoutingFixture(t, rules)
			ctx := context.Background()
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "ana", Skills: []taskrouting.SkillAssignment{{SkillID: "spanish", Level: 1}}})
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "ben", Skills: []taskrouting.SkillAssignment{{SkillID: "spanish", Level: 4}}})
			s, err := f.c.Tasks.SuggestWorkers(ctx, taskrouting.SuggestWorkersParams{Tags: []string{"repair"},
				RequiredSkills: []taskrouting.RequiredSkill{{SkillID: "spanish", MinLevel: 2}}})
			require.NoError(t, err)
			require.Len(t, s.Workers, 2)
			assert.Equal(t, "ben", s.Workers[0].WorkerID)
			assert.True(t, s.Workers[0].Eligible)
			assert.Equal(t, 81.0, s.Workers[0].Score, "tag 1 + level 4 x 20")
			assert.False(t, s.Workers[1].Eligible)
			if diff := cmp.Diff([]taskrouting.Reason{{Kind: taskrouting.ReasonSkillLevelTooLow, SkillID: f.skill.ID, Level: 1, MinLevel: 2},
				{Kind: taskrouting.ReasonTagWeight, Tag: "repair", Weight: 1}}, s.Workers[1].Reasons, ignoreRaw); diff != "" {
				t.Errorf("ana's reasons (-want +got):\n%s", diff)
			}
		})
	}
}
