package taskrouting_test

import (
	"context"
	"fmt"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// A team's routing tag derives from its key, which is why the key cannot
// change afterwards.
func ExampleTeamsService_Create() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()

	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing"})
	if err != nil {
		panic(err)
	}
	fmt.Println(team.Key, team.Tag, team.Name)
	// Output: billing team:billing Billing
}

// List answers the teams in the order they were created.
func ExampleTeamsService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	for _, key := range []string{"billing", "support"} {
		if _, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: key, Name: key}); err != nil {
			panic(err)
		}
	}

	teams, err := c.Teams.List(ctx)
	if err != nil {
		panic(err)
	}
	for _, t := range teams {
		fmt.Println(t.Tag)
	}
	// Output:
	// team:billing
	// team:support
}

// Get reads one team by its server-made id.
func ExampleTeamsService_Get() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	created, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing", Color: "#5b8def"})
	if err != nil {
		panic(err)
	}

	team, err := c.Teams.Get(ctx, created.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(team.Name, team.Color)
	// Output: Billing #5b8def
}

// Patch changes only what it is given; Null clears a member.
func ExampleTeamsService_Patch() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	created, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing", Description: "Invoices", Color: "#5b8def"})
	if err != nil {
		panic(err)
	}

	team, err := c.Teams.Patch(ctx, created.ID, taskrouting.PatchTeamParams{Name: "Billing EU", Color: taskrouting.Null[string]()})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s, %s, color %q, key %s\n", team.Name, team.Description, team.Color, team.Key)
	// Output: Billing EU, Invoices, color "", key billing
}

// Removing a team keeps its workers; they just leave the team.
func ExampleTeamsService_Remove() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing"})
	if err != nil {
		panic(err)
	}
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"billing"}, TeamIDs: []string{team.ID}}); err != nil {
		panic(err)
	}

	if err := c.Teams.Remove(ctx, team.ID); err != nil {
		panic(err)
	}
	w, err := c.Workers.Get(ctx, "agent_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(w.ID, "teams:", len(w.Teams))
	// Output: agent_1 teams: 0
}

// A worker's teamIds and the team's roster are the same record.
func ExampleTeamsService_Members() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing"})
	if err != nil {
		panic(err)
	}
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"billing"}, TeamIDs: []string{team.ID}}); err != nil {
		panic(err)
	}

	members, err := c.Teams.Members(ctx, team.ID)
	if err != nil {
		panic(err)
	}
	for _, m := range members.Members {
		fmt.Println(m.WorkerID, m.Role)
	}
	// Output: agent_1 member
}

// SetMembers replaces the whole roster: a worker left out leaves the team.
func ExampleTeamsService_SetMembers() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing"})
	if err != nil {
		panic(err)
	}
	for _, id := range []string{"agent_1", "agent_2"} {
		if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"billing"}}); err != nil {
			panic(err)
		}
	}
	if _, err := c.Teams.SetMembers(ctx, team.ID, []string{"agent_1", "agent_2"}); err != nil {
		panic(err)
	}

	roster, err := c.Teams.SetMembers(ctx, team.ID, []string{"agent_2"})
	if err != nil {
		panic(err)
	}
	w, err := c.Workers.Get(ctx, "agent_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(roster.WorkerIDs, "agent_1 teams:", len(w.Teams))
	// Output: [agent_2] agent_1 teams: 0
}
