package mockservertests

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// newClient returns a client for srv. Retry waits are short so a test that meets a fault does
// not wait the production backoff.
func newClient(t *testing.T, srv *mockserver.Server, opts ...taskrouting.RequestOption) *taskrouting.Client {
	t.Helper()
	opts = append([]taskrouting.RequestOption{taskrouting.WithRetryWait(time.Millisecond, 10*time.Millisecond)}, opts...)
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), opts...)
	require.NoError(t, err)
	return c
}

func upsertWorkers(t *testing.T, c *taskrouting.Client, ws ...taskrouting.UpsertWorkerParams) {
	t.Helper()
	for _, w := range ws {
		_, err := c.Workers.Upsert(context.Background(), w)
		require.NoError(t, err)
	}
}

// An offer nobody answers runs out when the clock passes respondWithin. With onNoResponse
// "block" the silent worker is vetoed, so the task goes to the next one. The clock only moves
// when the test says so: no sleeping, no flakiness.
func TestOfferExpiresAndGoesToTheNextWorker(t *testing.T) {
	ctx := context.Background()
	clk := mockserver.NewManualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv)
	upsertWorkers(t, c,
		taskrouting.UpsertWorkerParams{ID: "senior", Tags: []string{"billing"}, RoutingWeights: map[string]float64{"billing": 5}, Available: taskrouting.Ptr(true)},
		taskrouting.UpsertWorkerParams{ID: "junior", Tags: []string{"billing"}, Available: taskrouting.Ptr(true)},
	)
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{
		Tags:       []string{"billing"},
		Escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: 30 * time.Second, OnNoResponse: "block"}),
	})
	require.NoError(t, err)

	holder := func() string {
		t.Helper()
		task, err := c.Tasks.Get(ctx, ref.ID)
		require.NoError(t, err)
		require.Equal(t, taskrouting.TaskStatusPending, task.Status)
		return task.WorkerID
	}
	assert.Equal(t, "senior", holder(), "the higher weight wins first")

	clk.Advance(29 * time.Second)
	assert.Equal(t, "senior", holder(), "the offer is still open one second before its deadline")

	// Advance returns after the expiry and the rematch it causes have happened.
	clk.Advance(2 * time.Second)
	assert.Equal(t, "junior", holder())

	var kinds []string
	for _, ev := range srv.Events() {
		kinds = append(kinds, string(ev.Kind)+" "+ev.WorkerID)
	}
	want := []string{"task.matched senior", "task.expired senior", "task.matched junior"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// What follows an expired offer depends on the task's onNoResponse: by default ("allow") the
// silent worker stays eligible and, as the best candidate still, is offered the task again;
// with "block" it is vetoed for the task, which goes to the next worker or waits. The README's
// test snippet ("Testing with the mock server in ten lines") relies on the first row.
func TestExpiredOfferGoesBackToTheSameWorkerByDefault(t *testing.T) {
	cases := []struct {
		name       string
		escalation taskrouting.Nullable[taskrouting.Escalation]
		workers    []string
		wantStatus taskrouting.TaskStatus
		wantWorker string
		wantEvents []string
	}{
		{name: "default: the same worker again", workers: []string{"a1"},
			wantStatus: taskrouting.TaskStatusPending, wantWorker: "a1",
			wantEvents: []string{"task.matched a1", "task.expired a1", "task.matched a1"}},
		{name: "default with another worker free: still the same one", workers: []string{"a1", "a2"},
			wantStatus: taskrouting.TaskStatusPending, wantWorker: "a1",
			wantEvents: []string{"task.matched a1", "task.expired a1", "task.matched a1"}},
		{name: "block: the next worker", workers: []string{"a1", "a2"},
			escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: time.Minute, OnNoResponse: taskrouting.NoResponseBlock}),
			wantStatus: taskrouting.TaskStatusPending, wantWorker: "a2",
			wantEvents: []string{"task.matched a1", "task.expired a1", "task.matched a2"}},
		{name: "block without another worker: it waits", workers: []string{"a1"},
			escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: time.Minute, OnNoResponse: taskrouting.NoResponseBlock}),
			wantStatus: taskrouting.TaskStatusQueued,
			wantEvents: []string{"task.matched a1", "task.expired a1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := mockserver.NewManualClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
			srv := mockserver.Start(t, mockserver.WithClock(clk))
			c := newClient(t, srv)
			ctx := t.Context()
			for _, id := range tc.workers {
				upsertWorkers(t, c, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"en"}, Available: taskrouting.Ptr(true)})
			}
			ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"en"}, Escalation: tc.escalation})
			require.NoError(t, err)
			clk.Advance(61 * time.Second) // past the default 60 s offer timeout
			task, err := c.Tasks.Get(ctx, ref.ID)
			require.NoError(t, err)
			assert.Equal(t, tc.wantStatus, task.Status)
			assert.Equal(t, tc.wantWorker, task.WorkerID)
			var kinds []string
			for _, ev := range srv.Events() {
				kinds = append(kinds, string(ev.Kind)+" "+ev.WorkerID)
			}
			if diff := cmp.Diff(tc.wantEvents, kinds); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
