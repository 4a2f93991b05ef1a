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

// TestHistoryWorkerDaysCountEveryOutcome reads one worker's day buckets over the default
// window of bucket=day (the seven days up to now) after each way an offer can end, played on
// the manual clock:
//
//	+0     t1 offered and rejected; t2 offered and accepted
//	+1m    t2 failed; t3 offered
//	+2m    t3's offer expires (60 s), so it is offered again
//	+2m30s paused, releasing t3
//
// The counters land in today's bucket only; the six days before count zero.
func TestHistoryWorkerDaysCountEveryOutcome(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	must := func(_ any, err error) { t.Helper(); require.NoError(t, err) }

	must(c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"english"}, Available: taskrouting.Ptr(true)}))
	require.Equal(t, "ana", offeredTo(t, c, "t1"))
	must(c.Decisions.Reject(ctx, "t1", "ana"))
	require.Equal(t, "ana", offeredTo(t, c, "t2"))
	must(c.Decisions.Accept(ctx, "t2", "ana"))
	clk.Set(t0.Add(time.Minute))
	must(c.Tasks.Fail(ctx, "t2", taskrouting.FailTaskParams{WorkerID: "ana", Reason: "no stock"}))
	require.Equal(t, "ana", offeredTo(t, c, "t3"))
	clk.Set(t0.Add(2*time.Minute + 30*time.Second))
	must(c.Workers.SetAvailability(ctx, "ana", taskrouting.SetAvailabilityParams{ReleaseBacklog: true}))

	got, err := c.Stats.WorkerTimeseries(ctx, "ana", taskrouting.StatsWindow{Bucket: "day"})
	require.NoError(t, err)
	now := t0.Add(2*time.Minute + 30*time.Second)
	require.Equal(t, now, got.To, "to defaults to now")
	require.Equal(t, now.Add(-7*24*time.Hour), got.From, "from defaults to a week before to")
	type counters struct {
		Start                                                  time.Time
		Offered, Accepted, Rejected, Failed, Expired, Released int
	}
	deref := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	var rows []counters
	for _, b := range got.Buckets {
		rows = append(rows, counters{b.Start, deref(b.Offered), deref(b.Accepted), deref(b.Rejected), deref(b.Failed), deref(b.Expired), deref(b.Released)})
	}
	var want []counters
	for d := 7; d > 0; d-- {
		want = append(want, counters{Start: t0.Truncate(24 * time.Hour).Add(-time.Duration(d) * 24 * time.Hour)})
	}
	// Offers: t1, t2, t3, and t3 again after it expired.
	want = append(want, counters{Start: t0.Truncate(24 * time.Hour), Offered: 4, Accepted: 1, Rejected: 1, Failed: 1, Expired: 1, Released: 1})
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("ana's days (-want +got):\n%s", diff)
	}
}
