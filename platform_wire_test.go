package taskrouting

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
)

// breakAt is the time of the platform's break answers below, sent as ISO-8601.
var breakAt = time.Date(2026, 7, 24, 11, 30, 0, 0, time.UTC)

// platformCases send the members the platform's request schemas have and
// the client used to lack, and decode answers in the shapes the platform
// sends (ISO-8601 break times, typed learning stats, worker skills). Each
// case names the request body it must send ("" for none) and the answer it
// is served.
var platformCases = []struct {
	name     string
	call     func(ctx context.Context, c *Client, w *WorkerClient) (any, error)
	wantBody string
	answer   string
	want     any
}{
	{"workers.upsert skills, teams, ip and geo", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Workers.Upsert(ctx, UpsertWorkerParams{
			ID: "agent_1", Skills: []SkillAssignment{{SkillID: "spanish", Level: 4}, {SkillID: "sk_9", Level: 1, WeightOverride: Ptr(0.0)}},
			TeamIDs: []string{"team_emea"}, IP: "10.1.2.3", Latitude: Ptr(48.85), Longitude: Ptr(2.35), MaxTravelDistanceKm: Ptr(25.0),
		})
	}, `{"id":"agent_1","skills":[{"skillId":"spanish","level":4},{"skillId":"sk_9","level":1,"weightOverride":0}],
		"teamIds":["team_emea"],"ip":"10.1.2.3","latitude":48.85,"longitude":2.35,"maxTravelDistanceKm":25}`,
		`{"id":"agent_1"}`, &WorkerRef{ID: "agent_1"}},
	{"workers.patch empty lists clear", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Workers.Patch(ctx, "agent_1", PatchWorkerParams{Skills: []SkillAssignment{}, TeamIDs: []string{}, Latitude: Ptr(0.0), Locale: Null[string]()})
	}, `{"skills":[],"teamIds":[],"latitude":0,"locale":null}`, `{"id":"agent_1"}`, &WorkerRef{ID: "agent_1"}},
	{"workers.upsert locale", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Workers.Upsert(ctx, UpsertWorkerParams{ID: "agent_1", Locale: Some("et")})
	}, `{"id":"agent_1","locale":"et"}`, `{"id":"agent_1"}`, &WorkerRef{ID: "agent_1"}},
	{"workers.get with skills", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Workers.Get(ctx, "agent_1")
	}, "", `{"id":"agent_1","tags":["english"],"routingWeights":{"english":80},"skills":[
		{"skillId":"sk_1","key":"spanish","name":"Spanish","level":4,"weight":80,"weightOverride":null}],
		"maxBacklogSize":null,"available":true,"queueDepth":0}`,
		&WorkerDetail{ID: "agent_1", Tags: []string{"english"}, RoutingWeights: map[string]float64{"english": 80},
			Skills: []WorkerSkill{{SkillID: "sk_1", Key: "spanish", Name: "Spanish", Level: 4, Weight: 80}}, Available: true}},
	{"workers.get teams, qualification dates and why unavailable", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Workers.Get(ctx, "agent_2")
	}, "", `{"id":"agent_2","tags":[],"routingWeights":{},"skills":[{"skillId":"sk_2","key":"gas","name":"Gas safety","level":3,"weight":60,
		"validFrom":"2026-01-01","validUntil":"2026-12-31"}],"teams":[{"teamId":"team_1","key":"paris","name":"Paris","color":null,"role":"lead"}],
		"maxBacklogSize":2,"available":false,"invitePending":true,"pendingApproval":false,"queueDepth":0,"locale":"et"}`,
		&WorkerDetail{ID: "agent_2", Tags: []string{}, RoutingWeights: map[string]float64{}, MaxBacklogSize: Ptr(2), InvitePending: true, Locale: "et",
			Skills: []WorkerSkill{{SkillID: "sk_2", Key: "gas", Name: "Gas safety", Level: 3, Weight: 60, ValidFrom: "2026-01-01", ValidUntil: "2026-12-31"}},
			Teams:  []WorkerTeam{{TeamID: "team_1", Key: "paris", Name: "Paris", Role: "lead"}}}},
	{"tasks.create skills, geo, network and teams", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.Create(ctx, CreateTaskParams{
			Tags: []string{"repair"}, RequiredSkills: []RequiredSkill{{SkillID: "plumbing", MinLevel: 3}},
			Latitude: Ptr(48.85), Longitude: Ptr(2.35), MaxDistanceKm: Ptr(10.0), RequireGeo: true,
			AllowedCIDRs: []string{"10.0.0.0/8"}, TeamID: "team_paris", PreferTeamID: "team_night",
		})
	}, `{"tags":["repair"],"requiredSkills":[{"skillId":"plumbing","minLevel":3}],"latitude":48.85,"longitude":2.35,
		"maxDistanceKm":10,"requireGeo":true,"allowedCidrs":["10.0.0.0/8"],"teamId":"team_paris","preferTeamId":"team_night"}`,
		`{"id":"task_1","status":"queued"}`, &TaskRef{ID: "task_1", Status: TaskStatusQueued}},
	{"tasks.create context and references", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.Create(ctx, CreateTaskParams{
			Tags: []string{"billing"}, Title: "Refund request", Context: map[string]any{"orderId": "o_123", "amount": 42.5},
			References: []TaskReferenceParams{{URL: "https://crm.example/o_123", Label: "order"}, {URL: "https://crm.example/i.pdf", ContentType: "application/pdf"}},
		})
	}, `{"tags":["billing"],"title":"Refund request","context":{"orderId":"o_123","amount":42.5},
		"references":[{"url":"https://crm.example/o_123","label":"order"},{"url":"https://crm.example/i.pdf","contentType":"application/pdf"}]}`,
		`{"id":"task_1","status":"queued"}`, &TaskRef{ID: "task_1", Status: TaskStatusQueued}},
	{"worker.taskDetail with context and references", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.Task(ctx, "task_1")
	}, "", `{"id":"task_1","status":"pending","tags":["billing"],"priority":5,"title":"Refund request","description":null,
		"context":{"orderId":"o_123"},"references":[{"id":"ref_1","url":"https://crm.example/o_123","label":"order","contentType":null}],
		"createdAt":1763700000000}`,
		&Task{ID: "task_1", Status: TaskStatusPending, Tags: []string{"billing"}, Priority: 5, Title: "Refund request", CreatedAt: t0,
			Context: map[string]any{"orderId": "o_123"}, References: []TaskReference{{ID: "ref_1", URL: "https://crm.example/o_123", Label: "order"}}}},
	{"tasks.create escalation ladder, SLA and schedule policies", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.Create(ctx, CreateTaskParams{
			Tags: []string{"billing"},
			Escalation: Some(Escalation{RespondWithin: 30 * time.Second, OnNoResponse: "block", PriorityBoost: 10,
				Tiers: [][]string{{"billing"}, {"billing", "senior"}}, MaxEscalations: Ptr(0), OnExhausted: "park"}),
			SLA: Some(SLA{ExpireAfter: time.Hour, OnExpire: "park", CompleteWithin: 10 * time.Minute, OnCompletionBreach: "requeue",
				MaxRejections: 3, OnMaxRejections: "fail"}),
			Schedule: &Schedule{NotBefore: t0, OnMiss: "drop"},
		})
	}, `{"tags":["billing"],"escalation":{"respondWithinMs":30000,"onNoResponse":"block","priorityBoost":10,
		"tiers":[["billing"],["billing","senior"]],"maxEscalations":0,"onExhausted":"park"},
		"sla":{"expireAfterMs":3600000,"onExpire":"park","completeWithinMs":600000,"onCompletionBreach":"requeue","maxRejections":3,"onMaxRejections":"fail"},
		"schedule":{"notBefore":1763700000000,"onMiss":"drop"}}`,
		`{"id":"task_1","status":"scheduled"}`, &TaskRef{ID: "task_1", Status: TaskStatusScheduled}},
	{"tasks.get policies read back", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.Get(ctx, "task_1")
	}, "", `{"id":"task_1","tags":["billing"],"status":"scheduled","createdAt":1763700000000,"escalationLevel":1,"acceptedAt":null,
		"escalation":{"respondWithinMs":30000,"tiers":[["billing"]],"maxEscalations":2,"onExhausted":"queue"},
		"sla":{"completeWithinMs":600000,"onCompletionBreach":"notify"},"schedule":{"notBefore":1763700000000,"notAfter":null,"onMiss":"park"}}`,
		&Task{ID: "task_1", Tags: []string{"billing"}, Status: TaskStatusScheduled, CreatedAt: t0, EscalationLevel: 1,
			Escalation: &Escalation{RespondWithin: 30 * time.Second, Tiers: [][]string{{"billing"}}, MaxEscalations: Ptr(2), OnExhausted: "queue"},
			SLA:        &SLA{CompleteWithin: 10 * time.Minute, OnCompletionBreach: "notify"},
			Schedule:   &Schedule{NotBefore: t0, OnMiss: "park"}}},
	{"tasks.update sends only what is set", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.Update(ctx, "task_1", UpdateTaskParams{Priority: Ptr(70.0), Title: Some("Refund")})
	}, `{"priority":70,"title":"Refund"}`, `{"id":"task_1","status":"pending","tags":["billing"],"priority":70,"requeued":false}`,
		&TaskUpdate{ID: "task_1", Status: TaskStatusPending, Tags: []string{"billing"}, Priority: Ptr(70.0)}},
	{"tasks.update clears with null", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.Update(ctx, "task_1", UpdateTaskParams{Title: Null[string](), Description: Null[string](),
			Context: Null[map[string]any](), References: Null[[]TaskReferenceParams](), Meta: Null[map[string]any]()})
	}, `{"title":null,"description":null,"context":null,"references":null,"meta":null}`,
		`{"id":"task_1","status":"queued","tags":[],"requeued":false}`,
		&TaskUpdate{ID: "task_1", Status: TaskStatusQueued, Tags: []string{}}},
	{"tasks.update retag takes the task back", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.Update(ctx, "task_1", UpdateTaskParams{Tags: []string{"german"}, Context: Some(map[string]any{"orderId": 7.0}),
			References: Some([]TaskReferenceParams{{URL: "https://crm.example/7", ContentType: "text/html"}})})
	}, `{"tags":["german"],"context":{"orderId":7},"references":[{"url":"https://crm.example/7","contentType":"text/html"}]}`,
		`{"id":"task_1","status":"queued","tags":["german"],"priority":null,"requeued":true,"previousWorkerId":"w-1"}`,
		&TaskUpdate{ID: "task_1", Status: TaskStatusQueued, Tags: []string{"german"}, Requeued: true, PreviousWorkerID: "w-1"}},
	{"tasks.suggestWorkers skills, geo and network", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.SuggestWorkers(ctx, SuggestWorkersParams{
			Tags: []string{"repair"}, RequiredSkills: []RequiredSkill{{SkillID: "plumbing", MinLevel: 1}},
			Latitude: Ptr(-33.9), Longitude: Ptr(151.2), MaxDistanceKm: Ptr(0.0), AllowedCIDRs: []string{"192.168.0.0/16"},
		})
	}, `{"tags":["repair"],"requiredSkills":[{"skillId":"plumbing","minLevel":1}],"latitude":-33.9,"longitude":151.2,
		"maxDistanceKm":0,"allowedCidrs":["192.168.0.0/16"]}`,
		`{"tags":["repair"],"priority":0,"workers":[]}`, &Suggestion{Tags: []string{"repair"}, Workers: []Candidate{}}},
	{"tasks.get with geo", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.Get(ctx, "task_1")
	}, "", `{"id":"task_1","tags":["repair"],"priority":null,"status":"queued","workerId":null,"createdAt":1763700000000,
		"meta":null,"latitude":48.85,"longitude":2.35,"maxDistanceKm":10,"requireGeo":true,"allowedCidrs":["10.0.0.0/8"],"archived":false}`,
		&Task{ID: "task_1", Tags: []string{"repair"}, Status: TaskStatusQueued, CreatedAt: t0,
			Latitude: Ptr(48.85), Longitude: Ptr(2.35), MaxDistanceKm: Ptr(10.0), RequireGeo: true, AllowedCIDRs: []string{"10.0.0.0/8"}}},
	{"tasks.get accepted", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.Get(ctx, "task_1")
	}, "", `{"id":"task_1","tags":["repair"],"status":"accepted","workerId":"w-1","createdAt":1763700000000,"acceptedAt":1763700060000}`,
		&Task{ID: "task_1", Tags: []string{"repair"}, Status: TaskStatusAccepted, WorkerID: "w-1", CreatedAt: t0, AcceptedAt: t0.Add(time.Minute)}},
	{"tasks.get createdAt as ISO-8601", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Tasks.Get(ctx, "task_1")
	}, "", `{"id":"task_1","tags":["repair"],"status":"queued","workerId":null,"createdAt":"2025-11-21T04:40:00.000Z","meta":null}`,
		&Task{ID: "task_1", Tags: []string{"repair"}, Status: TaskStatusQueued, CreatedAt: t0}},
	{"learning.status typed stats", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Learning.Status(ctx)
	}, "", `{"enabled":true,"shadowMode":true,"autoWeights":false,"modelSize":4,"signalWeights":{"csat":1},
		"stats":{"decisions":12,"rewards":10,"totalReward":7.5,"averageReward":0.75}}`,
		&LearningStatus{Enabled: true, ShadowMode: true, ModelSize: 4, SignalWeights: map[string]float64{"csat": 1},
			Stats: &LearningStats{Decisions: 12, Rewards: 10, TotalReward: 7.5, AverageReward: 0.75}}},
	{"learning.status before the first reward", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Learning.Status(ctx)
	}, "", `{"enabled":false,"shadowMode":false,"autoWeights":false,"modelSize":0,"stats":null}`, &LearningStatus{}},
	{"learning.workerStats with a catalogue skill", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Learning.WorkerStats(ctx, "agent_1")
	}, "", `{"workerId":"agent_1","skills":[{"tag":"skill:plumbing","count":2,"meanReward":1.5,"currentWeight":80,"learnedWeight":null,
		"skill":{"id":"sk_1","key":"plumbing","name":"Plumbing"}}]}`,
		&WorkerLearningStats{WorkerID: "agent_1", Skills: []SkillStats{{Tag: "skill:plumbing", Count: 2, MeanReward: 1.5, CurrentWeight: Ptr(80.0),
			Skill: map[string]any{"id": "sk_1", "key": "plumbing", "name": "Plumbing"}}}}},
	{"worker.setAvailability with a liveness contract", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.StayAvailable(ctx, 2*time.Minute)
	}, `{"available":true,"staleAfterMs":120000}`, `{"workerId":"agent_1","available":true}`,
		&WorkerAvailability{WorkerID: "agent_1", Available: true}},
	{"worker.startBreak ISO since", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.StartBreak(ctx, StartBreakParams{Reason: "lunch"})
	}, `{"reason":"lunch"}`, `{"workerId":"agent_1","onBreak":true,"since":"2026-07-24T11:30:00.000Z"}`,
		&BreakState{WorkerID: "agent_1", OnBreak: true, Since: breakAt}},
	{"worker.startBreak ISO since without fraction, with offset", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.StartBreak(ctx, StartBreakParams{})
	}, `{}`, `{"workerId":"agent_1","onBreak":true,"since":"2026-07-24T13:30:00+02:00"}`,
		&BreakState{WorkerID: "agent_1", OnBreak: true, Since: breakAt}},
	{"worker.endBreak ISO endedAt", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.EndBreak(ctx)
	}, "", `{"workerId":"agent_1","onBreak":false,"endedAt":"2026-07-24T11:30:00.000Z"}`,
		&BreakState{WorkerID: "agent_1", EndedAt: breakAt}},
	{"worker.endBreak epoch ms still read", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.EndBreak(ctx)
	}, "", `{"workerId":"agent_1","onBreak":false,"endedAt":1784892600000}`,
		&BreakState{WorkerID: "agent_1", EndedAt: breakAt}},
	{"worker.me on a break", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.Me(ctx)
	}, "", `{"workerId":"agent_1","label":"desk 4","available":true,"pendingApproval":false,"onBreak":true,
		"breakStartedAt":"2026-07-24T11:30:00.000Z","skills":[{"skillId":"sk_1","key":"spanish","name":"Spanish","level":2,"weight":40}],
		"skillSetupPending":true,"locale":"et"}`,
		&WorkerProfile{WorkerID: "agent_1", Label: "desk 4", Available: true, OnBreak: true, BreakStartedAt: breakAt, SkillSetupPending: true, Locale: "et",
			Skills: []WorkerSkill{{SkillID: "sk_1", Key: "spanish", Name: "Spanish", Level: 2, Weight: 40}}}},
}

func TestPlatformWireShapes(t *testing.T) {
	for _, tc := range platformCases {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, map[string]string{"Content-Type": "application/json"}, tc.answer)
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
			signIn(w)

			got, err := tc.call(context.Background(), c, w)
			require.NoError(t, err)

			reqs := rec.all()
			require.Len(t, reqs, 1)
			var wantBody any
			if tc.wantBody != "" {
				wantBody = jsonValue(t, []byte(tc.wantBody))
			}
			diff(t, "request body", wantBody, jsonValue(t, reqs[0].Body))
			checkRequestContract(t, reqs[0])
			diff(t, "decoded answer", tc.want, got, rawOpts(), cmpopts.IgnoreFields(WorkerProfile{}, "Raw"))
		})
	}
}
