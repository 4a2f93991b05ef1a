package mockserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// statsScenario plays a short day on the manual clock (offer timeout 60 s):
//
//	+0s    ana, ben (cap 1) available; t1 offered to ana
//	+10s   ana accepts t1                  (accept latency 10 s)
//	+40s   ana completes t1                (handling 30 s); t2 offered to ana
//	+100s  t2's offer expires, which blocks ana (onNoResponse block); t2 offered to ben;
//	       t3 (spanish) queued
//	+130s  ben rejects t2, which stays queued; t4 queued, vetoing both
func statsScenario(t *testing.T) (*taskrouting.Client, time.Time) {
	t.Helper()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	must := func(_ any, err error) { t.Helper(); require.NoError(t, err) }

	must(c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"english"}, Available: taskrouting.Ptr(true)}))
	must(c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ben", Tags: []string{"english"}, MaxBacklogSize: taskrouting.Ptr(1), Available: taskrouting.Ptr(true)}))
	require.Equal(t, "ana", offeredTo(t, c, "t1"))
	clk.Advance(10 * time.Second)
	must(c.Decisions.Accept(ctx, "t1", "ana"))
	clk.Advance(30 * time.Second)
	must(c.Decisions.Complete(ctx, "t1", "ana", nil))
	must(c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t2", Tags: []string{"english"},
		Escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: time.Minute, OnNoResponse: taskrouting.NoResponseBlock})}))
	clk.Advance(60 * time.Second)
	task, err := c.Tasks.Get(ctx, "t2")
	require.NoError(t, err)
	require.Equal(t, "ben", task.WorkerID, "ana was blocked by her silence")
	must(c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t3", Tags: []string{"spanish"}}))
	clk.Advance(30 * time.Second)
	must(c.Decisions.Reject(ctx, "t2", "ben"))
	must(c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t4", Tags: []string{"english"}, VetoedWorkers: []string{"ana", "ben"}}))
	return c, t0
}

func TestStatsFromWhatHappened(t *testing.T) {
	t.Parallel()
	c, _ := statsScenario(t)
	got, err := c.Stats.Get(context.Background())
	require.NoError(t, err)
	oldest := 90 * time.Second // t2, created at +40s, read at +130s
	want := &taskrouting.WorkspaceStats{
		Plan: "sandbox",
		Tasks: map[string]int{"scheduled": 0, "queued": 3, "pending": 0, "accepted": 0, "parked": 0,
			"completed": 1, "cancelled": 0, "failed": 0, "expired": 0},
		Workers: 2,
		Meter:   taskrouting.StatsMeter{Period: "2025-11", MatchedTasks: 2, IncludedTasksPerMonth: mockserver.Unlimited},
		Queue: taskrouting.QueueStats{OldestWaiting: &oldest, PerWorker: []taskrouting.WorkerBacklog{
			{WorkerID: "ana", Backlog: 0, MaxBacklogSize: 9, Available: true},
			{WorkerID: "ben", Backlog: 0, MaxBacklogSize: 1, Available: true},
		}},
		Matching: taskrouting.MatchingSettings{Fairness: "best-match"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func TestSLAStatsFromWhatHappened(t *testing.T) {
	t.Parallel()
	c, _ := statsScenario(t)
	ctx := context.Background()
	third := 1.0 / 3
	tests := []struct {
		tag  string
		want *taskrouting.SLAStats
	}{
		// 3 offers: t1 accepted after 10 s, t2 expired, t2 rejected.
		{"", &taskrouting.SLAStats{Offers: 3, AcceptedInTime: 1, AcceptanceBreaches: 1,
			MeanAcceptLatency: 10 * time.Second, MeanCompleteLatency: 30 * time.Second, AcceptanceRate: &third}},
		{"english", &taskrouting.SLAStats{Tag: "english", Offers: 3, AcceptedInTime: 1, AcceptanceBreaches: 1,
			MeanAcceptLatency: 10 * time.Second, MeanCompleteLatency: 30 * time.Second, AcceptanceRate: &third}},
		{"spanish", &taskrouting.SLAStats{Tag: "spanish"}}, // nothing offered: no rate at all
	}
	for _, tc := range tests {
		got, err := c.Stats.SLA(ctx, tc.tag)
		require.NoError(t, err)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("tag %q (-want +got):\n%s", tc.tag, diff)
		}
	}
}

// TestSLAStatsFromStoredTerms counts what the task clocks did (a shelf life that ran out
// before an accept, a rejection budget used up, an offer window missed before any worker
// came) and measures the completion window the server stores without enforcing.
func TestSLAStatsFromStoredTerms(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	create := func(p taskrouting.CreateTaskParams) {
		t.Helper()
		p.Tags = []string{"english"}
		_, err := c.Tasks.Create(ctx, p)
		require.NoError(t, err)
	}
	create(taskrouting.CreateTaskParams{ID: "ttl", SLA: taskrouting.Some(taskrouting.SLA{ExpireAfter: 30 * time.Second})})
	create(taskrouting.CreateTaskParams{ID: "slow", SLA: taskrouting.Some(taskrouting.SLA{CompleteWithin: 10 * time.Second})})
	create(taskrouting.CreateTaskParams{ID: "late", Schedule: &taskrouting.Schedule{NotAfter: t0.Add(5 * time.Second)}})
	create(taskrouting.CreateTaskParams{ID: "picky", SLA: taskrouting.Some(taskrouting.SLA{MaxRejections: 1, OnMaxRejections: taskrouting.MaxRejectionsPark})})

	clk.Advance(20 * time.Second)
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"english"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	clk.Advance(5 * time.Second)
	_, err = c.Decisions.Accept(ctx, "slow", "ana")
	require.NoError(t, err)
	_, err = c.Decisions.Reject(ctx, "picky", "ana")
	require.NoError(t, err)

	before, err := c.Stats.SLA(ctx, "")
	require.NoError(t, err)
	third := 1.0 / 3 // "late" left at +5s, before ana came: 3 offers
	want := &taskrouting.SLAStats{Offers: 3, AcceptedInTime: 1, ScheduleMisses: 1, RejectionParked: 1,
		MeanAcceptLatency: 5 * time.Second, AcceptanceRate: &third}
	if diff := cmp.Diff(want, before); diff != "" {
		t.Errorf("at +25s, before any deadline (-want +got):\n%s", diff)
	}

	clk.Advance(15 * time.Second) // +40s: ttl's 30 s and slow's 25+10 s have passed
	after, err := c.Stats.SLA(ctx, "")
	require.NoError(t, err)
	want.TTLExpiries, want.CompletionBreaches = 1, 1
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("at +40s (-want +got):\n%s", diff)
	}
}

func TestQueueAuditFromWhatHappened(t *testing.T) {
	t.Parallel()
	c, t0 := statsScenario(t)
	ctx := context.Background()
	ms := func(d time.Duration) *time.Duration { return &d }
	t2 := taskrouting.QueueAuditEntry{TaskID: "t2", Tags: []string{"english"}, Waiting: ms(90 * time.Second),
		UncoveredTags: []string{}, Blockers: map[string]int{"rejectedPreviously": 2}}
	t3 := taskrouting.QueueAuditEntry{TaskID: "t3", Tags: []string{"spanish"}, Waiting: ms(30 * time.Second),
		UncoveredTags: []string{"spanish"}, Blockers: map[string]int{}}
	t4 := taskrouting.QueueAuditEntry{TaskID: "t4", Tags: []string{"english"}, Waiting: ms(0),
		UncoveredTags: []string{}, Blockers: map[string]int{"vetoed": 2}}
	tests := []struct {
		name string
		p    taskrouting.QueueAuditParams
		want []taskrouting.QueueAuditEntry
	}{
		{"every blocked task, oldest first", taskrouting.QueueAuditParams{}, []taskrouting.QueueAuditEntry{t2, t3, t4}},
		{"waiting at least 31s", taskrouting.QueueAuditParams{MinWaiting: 31 * time.Second}, []taskrouting.QueueAuditEntry{t2}},
		{"limit", taskrouting.QueueAuditParams{Limit: 2, IncludeHealthy: true}, []taskrouting.QueueAuditEntry{t2, t3}},
	}
	for _, tc := range tests {
		got, err := c.Stats.QueueAudit(ctx, tc.p)
		require.NoError(t, err)
		want := &taskrouting.QueueAudit{EvaluatedAt: t0.Add(130 * time.Second), Scanned: 3, Entries: tc.want}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
