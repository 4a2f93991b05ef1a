package mockserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestAssignForceOverridesThePlatformsChecks: tasks.assign makes the platform's four checks
// (paused, backlog cap, veto, earlier rejection) and nothing else, and force overrides every
// one of them, on the workspace plane (409) and the supervisor plane (400 assign_blocked)
// alike. Each setup leaves task t1 not held by w2, the worker the test assigns it to.
func TestAssignForceOverridesThePlatformsChecks(t *testing.T) {
	ctx := context.Background()
	up := func(t *testing.T, c *taskrouting.Client, p taskrouting.UpsertWorkerParams) {
		t.Helper()
		_, err := c.Workers.Upsert(ctx, p)
		require.NoError(t, err)
	}
	task := func(t *testing.T, c *taskrouting.Client, p taskrouting.CreateTaskParams) {
		t.Helper()
		_, err := c.Tasks.Create(ctx, p)
		require.NoError(t, err)
	}
	on := taskrouting.Ptr(true)
	tests := []struct {
		name  string
		setup func(t *testing.T, c *taskrouting.Client)
		code  string // the workspace plane's refusal without force; "" when it succeeds
	}{
		{"paused", func(t *testing.T, c *taskrouting.Client) {
			up(t, c, taskrouting.UpsertWorkerParams{ID: "w2", Tags: []string{"x"}, Available: taskrouting.Ptr(false)})
			task(t, c, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"x"}})
		}, "invalid_state"},
		{"backlog full", func(t *testing.T, c *taskrouting.Client) {
			up(t, c, taskrouting.UpsertWorkerParams{ID: "w2", Tags: []string{"x"}, Available: on, MaxBacklogSize: taskrouting.Ptr(1)})
			task(t, c, taskrouting.CreateTaskParams{ID: "t0", Tags: []string{"x"}}) // fills w2
			task(t, c, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"x"}})
		}, "worker_backlog_full"},
		{"vetoed", func(t *testing.T, c *taskrouting.Client) {
			up(t, c, taskrouting.UpsertWorkerParams{ID: "w2", Tags: []string{"x"}, Available: on})
			task(t, c, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"x"}, VetoedWorkers: []string{"w2"}})
		}, "invalid_state"},
		{"rejected before", func(t *testing.T, c *taskrouting.Client) {
			up(t, c, taskrouting.UpsertWorkerParams{ID: "w2", Tags: []string{"x"}, Available: on})
			task(t, c, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"x"}})
			_, err := c.Decisions.Reject(ctx, "t1", "w2")
			require.NoError(t, err)
		}, "invalid_state"},
		{"lacks the task's tag", func(t *testing.T, c *taskrouting.Client) {
			up(t, c, taskrouting.UpsertWorkerParams{ID: "w2", Tags: []string{"y"}, Available: on})
			task(t, c, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"x"}})
		}, ""},
	}
	for _, tc := range tests {
		for _, plane := range []string{"workspace", "supervisor"} {
			t.Run(tc.name+"/"+plane, func(t *testing.T) {
				t.Parallel()
				srv := mockserver.Start(t)
				c := newClient(t, srv, srv.APIKey())
				tc.setup(t, c)
				var sup *taskrouting.SupervisorClient
				if plane == "supervisor" {
					sup, _ = supervise(t, srv, mockserver.SupervisorInvite{})
				}
				assign := func(force bool) error {
					if sup != nil {
						_, err := sup.Assign(ctx, "t1", "w2", taskrouting.SupervisorAssignParams{Force: force})
						return err
					}
					_, err := c.Tasks.Assign(ctx, "t1", taskrouting.AssignTaskParams{WorkerID: "w2", Force: force})
					return err
				}
				err := assign(false)
				switch {
				case tc.code == "":
					require.NoError(t, err)
				case plane == "supervisor":
					assertCode(t, err, 400, "assign_blocked")
				default:
					assertCode(t, err, 409, tc.code)
				}
				if tc.code != "" {
					got, err := c.Tasks.Get(ctx, "t1")
					require.NoError(t, err)
					assert.NotEqual(t, "w2", got.WorkerID, "a refused assignment changes nothing")
					require.NoError(t, assign(true), "force overrides %s", tc.name)
				}
				got, err := c.Tasks.Get(ctx, "t1")
				require.NoError(t, err)
				assert.Equal(t, "w2", got.WorkerID)
				assert.Equal(t, "pending", string(got.Status))
			})
		}
	}
}
