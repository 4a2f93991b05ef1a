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

// TestTeamsThroughClient walks a team's life: create (the tag derives from the key), get,
// list, patch (absent members kept, null clears), remove.
func TestTeamsThroughClient(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	srv := mockserver.Start(t, mockserver.WithClock(mockserver.NewManualClock(t0)))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()

	billing, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing", Description: "Invoices", Color: "#5b8def"})
	require.NoError(t, err)
	require.NotEmpty(t, billing.ID)
	assert.Equal(t, &taskrouting.Team{ID: billing.ID, Key: "billing", Tag: "team:billing", Name: "Billing",
		Description: "Invoices", Color: "#5b8def", CreatedAt: t0}, billing)
	support, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "support", Name: "Support"})
	require.NoError(t, err)
	assert.NotEqual(t, billing.ID, support.ID)

	got, err := c.Teams.Get(ctx, billing.ID)
	require.NoError(t, err)
	assert.Equal(t, billing, got)
	list, err := c.Teams.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []taskrouting.Team{*billing, *support}, list, "creation order")

	patched, err := c.Teams.Patch(ctx, billing.ID, taskrouting.PatchTeamParams{Name: "Billing EU", Color: taskrouting.Null[string]()})
	require.NoError(t, err)
	want := *billing
	want.Name, want.Color = "Billing EU", ""
	assert.Equal(t, &want, patched, "name changed, color cleared, description and key kept")

	require.NoError(t, c.Teams.Remove(ctx, support.ID))
	list, err = c.Teams.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []taskrouting.Team{want}, list)
}

// TestTeamMembershipIsOneRecord checks that setMembers and a worker's teamIds write the same
// record: each is seen by both teams.members and workers.get, a replace drops who is left out
// and keeps the join time of who stays, and removing a team or a worker ends the membership.
func TestTeamMembershipIsOneRecord(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	for _, id := range []string{"w1", "w2", "w3"} {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"a"}})
		require.NoError(t, err)
	}
	red, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "red", Name: "Red", Color: "#f00"})
	require.NoError(t, err)
	blue, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "blue", Name: "Blue"})
	require.NoError(t, err)
	teamsOf := func(workerID string) []string {
		t.Helper()
		w, err := c.Workers.Get(ctx, workerID)
		require.NoError(t, err)
		var ids []string
		for _, tm := range w.Teams {
			ids = append(ids, tm.TeamID)
		}
		return ids
	}

	roster, err := c.Teams.SetMembers(ctx, red.ID, []string{"w1", "w2", "w1"})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TeamRoster{TeamID: red.ID, WorkerIDs: []string{"w1", "w2"}}, roster, "a repeated id counts once")
	w1, err := c.Workers.Get(ctx, "w1")
	require.NoError(t, err)
	assert.Equal(t, []taskrouting.WorkerTeam{{TeamID: red.ID, Key: "red", Name: "Red", Color: "#f00", Role: "member"}}, w1.Teams,
		"setMembers shows on the worker, with the team's own key, name and color")

	clk.Advance(time.Minute)
	_, err = c.Workers.Patch(ctx, "w3", taskrouting.PatchWorkerParams{TeamIDs: []string{blue.ID, red.ID}})
	require.NoError(t, err)
	_, err = c.Teams.SetMembers(ctx, red.ID, []string{"w3", "w1"})
	require.NoError(t, err)
	members, err := c.Teams.Members(ctx, red.ID)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TeamMembers{TeamID: red.ID, Members: []taskrouting.TeamMember{
		{WorkerID: "w3", Role: "member", AddedAt: t0.Add(time.Minute)},
		{WorkerID: "w1", Role: "member", AddedAt: t0},
	}}, members, "the worker's teamIds show on the team; w2 left out is gone; w1 keeps its join time")
	assert.Empty(t, teamsOf("w2"))

	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w3", Tags: []string{"a"}, TeamIDs: []string{blue.ID}})
	require.NoError(t, err)
	members, err = c.Teams.Members(ctx, red.ID)
	require.NoError(t, err)
	assert.Equal(t, []taskrouting.TeamMember{{WorkerID: "w1", Role: "member", AddedAt: t0}}, members.Members,
		"teamIds replace a worker's teams: leaving red out takes w3 off it")

	require.NoError(t, c.Workers.Remove(ctx, "w1"))
	members, err = c.Teams.Members(ctx, red.ID)
	require.NoError(t, err)
	assert.Empty(t, members.Members, "a removed worker leaves its teams")

	require.NoError(t, c.Teams.Remove(ctx, blue.ID))
	assert.Empty(t, teamsOf("w3"), "a removed team leaves its workers' teams")
}

// TestTeamsRefusals checks unknown ids, another workspace's team, a taken key, a key in a
// patch, unknown workers in setMembers and unknown teams in a worker's teamIds; none of them
// may change a team or a membership.
func TestTeamsRefusals(t *testing.T) {
	t.Parallel()
	const keyB = "sk_test_second_workspace"
	srv := mockserver.Start(t, mockserver.WithExtraAPIKey(keyB))
	c, other := newClient(t, srv, srv.APIKey()), newClient(t, srv, keyB)
	ctx := context.Background()
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w1", Tags: []string{"a"}})
	require.NoError(t, err)
	red, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "red", Name: "Red"})
	require.NoError(t, err)
	_, err = c.Teams.SetMembers(ctx, red.ID, []string{"w1"})
	require.NoError(t, err)
	_, err = other.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w1", Tags: []string{"a"}})
	require.NoError(t, err)

	tests := []struct {
		name   string
		call   func() error
		status int
		code   string
	}{
		{"get unknown", func() error { _, err := c.Teams.Get(ctx, "team_nope"); return err }, 404, "not_found"},
		{"another workspace gets", func() error { _, err := other.Teams.Get(ctx, red.ID); return err }, 404, "not_found"},
		{"another workspace patches", func() error {
			_, err := other.Teams.Patch(ctx, red.ID, taskrouting.PatchTeamParams{Name: "x"})
			return err
		}, 404, "not_found"},
		{"another workspace removes", func() error { return other.Teams.Remove(ctx, red.ID) }, 404, "not_found"},
		{"another workspace lists members", func() error { _, err := other.Teams.Members(ctx, red.ID); return err }, 404, "not_found"},
		{"another workspace sets members", func() error { _, err := other.Teams.SetMembers(ctx, red.ID, nil); return err }, 404, "not_found"},
		{"another workspace's worker joins", func() error {
			_, err := other.Workers.Patch(ctx, "w1", taskrouting.PatchWorkerParams{TeamIDs: []string{red.ID}})
			return err
		}, 400, "validation_failed"},
		{"key taken", func() error {
			_, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "red", Name: "Other"})
			return err
		}, 409, "invalid_state"},
		{"unknown worker in the roster", func() error { _, err := c.Teams.SetMembers(ctx, red.ID, []string{"nope"}); return err }, 400, "validation_failed"},
		{"unknown team on a worker", func() error {
			_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w2", Tags: []string{"a"}, TeamIDs: []string{"team_nope"}})
			return err
		}, 400, "validation_failed"},
		{"unknown team on a worker patch", func() error {
			_, err := c.Workers.Patch(ctx, "w1", taskrouting.PatchWorkerParams{TeamIDs: []string{"team_nope"}})
			return err
		}, 400, "validation_failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var apiErr *taskrouting.APIError
			require.ErrorAs(t, tc.call(), &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, tc.code, apiErr.Code)
		})
	}
	// The key is immutable: the schema has no key member, so a patch naming it is refused.
	status, body := sendRaw(t, srv, srv.APIKey(), "teams.patch", "PATCH", "/teams/"+red.ID, `{"key":"blue"}`)
	assert.Equal(t, 400, status, body)
	assert.Contains(t, body, "validation_failed")

	got, err := c.Teams.Get(ctx, red.ID)
	require.NoError(t, err)
	assert.Equal(t, red, got, "refused calls changed no team")
	list, err := c.Teams.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 1, "and added none")
	members, err := c.Teams.Members(ctx, red.ID)
	require.NoError(t, err)
	require.Len(t, members.Members, 1)
	assert.Equal(t, "w1", members.Members[0].WorkerID, "the roster is as it was")
	_, err = c.Workers.Get(ctx, "w2")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound, "a worker refused for its teams is not created")
	theirs, err := other.Workers.Get(ctx, "w1")
	require.NoError(t, err)
	assert.Empty(t, theirs.Teams)
}
