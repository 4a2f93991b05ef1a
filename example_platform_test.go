package taskrouting_test

import (
	"context"
	"fmt"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// A worker can carry catalogue skills at a level, belong to teams, and have
// a location and an address that tasks may require.
func ExampleWorkersService_Upsert_skillsTeamsAndLocation() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	// A worker's skills come from the workspace's catalogue.
	if _, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "plumbing", Name: "Plumbing"}); err != nil {
		panic(err)
	}

	paris, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "paris", Name: "Paris"})
	if err != nil {
		panic(err)
	}
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{
		ID:        "agent_1",
		Tags:      []string{"repair"},
		Skills:    []taskrouting.SkillAssignment{{SkillID: "plumbing", Level: 4}},
		TeamIDs:   []string{paris.ID},
		IP:        "10.1.2.3",
		Latitude:  taskrouting.Ptr(48.8566),
		Longitude: taskrouting.Ptr(2.3522),
		// How far from its location the worker takes work.
		MaxTravelDistanceKm: taskrouting.Ptr(25.0),
		Available:           taskrouting.Ptr(true),
	})
	if err != nil {
		panic(err)
	}
	w, err := c.Workers.Get(ctx, "agent_1")
	if err != nil {
		panic(err)
	}
	for _, s := range w.Skills {
		fmt.Println(s.Key, s.Name, "level", s.Level, "weight", s.Weight)
	}
	// Output:
	// plumbing Plumbing level 4 weight 80
}

// A task can ask for a skill level, a place and a network, and for a team.
func ExampleTasksService_Create_skillsAndLocation() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()

	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{
		Tags:           []string{"repair"},
		RequiredSkills: []taskrouting.RequiredSkill{{SkillID: "plumbing", MinLevel: 3}},
		Latitude:       taskrouting.Ptr(48.8606),
		Longitude:      taskrouting.Ptr(2.3376),
		MaxDistanceKm:  taskrouting.Ptr(10.0),
		RequireGeo:     true, // workers without a location are not eligible
		AllowedCIDRs:   []string{"10.0.0.0/8"},
		PreferTeamID:   "team_paris",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.Status)
	// Output:
	// queued
}

// A live task can be edited; a change of tags that its holder no longer
// carries takes the task back.
func ExampleTasksService_Update() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("task_1", 0, "english") // offered to agent_1
	ctx := context.Background()

	u, err := c.Tasks.Update(ctx, "task_1", taskrouting.UpdateTaskParams{
		Tags:  []string{"german"},
		Title: taskrouting.Some("Rechnung prüfen"),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(u.Status, u.Tags, "requeued:", u.Requeued, "from", u.PreviousWorkerID)
	// Output:
	// queued [german] requeued: true from agent_1
}
