package taskrouting

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHistoryWire(t *testing.T) {
	hour := time.Date(2025, 11, 21, 4, 0, 0, 0, time.UTC)
	n := func(v int) *int { return &v }
	runStatsWire(t, []statsWireCase{
		{"timeseries with a window", "history.timeseries", func(ctx context.Context, c *Client) (any, error) {
			return c.Stats.Timeseries(ctx, StatsWindow{From: hour, To: hour.Add(2 * time.Hour), Bucket: "hour"})
		}, "/stats/timeseries?bucket=hour&from=2025-11-21T04%3A00%3A00.000Z&to=2025-11-21T06%3A00%3A00.000Z",
			`{"from":"2025-11-21T04:00:00.000Z","to":"2025-11-21T06:00:00.000Z","bucket":"hour","buckets":[
			{"bucketStart":"2025-11-21T04:00:00.000Z","completed":2,"cancelled":1,"avgWaitMs":1500,"p50WaitMs":1000,"p95WaitMs":2000,"avgHandleMs":60000},
			{"bucketStart":"2025-11-21T05:00:00.000Z","completed":0,"cancelled":0,"avgWaitMs":null,"p50WaitMs":null,"p95WaitMs":null,"avgHandleMs":null}]}`,
			&StatsTimeseries{From: hour, To: hour.Add(2 * time.Hour), Bucket: "hour", Buckets: []FlowBucket{
				{Start: hour, Completed: 2, Cancelled: 1, AvgWait: durp(1500 * time.Millisecond), P50Wait: durp(time.Second),
					P95Wait: durp(2 * time.Second), AvgHandle: durp(time.Minute)},
				{Start: hour.Add(time.Hour)},
			}}},
		{"timeseries with the server's defaults and bare dates", "history.timeseries", func(ctx context.Context, c *Client) (any, error) {
			return c.Stats.Timeseries(ctx, StatsWindow{})
		}, "/stats/timeseries", `{"from":"2025-11-20","to":"2025-11-21","bucket":"day","buckets":[]}`,
			&StatsTimeseries{From: hour.Truncate(24 * time.Hour).Add(-24 * time.Hour), To: hour.Truncate(24 * time.Hour), Bucket: "day", Buckets: []FlowBucket{}}},
		{"workers of a team", "history.workers", func(ctx context.Context, c *Client) (any, error) {
			h, err := c.Stats.Workers(ctx, WorkerStatsParams{StatsWindow: StatsWindow{Bucket: "day"}, TeamID: "team_1"})
			if h != nil {
				for i := range h.Workers {
					h.Workers[i].Raw = nil
				}
			}
			return h, err
		}, "/stats/workers?bucket=day&teamId=team_1",
			`{"from":"2025-11-21T04:00:00.000Z","to":"2025-11-21T06:00:00.000Z","workers":[
			{"workerId":"ana","completed":3,"cancelled":0,"avgWaitMs":1000,"avgHandleMs":90000,"p50HandleMs":80000,"p95HandleMs":120000,
			"offered":5,"accepted":4,"rejected":1,"failed":0,"expired":0,"released":0,"acceptanceRate":0.8,
			"onShiftMs":3600000,"breakMs":600000,"workingMs":3000000,"shiftCount":1,"utilization":0.09},
			{"workerId":"ben","completed":0,"cancelled":0,"avgWaitMs":null,"avgHandleMs":null,"acceptanceRate":null,"utilization":null}]}`,
			&WorkerHistory{From: hour, To: hour.Add(2 * time.Hour), Workers: []WorkerProductivity{
				{WorkerID: "ana", Completed: 3, AvgWait: durp(time.Second), AvgHandle: durp(90 * time.Second),
					P50Handle: durp(80 * time.Second), P95Handle: durp(2 * time.Minute), Offered: 5, Accepted: 4, Rejected: 1,
					AcceptanceRate: Ptr(0.8), OnShift: time.Hour, Break: 10 * time.Minute, Working: 50 * time.Minute,
					ShiftCount: 1, Utilization: Ptr(0.09)},
				{WorkerID: "ben"},
			}}},
		{"a worker's days escape the id", "history.workerTimeseries", func(ctx context.Context, c *Client) (any, error) {
			return c.Stats.WorkerTimeseries(ctx, "ana b", StatsWindow{Bucket: "day"})
		}, "/stats/workers/ana%20b/timeseries?bucket=day",
			`{"workerId":"ana b","from":"2025-11-21T00:00:00.000Z","to":"2025-11-22T00:00:00.000Z","bucket":"day","buckets":[
			{"bucketStart":"2025-11-21T00:00:00.000Z","completed":1,"cancelled":0,"onShiftMs":28800000,"breakMs":null,"workingMs":null,
			"offered":4,"accepted":1,"rejected":2,"failed":0,"expired":1,"released":0}]}`,
			&WorkerTimeseries{WorkerID: "ana b", From: hour.Truncate(24 * time.Hour), To: hour.Truncate(24 * time.Hour).Add(24 * time.Hour), Bucket: "day",
				Buckets: []WorkerBucket{{FlowBucket: FlowBucket{Start: hour.Truncate(24 * time.Hour), Completed: 1}, OnShift: durp(8 * time.Hour),
					Offered: n(4), Accepted: n(1), Rejected: n(2), Failed: n(0), Expired: n(1), Released: n(0)}}}},
	})
}

// TestWorkerProductivityKeepsRaw checks that the members the platform
// merges into a row stay reachable.
func TestWorkerProductivityKeepsRaw(t *testing.T) {
	var p WorkerProductivity
	require.NoError(t, p.UnmarshalJSON([]byte(`{"workerId":"ana","completed":1,"shiftMs":5}`)))
	assert.JSONEq(t, `{"workerId":"ana","completed":1,"shiftMs":5}`, string(p.Raw))
}

// TestHistoryRefusedBeforeSending checks that input the platform would
// refuse is a *ParamError and nothing reaches the server.
func TestHistoryRefusedBeforeSending(t *testing.T) {
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client) error
		param string
	}{
		{"unknown bucket", func(ctx context.Context, c *Client) error {
			_, err := c.Stats.Timeseries(ctx, StatsWindow{Bucket: "week"})
			return err
		}, "StatsWindow.Bucket"},
		{"to before from", func(ctx context.Context, c *Client) error {
			_, err := c.Stats.Timeseries(ctx, StatsWindow{From: t0, To: t0.Add(-time.Second)})
			return err
		}, "StatsWindow.To"},
		{"team id too long", func(ctx context.Context, c *Client) error {
			_, err := c.Stats.Workers(ctx, WorkerStatsParams{TeamID: string(make([]byte, 65))})
			return err
		}, "WorkerStatsParams.TeamID"},
		{"worker series without worker", func(ctx context.Context, c *Client) error {
			_, err := c.Stats.WorkerTimeseries(ctx, "", StatsWindow{})
			return err
		}, "workerID"},
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
