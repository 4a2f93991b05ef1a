package taskrouting

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statsWireCase is one read of the stats group on the wire: the request it
// sends and how it decodes the platform's answer, which is held to
// api/openapi.json.
type statsWireCase struct {
	name     string
	op       string
	call     func(ctx context.Context, c *Client) (any, error)
	wantPath string // with the query, keys sorted
	answer   string
	want     any
}

func runStatsWire(t *testing.T, cases []statsWireCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, map[string]string{"Content-Type": "application/json"}, tc.answer)
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))

			got, err := tc.call(context.Background(), c)
			require.NoError(t, err)

			reqs := rec.all()
			require.Len(t, reqs, 1)
			assert.Equal(t, "GET", reqs[0].Method)
			path := reqs[0].Path
			if len(reqs[0].Query) > 0 {
				path += "?" + reqs[0].Query.Encode()
			}
			assert.Equal(t, tc.wantPath, path)
			assert.Empty(t, reqs[0].Body)
			checkOperationReached(t, tc.op, checkRequestContract(t, reqs[0]))

			contract, err := wireContract()
			require.NoError(t, err)
			assert.NoError(t, contract.ValidateResponse(tc.op, 200, []byte(tc.answer)), "the served answer is not the platform's shape")
			diff(t, "decoded answer", tc.want, got)
		})
	}
}

func durp(d time.Duration) *time.Duration { return &d }

func TestStatsWire(t *testing.T) {
	half := 0.5
	runStatsWire(t, []statsWireCase{
		{"stats", "stats", func(ctx context.Context, c *Client) (any, error) {
			return c.Stats.Get(ctx)
		}, "/stats",
			`{"plan":"growth","tasks":{"queued":2,"completed":5},"workers":3,
			"meter":{"period":"2025-11","matchedTasks":7,"includedTasksPerMonth":10000},
			"queue":{"oldestWaitingMs":1500,"perWorker":[{"workerId":"ana","backlog":1,"maxBacklogSize":9,"available":true}]},
			"matching":{"fairness":"best-match","maxTasksPerWindow":5,"windowMs":60000}}`,
			&WorkspaceStats{Plan: "growth", Tasks: map[string]int{"queued": 2, "completed": 5}, Workers: 3,
				Meter: StatsMeter{Period: "2025-11", MatchedTasks: 7, IncludedTasksPerMonth: 10000},
				Queue: QueueStats{OldestWaiting: durp(1500 * time.Millisecond),
					PerWorker: []WorkerBacklog{{WorkerID: "ana", Backlog: 1, MaxBacklogSize: 9, Available: true}}},
				Matching: MatchingSettings{Fairness: "best-match", MaxTasksPerWindow: Ptr(5), Window: durp(time.Minute)}}},
		{"stats with the members the platform may leave out", "stats", func(ctx context.Context, c *Client) (any, error) {
			return c.Stats.Get(ctx)
		}, "/stats", `{"plan":"free","tasks":{},"workers":0,"queue":{"oldestWaitingMs":null}}`,
			&WorkspaceStats{Plan: "free", Tasks: map[string]int{}}},
		{"sla over every tag", "slaStats", func(ctx context.Context, c *Client) (any, error) {
			return c.Stats.SLA(ctx, "")
		}, "/stats/sla",
			`{"tag":null,"offers":4,"acceptedInTime":2,"acceptanceBreaches":1,"completionBreaches":1,"ttlExpiries":0,
			"rejectionParked":0,"scheduleMisses":0,"meanAcceptLatencyMs":2500.5,"meanCompleteLatencyMs":60000,"acceptanceRate":0.5}`,
			&SLAStats{Offers: 4, AcceptedInTime: 2, AcceptanceBreaches: 1, CompletionBreaches: 1,
				MeanAcceptLatency: 2500500 * time.Microsecond, MeanCompleteLatency: time.Minute, AcceptanceRate: &half}},
		{"sla of one tag, nothing measured", "slaStats", func(ctx context.Context, c *Client) (any, error) {
			return c.Stats.SLA(ctx, "voice & chat")
		}, "/stats/sla?tag=voice+%26+chat", `{"tag":"voice & chat","offers":0,"acceptanceRate":null}`,
			&SLAStats{Tag: "voice & chat"}},
		{"queue audit with every switch", "queueAudit", func(ctx context.Context, c *Client) (any, error) {
			return c.Stats.QueueAudit(ctx, QueueAuditParams{Limit: 10, MinWaiting: 90 * time.Second, IncludeHealthy: true})
		}, "/stats/queue-audit?includeHealthy=true&limit=10&minWaitingMs=90000",
			`{"evaluatedAt":1763700000000,"scanned":3,"entries":[{"taskId":"t1","tags":["spanish"],"waitingMs":120000,
			"eligibleWorkerCount":0,"uncoveredTags":["spanish"],"blockers":{"unavailable":2}},{"taskId":"t2","waitingMs":null}],
			"sweepBacklog":{"scheduleActivations":1,"responseDeadlines":2}}`,
			&QueueAudit{EvaluatedAt: t0, Scanned: 3, Entries: []QueueAuditEntry{
				{TaskID: "t1", Tags: []string{"spanish"}, Waiting: durp(2 * time.Minute), UncoveredTags: []string{"spanish"}, Blockers: map[string]int{"unavailable": 2}},
				{TaskID: "t2"},
			}, SweepBacklog: SweepBacklog{ScheduleActivations: 1, ResponseDeadlines: 2}}},
		{"queue audit with defaults sends no query", "queueAudit", func(ctx context.Context, c *Client) (any, error) {
			return c.Stats.QueueAudit(ctx, QueueAuditParams{})
		}, "/stats/queue-audit", `{"evaluatedAt":1763700000000,"entries":[]}`,
			&QueueAudit{EvaluatedAt: t0, Entries: []QueueAuditEntry{}}},
	})
}

// TestStatsRefusedBeforeSending checks that input the platform would refuse
// is a *ParamError and nothing reaches the server.
func TestStatsRefusedBeforeSending(t *testing.T) {
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client) error
		param string
	}{
		{"audit limit over 200", func(ctx context.Context, c *Client) error {
			_, err := c.Stats.QueueAudit(ctx, QueueAuditParams{Limit: 201})
			return err
		}, "QueueAuditParams.Limit"},
		{"audit negative limit", func(ctx context.Context, c *Client) error {
			_, err := c.Stats.QueueAudit(ctx, QueueAuditParams{Limit: -1})
			return err
		}, "QueueAuditParams.Limit"},
		{"audit negative wait", func(ctx context.Context, c *Client) error {
			_, err := c.Stats.QueueAudit(ctx, QueueAuditParams{MinWaiting: -time.Second})
			return err
		}, "QueueAuditParams.MinWaiting"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, `{}`)
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			err := tc.call(context.Background(), c)
			var pe *ParamError
			require.True(t, errors.As(err, &pe), "got %v", err)
			assert.Equal(t, tc.param, pe.Param)
			assert.Empty(t, rec.all())
		})
	}
}
