package mockserver_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// TestPreferredTeamReasonNamesTeamAndBonus: the decision for a task with preferTeamId
// shows, on the member who got it, a preferredTeam reason naming the team and the bonus it
// added (100), under both rule sets; the worker outside the team has no such reason.
func TestPreferredTeamReasonNamesTeamAndBonus(t *testing.T) {
	for _, rules := range bothRules {
		t.Run(string(rules), func(t *testing.T) {
			t.Parallel()
			f := newRoutingFixture(t, rules)
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "ana"})
			f.worker(t, taskrouting.UpsertWorkerParams{ID: "ben", TeamIDs: []string{f.night.ID}})
			_, err := f.c.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{ID: "job", Tags: []string{"repair"}, PreferTeamID: f.night.ID})
			require.NoError(t, err)
			require.Equal(t, "ben", f.holder(t, "job"))
			want := []taskrouting.Reason{{Kind: taskrouting.ReasonPreferredTeam, TeamID: f.night.ID, Weight: 100}}
			assert.Empty(t, cmp.Diff(want, f.reasonsOf(t, "job", "ben"), ignoreRaw))
			assert.Empty(t, cmp.Diff([]taskrouting.Reason{}, f.reasonsOf(t, "job", "ana"), ignoreRaw))
		})
	}
}
