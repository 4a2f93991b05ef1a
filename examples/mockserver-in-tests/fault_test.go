package mockservertests

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// The server answers the first POST /tasks with 503. A client with retries creates the task
// on the second attempt, which carries the same Idempotency-Key; a client without retries
// sees the 503 as an error it can branch on. Either way nothing is created twice.
func TestCreateThroughA503(t *testing.T) {
	tests := []struct {
		name         string
		maxRetries   int
		wantErr      error
		wantAttempts int
		wantTasks    int
	}{
		{name: "retried", maxRetries: 2, wantAttempts: 2, wantTasks: 1},
		{name: "no retries", maxRetries: 0, wantErr: taskrouting.ErrServer, wantAttempts: 1, wantTasks: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv := mockserver.Start(t)
			require.NoError(t, srv.InjectFault(mockserver.Fault{
				Method: http.MethodPost, Path: "/tasks", Status: http.StatusServiceUnavailable, Times: 1,
			}))
			c := newClient(t, srv, taskrouting.WithMaxRetries(tt.maxRetries))

			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"billing"}})
			if tt.wantErr != nil {
				require.Error(t, err)
				assert.ErrorIs(t, err, tt.wantErr)
				var apiErr *taskrouting.APIError
				if assert.True(t, errors.As(err, &apiErr)) {
					assert.Equal(t, http.StatusServiceUnavailable, apiErr.StatusCode)
				}
			} else {
				require.NoError(t, err)
			}

			// What the server saw: every attempt, with the key the client generated once.
			keys := map[string]bool{}
			attempts := 0
			for _, r := range srv.Requests() {
				if r.Method == http.MethodPost && r.Path == "/v1/tasks" {
					attempts++
					keys[r.Header.Get("Idempotency-Key")] = true
				}
			}
			assert.Equal(t, tt.wantAttempts, attempts, "attempts")
			assert.Len(t, keys, 1, "one Idempotency-Key for all attempts")

			n := 0
			for _, err := range c.Tasks.List(ctx, taskrouting.ListTasksParams{Status: taskrouting.TaskStatusAll}) {
				require.NoError(t, err)
				n++
			}
			assert.Equal(t, tt.wantTasks, n, "tasks that exist")
		})
	}
}
