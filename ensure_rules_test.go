package taskrouting_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestDecisionsEnsureStateMustBeTheWorkers: a read-back counts only the
// state the caller asked for: a task completed by another worker is no
// completion of workerID's, and a task workerID holds is not rejected.
// Both keep the write's 409.
func TestDecisionsEnsureStateMustBeTheWorkers(t *testing.T) {
	ctx := context.Background()
	t.Run("completed by another worker", func(t *testing.T) {
		srv := mockserver.Start(t)
		c := mockClient(t, srv, taskrouting.WithMaxRetries(0))
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"french"}, Available: taskrouting.Ptr(true)})
		require.NoError(t, err)
		id := offered(t, c, "agent_2", "english")
		_, err = c.Decisions.Accept(ctx, id, "agent_2")
		require.NoError(t, err)
		_, err = c.Decisions.Complete(ctx, id, "agent_2", nil)
		require.NoError(t, err)
		ref, err := c.Decisions.EnsureCompleted(ctx, id, "agent_1", nil)
		assert.ErrorIs(t, err, taskrouting.ErrInvalidState)
		assert.Nil(t, ref)
	})
	t.Run("held by the rejecting worker", func(t *testing.T) {
		srv := mockserver.Start(t)
		c := mockClient(t, srv, taskrouting.WithMaxRetries(0))
		id := offered(t, c, "agent_1", "english")
		_, err := c.Decisions.Accept(ctx, id, "agent_1")
		require.NoError(t, err)
		ref, err := c.Decisions.EnsureRejected(ctx, id, "agent_1")
		assert.ErrorIs(t, err, taskrouting.ErrInvalidState)
		assert.Nil(t, ref)
	})
}

// TestWorkerEnsureAfterA5xx: a 5xx leaves a write's outcome open, so the
// Ensure form reads the state back: success when it holds, the 5xx when
// it does not (a break the 503 never opened), never a panic.
func TestWorkerEnsureAfterA5xx(t *testing.T) {
	ctx := context.Background()
	srv := mockserver.Start(t)
	c := mockClient(t, srv, taskrouting.WithMaxRetries(0))
	id := offered(t, c, "agent_1", "english")
	w := signedInWorker(t, c, srv, "agent_1")
	_, err := w.Accept(ctx, id)
	require.NoError(t, err)
	_, err = w.Complete(ctx, id, nil)
	require.NoError(t, err)
	require.NoError(t, srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/portal/tasks/*/complete", Status: 500, Times: 1}))
	ref, err := w.EnsureCompleted(ctx, id, nil)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TaskRef{ID: id, Status: taskrouting.TaskStatusCompleted}, ref)

	require.NoError(t, srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/portal/breaks/start", Status: 503, Times: 1}))
	b, err := w.EnsureBreakStarted(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
	assert.ErrorIs(t, err, taskrouting.ErrServer)
	assert.Nil(t, b)
}

// TestWorkerEnsureBreakEndedAfterALostAnswer: the read-back of a lost end
// returns the break that ended last, or nil, nil when no break ended
// today, as EndBreak answers with no break open.
func TestWorkerEnsureBreakEndedAfterALostAnswer(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := mockClient(t, srv, taskrouting.WithMaxRetries(0))
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}})
	require.NoError(t, err)
	w := signedInWorker(t, c, srv, "agent_1")
	dropEnd := func() {
		require.NoError(t, srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/portal/breaks/end", DropAfterCommit: true, Times: 1}))
	}

	dropEnd()
	b, err := w.EnsureBreakEnded(ctx)
	require.NoError(t, err, "no break was open")
	assert.Nil(t, b)

	_, err = w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "coffee"})
	require.NoError(t, err)
	clk.Advance(5 * time.Minute)
	_, err = w.EndBreak(ctx)
	require.NoError(t, err)
	clk.Advance(2 * time.Hour)
	_, err = w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
	require.NoError(t, err)
	clk.Advance(30 * time.Minute)
	dropEnd()
	b, err = w.EnsureBreakEnded(ctx)
	require.NoError(t, err)
	require.NotNil(t, b)
	assert.False(t, b.OnBreak)
	assert.True(t, b.EndedAt.Equal(t0.Add(2*time.Hour+35*time.Minute)), "EndedAt %v, want the lunch break's end", b.EndedAt)
}
