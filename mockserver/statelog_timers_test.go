package mockserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestSavedStateCarriesRunTimeouts: a workflow step's timeout is work the clock fires, like
// an offer expiry, so the state log must hold the moment it fired; restoring the saved state
// fires it again at that moment. A read fires nothing (exec), so a read past the deadline
// logs no moment either: the run it reads is still active in the saved state and in the
// restored one, and the timeout fires at the next command or clock visit of either.
func TestSavedStateCarriesRunTimeouts(t *testing.T) {
	type outcome struct {
		Ticks     []time.Time // the tick entries of the saved commands
		Status    string      // the run, read on the restored server
		UpdatedAt time.Time
		Task      string // the step's task, read on the restored server
	}
	cases := []struct {
		name string
		// start makes the server with its clock and returns a function that moves the clock.
		start func(t *testing.T) (*Server, func(time.Duration))
		// restored makes the server the state is restored into.
		restored func(t *testing.T) *Server
		want     outcome
	}{
		{
			name: "timed out by the manual clock",
			start: func(t *testing.T) (*Server, func(time.Duration)) {
				clk := NewManualClock(t0)
				return Start(t, WithClock(clk)), clk.Advance
			},
			restored: func(t *testing.T) *Server { return Start(t, WithClock(NewManualClock(t0))) },
			want:     outcome{Ticks: []time.Time{t0.Add(30 * time.Second)}, Status: "failed", UpdatedAt: t0.Add(30 * time.Second), Task: "cancelled"},
		},
		{
			name: "read past the deadline on a clock that is not manual",
			start: func(t *testing.T) (*Server, func(time.Duration)) {
				clk := &settableClock{now: t0}
				return Start(t, WithClock(clk), withoutTimerLoop()), clk.add
			},
			restored: func(t *testing.T) *Server { return Start(t, WithClock(&settableClock{now: t0}), withoutTimerLoop()) },
			want:     outcome{Status: "active", UpdatedAt: t0, Task: "pending"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, move := tc.start(t)
			mustAPI(t, a, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}, "available": true})
			mustAPI(t, a, 200, "PUT", "/workflows/wf", map[string]any{"name": "wf", "initialStepId": "collect", "steps": []any{
				map[string]any{"id": "collect", "name": "Collect", "taskType": "assignment",
					"assignmentTemplate": map[string]any{"tags": []string{"en"}}, "timeoutMs": 30000}}})
			run := mustAPI(t, a, 201, "POST", "/workflows/wf/runs", map[string]any{}).json(t)
			runID, taskID := run["id"].(string), run["currentTaskId"].(string)
			move(31 * time.Second)
			mustAPI(t, a, 200, "GET", "/workflow-runs/"+runID, nil)
			saved, err := a.Snapshot(context.Background())
			require.NoError(t, err)

			var doc struct {
				Workspaces []struct{ Commands []stateCommand }
			}
			require.NoError(t, json.Unmarshal(saved, &doc))
			var got outcome
			for _, c := range doc.Workspaces[0].Commands {
				if c.Tick {
					got.Ticks = append(got.Ticks, c.At)
				}
			}
			b := tc.restored(t)
			require.NoError(t, b.Restore(context.Background(), saved))
			r := mustAPI(t, b, 200, "GET", "/workflow-runs/"+runID, nil).json(t)
			got.Status = r["status"].(string)
			got.UpdatedAt = time.UnixMilli(int64(r["updatedAt"].(float64))).UTC()
			got.Task = mustAPI(t, b, 200, "GET", "/tasks/"+taskID, nil).json(t)["status"].(string)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("saved and restored (-want +got):\n%s", d)
			}
		})
	}
}
