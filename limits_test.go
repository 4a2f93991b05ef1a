package taskrouting

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWireTimeDecodes(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    time.Time
		wantISO bool
	}{
		{"epoch ms", `1784892600000`, breakAt, false},
		{"epoch ms as float", `1.7848926e12`, breakAt, false},
		{"ISO with milliseconds", `"2026-07-24T11:30:00.000Z"`, breakAt, true},
		{"ISO without fraction", `"2026-07-24T11:30:00Z"`, breakAt, true},
		{"ISO with offset", `"2026-07-24T06:30:00-05:00"`, breakAt, true},
		{"null", `null`, time.Time{}, false},
		{"empty string", `""`, time.Time{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w wireTime
			require.NoError(t, json.Unmarshal([]byte(tc.in), &w))
			assert.True(t, tc.want.Equal(w.t), "got %v", w.t)
			assert.Equal(t, time.UTC, w.t.Location())
			if !tc.want.IsZero() {
				assert.Equal(t, tc.wantISO, w.iso)
			}
		})
	}
	for _, bad := range []string{`"yesterday"`, `"2026-07-24"`, `true`, `{}`} {
		var w wireTime
		assert.Error(t, json.Unmarshal([]byte(bad), &w), bad)
	}
}

func TestWireTimeEncodes(t *testing.T) {
	tests := []struct {
		name string
		in   wireTime
		want string
	}{
		{"epoch ms", msOf(breakAt), `1784892600000`},
		{"ISO in UTC with milliseconds", isoOf(breakAt.In(time.FixedZone("x", 7200)).Add(5 * time.Millisecond)), `"2026-07-24T11:30:00.005Z"`},
		{"zero as null", isoOf(time.Time{}), `null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(b))
			var back wireTime
			require.NoError(t, json.Unmarshal(b, &back))
			assert.True(t, tc.in.t.Equal(back.t))
		})
	}
}

// weights returns n routing weights of 1.
func weights(n int) map[string]float64 {
	m := make(map[string]float64, n)
	for i := range n {
		m["tag"+strconv.Itoa(i)] = 1
	}
	return m
}

// strs returns n distinct strings made from s (tags are a set, so repeats would be refused
// for that alone): s with its tail replaced by the index, keeping its length when s is longer
// than the index, else s followed by the index.
func strs(n int, s string) []string {
	out := make([]string, n)
	for i := range out {
		idx := strconv.Itoa(i)
		if len(s) > len(idx) {
			out[i] = s[:len(s)-len(idx)] + idx
		} else {
			out[i] = s + idx
		}
	}
	return out
}

// TestClientSideLimits holds requests to the platform's limits: a value at
// the limit is sent, one past it is a *ParamError naming the field, and
// no request leaves the client.
func TestClientSideLimits(t *testing.T) {
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client, w *WorkerClient) error
		param string // "" when the request is sent
	}{
		{"128 routing weights", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{RoutingWeights: weights(128)})
			return err
		}, ""},
		{"129 routing weights", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{RoutingWeights: weights(129)})
			return err
		}, "UpsertWorkerParams.RoutingWeights"},
		{"negative routing weight", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Patch(ctx, "agent_1", PatchWorkerParams{RoutingWeights: map[string]float64{"english": -1}})
			return err
		}, `PatchWorkerParams.RoutingWeights["english"]`},
		{"routing weight 0", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Patch(ctx, "agent_1", PatchWorkerParams{RoutingWeights: map[string]float64{"english": 0}})
			return err
		}, ""},
		{"64 vetoed workers", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"a"}, VetoedWorkers: strs(64, "w")})
			return err
		}, ""},
		{"65 vetoed workers", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"a"}, VetoedWorkers: strs(65, "w")})
			return err
		}, "CreateTaskParams.VetoedWorkers"},
		{"65 worker tags", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{Tags: strs(65, "t")})
			return err
		}, "UpsertWorkerParams.Tags"},
		{"empty worker tag", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Patch(ctx, "agent_1", PatchWorkerParams{Tags: []string{"english", ""}})
			return err
		}, "PatchWorkerParams.Tags[1]"},
		{"worker id of 129 characters", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{ID: strings.Repeat("a", 129)})
			return err
		}, "UpsertWorkerParams.ID"},
		{"skill level 6", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{Skills: []SkillAssignment{{SkillID: "spanish", Level: 6}}})
			return err
		}, "UpsertWorkerParams.Skills[0].Level"},
		{"skill weight override 101", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Patch(ctx, "agent_1", PatchWorkerParams{Skills: []SkillAssignment{{SkillID: "spanish", Level: 5, WeightOverride: Ptr(101.0)}}})
			return err
		}, "PatchWorkerParams.Skills[0].WeightOverride"},
		{"33 teams", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{TeamIDs: strs(33, "team")})
			return err
		}, "UpsertWorkerParams.TeamIDs"},
		{"ip of 46 characters", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{IP: strings.Repeat("1", 46)})
			return err
		}, "UpsertWorkerParams.IP"},
		{"worker latitude 90.5", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{Latitude: Ptr(90.5)})
			return err
		}, "UpsertWorkerParams.Latitude"},
		{"negative travel distance", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Patch(ctx, "agent_1", PatchWorkerParams{MaxTravelDistanceKm: Ptr(-1.0)})
			return err
		}, "PatchWorkerParams.MaxTravelDistanceKm"},
		{"negative backlog", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{MaxBacklogSize: Ptr(-1)})
			return err
		}, "UpsertWorkerParams.MaxBacklogSize"},
		{"32 task tags", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: strs(32, strings.Repeat("t", 64))})
			return err
		}, ""},
		{"33 task tags", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: strs(33, "t")})
			return err
		}, "CreateTaskParams.Tags"},
		{"task tag of 65 characters", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{strings.Repeat("t", 65)}})
			return err
		}, "CreateTaskParams.Tags[0]"},
		{"title of 301 characters", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, Title: strings.Repeat("é", 301)})
			return err
		}, "CreateTaskParams.Title"},
		{"101 references", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			refs := make([]TaskReferenceParams, 101)
			for i := range refs {
				refs[i].URL = "https://crm.example/" + strconv.Itoa(i)
			}
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, References: refs})
			return err
		}, "CreateTaskParams.References"},
		{"reference without a URL", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, References: []TaskReferenceParams{{Label: "order"}}})
			return err
		}, "CreateTaskParams.References[0].URL"},
		{"required skill level 0", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, RequiredSkills: []RequiredSkill{{SkillID: "plumbing"}}})
			return err
		}, "CreateTaskParams.RequiredSkills[0].MinLevel"},
		{"task longitude 181", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, Longitude: Ptr(181.0)})
			return err
		}, "CreateTaskParams.Longitude"},
		{"33 allowed CIDRs", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, AllowedCIDRs: strs(33, "10.0.0.0/8")})
			return err
		}, "CreateTaskParams.AllowedCIDRs"},
		{"team id of 65 characters", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, TeamID: strings.Repeat("t", 65)})
			return err
		}, "CreateTaskParams.TeamID"},
		{"escalation under a second", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, Escalation: Some(Escalation{RespondWithin: 999 * time.Millisecond})})
			return err
		}, "CreateTaskParams.Escalation.RespondWithin"},
		{"escalation of 9 tiers", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			tiers := make([][]string, 9)
			for i := range tiers {
				tiers[i] = []string{"t"}
			}
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, Escalation: Some(Escalation{RespondWithin: time.Minute, Tiers: tiers})})
			return err
		}, "CreateTaskParams.Escalation.Tiers"},
		{"escalation tier with no tags", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, Escalation: Some(Escalation{RespondWithin: time.Minute, Tiers: [][]string{{"t"}, {}}})})
			return err
		}, "CreateTaskParams.Escalation.Tiers[1]"},
		{"9 escalations", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, Escalation: Some(Escalation{RespondWithin: time.Minute, MaxEscalations: Ptr(9)})})
			return err
		}, "CreateTaskParams.Escalation.MaxEscalations"},
		{"unknown exhaustion rule", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, Escalation: Some(Escalation{RespondWithin: time.Minute, OnExhausted: "drop"})})
			return err
		}, "CreateTaskParams.Escalation.OnExhausted"},
		{"completion SLA over 90 days", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, SLA: Some(SLA{CompleteWithin: 91 * 24 * time.Hour})})
			return err
		}, "CreateTaskParams.SLA.CompleteWithin"},
		{"unknown schedule miss rule", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, Schedule: &Schedule{NotBefore: t0, OnMiss: "keep"}})
			return err
		}, "CreateTaskParams.Schedule.OnMiss"},
		{"SLA of 101 rejections", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"t"}, SLA: Some(SLA{MaxRejections: 101})})
			return err
		}, "CreateTaskParams.SLA.MaxRejections"},
		{"update with nothing set", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Update(ctx, "task_1", UpdateTaskParams{})
			return err
		}, "UpdateTaskParams"},
		{"update to no tags", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Update(ctx, "task_1", UpdateTaskParams{Tags: []string{}})
			return err
		}, "UpdateTaskParams.Tags"},
		{"update to an empty title", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Update(ctx, "task_1", UpdateTaskParams{Title: Some("")})
			return err
		}, "UpdateTaskParams.Title"},
		{"update to a description of 10001 characters", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Update(ctx, "task_1", UpdateTaskParams{Description: Some(strings.Repeat("d", 10001))})
			return err
		}, "UpdateTaskParams.Description"},
		{"suggest limit 101", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.SuggestWorkers(ctx, SuggestWorkersParams{Tags: []string{"t"}, Limit: 101})
			return err
		}, "SuggestWorkersParams.Limit"},
		{"suggest with no tags", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.SuggestWorkers(ctx, SuggestWorkersParams{})
			return err
		}, "SuggestWorkersParams.Tags"},
		{"sign-in with a workspace id of 65 characters", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			return sessionErr(w.Login(ctx, WorkerLoginParams{WorkspaceID: strings.Repeat("w", 65), WorkerID: "agent_1", PIN: NewSecret("4921")}))
		}, "WorkerLoginParams.WorkspaceID"},
		{"sign-in with a PIN of 257 characters", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			return sessionErr(w.Login(ctx, WorkerLoginParams{WorkspaceID: "ws_1", WorkerID: "agent_1", PIN: NewSecret(strings.Repeat("7", 257))}))
		}, "WorkerLoginParams.PIN"},
		{"accept for a worker id of 129 characters", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Decisions.Accept(ctx, "task_1", strings.Repeat("a", 129))
			return err
		}, "workerID"},
		{"assign to a worker id of 129 characters", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Tasks.Assign(ctx, "task_1", AssignTaskParams{WorkerID: strings.Repeat("a", 129)})
			return err
		}, "AssignTaskParams.WorkerID"},
		{"break reason of 100 characters", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.StartBreak(ctx, StartBreakParams{Reason: strings.Repeat("é", 100)})
			return err
		}, ""},
		{"break reason of 101 characters", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.StartBreak(ctx, StartBreakParams{Reason: strings.Repeat("é", 101)})
			return err
		}, "StartBreakParams.Reason"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, `{"id":"x","status":"queued","tags":["t"],"workers":[]}`)
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
			signIn(w)

			err := tc.call(context.Background(), c, w)
			if tc.param == "" {
				require.NoError(t, err)
				reqs := rec.all()
				require.Len(t, reqs, 1, "the request is sent")
				checkRequestContract(t, reqs[0])
				return
			}
			var pe *ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.param, pe.Param)
			assert.ErrorIs(t, err, ErrInvalidParams)
			assert.Empty(t, rec.all(), "no request is sent")
		})
	}
}
