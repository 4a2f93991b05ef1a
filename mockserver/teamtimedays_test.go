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

// TestTeamTimeSplitsAShiftAtUTCMidnight holds the day series of GET /team/time?entries=true
// to UTC days: a shift from 23:00 to 01:00 counts one hour on each side of midnight, and
// each day counts only its own part (a later shift on the second day included), while the
// worker's row counts the whole.
func TestTeamTimeSplitsAShiftAtUTCMidnight(t *testing.T) {
	t.Parallel()
	day1 := time.Date(2025, 11, 21, 0, 0, 0, 0, time.UTC)
	c, clk, shift := teamTimeWorker(t, day1.Add(23*time.Hour))
	ctx := context.Background()
	shift(true)                // 23:00 on day 1
	clk.Advance(2 * time.Hour) // 01:00 on day 2
	shift(false)
	clk.Advance(2 * time.Hour) // 03:00
	shift(true)
	clk.Advance(30 * time.Minute) // 03:30, still on shift
	shift(false)
	clk.Advance(time.Hour)

	report, err := c.Teams.Time(ctx, taskrouting.TeamTimeParams{From: day1, Entries: true})
	require.NoError(t, err)
	want := []taskrouting.TeamTimeDay{
		{Day: "2025-11-21", OnShift: time.Hour, Working: time.Hour},
		{Day: "2025-11-22", OnShift: 90 * time.Minute, Working: 90 * time.Minute},
	}
	if diff := cmp.Diff(want, report.Days); diff != "" {
		t.Errorf("days (-want +got):\n%s", diff)
	}
	require.Len(t, report.Workers, 1)
	require.Equal(t, 150*time.Minute, report.Workers[0].OnShift, "the row counts the whole window")
}

// TestTeamTimeLeavesOutDaysWithoutTime: the day series lists only the UTC days with some time
// on shift or on break: a shift that ends at midnight exactly gives the next day nothing, a
// shift that ends the instant it begins gives its day nothing, and such days are left out.
func TestTeamTimeLeavesOutDaysWithoutTime(t *testing.T) {
	t.Parallel()
	day1 := time.Date(2025, 11, 21, 0, 0, 0, 0, time.UTC)
	c, clk, shift := teamTimeWorker(t, day1.Add(23*time.Hour))
	ctx := context.Background()
	shift(true) // 23:00 on day 1
	clk.Advance(time.Hour)
	shift(false)                // midnight exactly
	clk.Advance(36 * time.Hour) // noon of day 3: a shift ended the instant it began
	shift(true)
	shift(false)
	clk.Advance(12 * time.Hour) // midnight of day 4: nothing on days 2 and 3
	shift(true)
	clk.Advance(30 * time.Minute)
	shift(false)

	report, err := c.Teams.Time(ctx, taskrouting.TeamTimeParams{From: day1, Entries: true})
	require.NoError(t, err)
	want := []taskrouting.TeamTimeDay{
		{Day: "2025-11-21", OnShift: time.Hour, Working: time.Hour},
		{Day: "2025-11-24", OnShift: 30 * time.Minute, Working: 30 * time.Minute},
	}
	if diff := cmp.Diff(want, report.Days); diff != "" {
		t.Errorf("days (-want +got):\n%s", diff)
	}
}

// teamTimeWorker starts a mock server on a manual clock at start with one worker, agent_1,
// whose shift starts and ends as shift(true) and shift(false) make it available or not.
func teamTimeWorker(t *testing.T, start time.Time) (*taskrouting.Client, *mockserver.ManualClock, func(on bool)) {
	clk := mockserver.NewManualClock(start)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	return c, clk, func(on bool) {
		t.Helper()
		_, err := c.Workers.Upsert(context.Background(), taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}, Available: taskrouting.Ptr(on)})
		require.NoError(t, err)
	}
}
