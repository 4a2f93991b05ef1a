package mockserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestTypedEnumerationsRoundTrip passes each typed enumeration through the SDK client to the
// mock server and reads it back: an escalation and an SLA action are stored and echoed as
// the same constants, and a server configured with a MatchMode constant decides in it, as
// the client's MatchMode constant of the same name reports.
func TestTypedEnumerationsRoundTrip(t *testing.T) {
	t.Parallel()
	modes := []struct {
		server mockserver.MatchMode
		client taskrouting.MatchMode
	}{
		{mockserver.ModeBestMatch, taskrouting.ModeBestMatch},
		{mockserver.ModeFirstCome, taskrouting.ModeFirstCome},
		{mockserver.ModeBalanced, taskrouting.ModeBalanced},
	}
	for _, m := range modes {
		t.Run(string(m.server), func(t *testing.T) {
			t.Parallel()
			srv := mockserver.Start(t, mockserver.WithMatcher(mockserver.MatcherConfig{Mode: m.server}))
			c := newClient(t, srv, srv.APIKey())
			ctx := context.Background()
			_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}, Available: taskrouting.Ptr(true)})
			require.NoError(t, err)
			esc := taskrouting.Escalation{RespondWithin: time.Minute, OnNoResponse: taskrouting.NoResponseBlock}
			sla := taskrouting.SLA{MaxRejections: 2, OnMaxRejections: taskrouting.MaxRejectionsPark}
			_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"},
				Escalation: taskrouting.Some(esc), SLA: taskrouting.Some(sla)})
			require.NoError(t, err)

			task, err := c.Tasks.Get(ctx, "task_1")
			require.NoError(t, err)
			require.NotNil(t, task.Escalation)
			require.NotNil(t, task.SLA)
			assert.Equal(t, taskrouting.NoResponseBlock, task.Escalation.OnNoResponse)
			assert.Equal(t, taskrouting.MaxRejectionsPark, task.SLA.OnMaxRejections)
			ds, err := c.Decisions.List(ctx, taskrouting.ListDecisionsParams{TaskID: "task_1"})
			require.NoError(t, err)
			require.Len(t, ds, 1)
			assert.Equal(t, m.client, ds[0].Mode)
		})
	}
}
