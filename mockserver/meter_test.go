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

// TestMeterCountsTasksFirstOfferedInTheUTCMonth holds the meter of GET /stats to its rule
// (docs/contract.md, "Stats"): `meter.period` is the clock's UTC month and
// `meter.matchedTasks` counts the tasks first offered in it, from its first nanosecond on.
// The clock runs in a zone five hours behind UTC, so the local month and the UTC month differ
// once it passes midnight UTC. A task first offered in the last nanosecond of October stays
// October's when it is offered again in November.
func TestMeterCountsTasksFirstOfferedInTheUTCMonth(t *testing.T) {
	t.Parallel()
	est := time.FixedZone("EST", -5*3600)
	november := time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC)
	clk := mockserver.NewManualClock(november.Add(-time.Nanosecond).In(est)) // 18:59:59.999999999 local, Oct 31
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	must := func(_ any, err error) { t.Helper(); require.NoError(t, err) }
	meter := func() taskrouting.StatsMeter {
		t.Helper()
		s, err := c.Stats.Get(ctx)
		require.NoError(t, err)
		return s.Meter
	}
	check := func(when string, want taskrouting.StatsMeter) {
		t.Helper()
		if diff := cmp.Diff(want, meter()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", when, diff)
		}
	}

	must(c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"english"}, Available: taskrouting.Ptr(true)}))
	require.Equal(t, "ana", offeredTo(t, c, "late"), "first offered in October's last nanosecond")
	check("October's last nanosecond", taskrouting.StatsMeter{Period: "2026-10", MatchedTasks: 1, IncludedTasksPerMonth: mockserver.Unlimited})

	clk.Advance(time.Nanosecond) // midnight UTC, 19:00 on Oct 31 in the clock's zone
	check("November's first nanosecond, nothing offered yet", taskrouting.StatsMeter{Period: "2026-11", MatchedTasks: 0, IncludedTasksPerMonth: mockserver.Unlimited})

	must(c.Decisions.Reject(ctx, "late", "ana"))
	must(c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ben", Tags: []string{"english"}, Available: taskrouting.Ptr(true)}))
	task, err := c.Tasks.Get(ctx, "late")
	require.NoError(t, err)
	require.Equal(t, "ben", task.WorkerID, "late is offered again, in November")
	offeredTo(t, c, "first")
	check("midnight UTC: late's second offer and first's first offer", taskrouting.StatsMeter{Period: "2026-11", MatchedTasks: 1, IncludedTasksPerMonth: mockserver.Unlimited})
}
