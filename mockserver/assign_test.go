package mockserver_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// A vetoed worker never gets the task, not even by a forced assignment: force stretches the
// backlog cap and nothing else.
func TestAssignRefusesAVetoedWorker(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	for _, id := range []string{"w1", "w2"} {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"x"}, Available: taskrouting.Ptr(true)})
		require.NoError(t, err)
	}
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"x"}, VetoedWorkers: []string{"w2"}})
	require.NoError(t, err)

	_, err = c.Tasks.Assign(ctx, "t1", taskrouting.AssignTaskParams{WorkerID: "w2", Force: true})
	var apiErr *taskrouting.APIError
	require.True(t, errors.As(err, &apiErr), "want an APIError, got %v", err)
	assert.Equal(t, 409, apiErr.StatusCode)
	assert.Equal(t, "invalid_state", apiErr.Code)
	assert.Contains(t, apiErr.Message, "vetoed")

	task, err := c.Tasks.Get(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, "w1", task.WorkerID, "the refused assignment changed nothing")
}
