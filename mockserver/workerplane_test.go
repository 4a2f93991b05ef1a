package mockserver_test

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

// TestWorkerPlane runs a worker's own session over real HTTP: sign in, go on shift, take an
// offer, break (no offers to it while others get them), end the break and get the next one.
func TestWorkerPlane(t *testing.T) {
	t.Parallel()
	clk := mockserver.NewManualClock(time.UnixMilli(1763700000000))
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	for _, id := range []string{"agent_1", "agent_2"} {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"english"}})
		require.NoError(t, err)
	}
	_, err := c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)

	w, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("0000")})
	assert.ErrorIs(t, err, taskrouting.ErrInvalidCredentials)
	require.NoError(t, sessionErr(w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})))

	_, err = w.SetAvailability(ctx, true)
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"english"}})
	require.NoError(t, err)
	q, err := w.Queue(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"t1"}, q.TaskIDs)
	_, err = w.Accept(ctx, "t1")
	require.NoError(t, err)

	br, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
	require.NoError(t, err)
	assert.True(t, br.OnBreak)
	_, err = w.StartBreak(ctx, taskrouting.StartBreakParams{})
	assert.ErrorIs(t, err, taskrouting.ErrBreakAlreadyOpen)
	_, err = c.Workers.SetAvailability(ctx, "agent_2", taskrouting.SetAvailabilityParams{Available: true})
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t2", Tags: []string{"english"}})
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t3", Tags: []string{"english"}})
	require.NoError(t, err)
	q, err = w.Queue(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, q.TaskIDs, "no offers during a break")
	other, err := c.Workers.Queue(ctx, "agent_2")
	require.NoError(t, err)
	assert.Equal(t, []string{"t2", "t3"}, other.TaskIDs, "the other worker gets them")
	_, err = w.Task(ctx, "t2")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound, "another worker's task is not found")
	me, err := w.Me(ctx)
	require.NoError(t, err)
	assert.True(t, me.OnBreak)

	_, err = c.Workers.SetAvailability(ctx, "agent_2", taskrouting.SetAvailabilityParams{Available: false})
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t4", Tags: []string{"english"}})
	require.NoError(t, err)
	clk.Advance(30 * time.Second)
	ended, err := w.EndBreak(ctx)
	require.NoError(t, err)
	require.NotNil(t, ended)
	assert.True(t, time.UnixMilli(1763700030000).Equal(ended.EndedAt))
	none, err := w.EndBreak(ctx)
	assert.NoError(t, err)
	assert.Nil(t, none, "ending with no break open is not an error")
	q, err = w.Queue(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"t4"}, q.TaskIDs, "offers resume after the break")

	var kinds []string
	for _, e := range srv.Events() {
		if e.TaskID == "" {
			kinds = append(kinds, string(e.Kind))
		}
	}
	assert.Empty(t, cmp.Diff([]string{"worker.break_started", "worker.break_ended"}, kinds))

	require.NoError(t, c.Workers.RemoveIdentity(ctx, "agent_1"))
	_, err = w.Me(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized, "a revoked sign-in is 401")

	// A worker token never reaches the workspace plane.
	_, err = c.Workers.SetIdentity(ctx, "agent_2", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("1234")})
	require.NoError(t, err)
	w2, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	require.NoError(t, sessionErr(w2.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_2", PIN: taskrouting.NewSecret("1234")})))
	require.NoError(t, w2.Logout(ctx))
	_, err = w2.Me(ctx)
	assert.Error(t, err, "signed out")
}
