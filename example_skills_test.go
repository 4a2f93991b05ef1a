package taskrouting_test

import (
	"context"
	"errors"
	"fmt"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// Create adds a skill to the catalogue; the server makes its id. A key
// already in use is a conflict.
func ExampleSkillsService_Create() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()

	s, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Refunds"})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Key, s.Name, s.ID != "")
	_, err = c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Refunds again"})
	fmt.Println(errors.Is(err, taskrouting.ErrConflict))
	// Output:
	// refunds Refunds true
	// true
}

// List searches the catalogue's keys, names and descriptions.
func ExampleSkillsService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	for _, p := range []taskrouting.CreateSkillParams{{Key: "refunds", Name: "Refunds"}, {Key: "spanish", Name: "Spanish"}} {
		if _, err := c.Skills.Create(ctx, p); err != nil {
			panic(err)
		}
	}

	skills, err := c.Skills.List(ctx, taskrouting.ListSkillsParams{Query: "ref"})
	if err != nil {
		panic(err)
	}
	for _, s := range skills {
		fmt.Println(s.Key)
	}
	// Output: refunds
}

// Patch renames a skill; its key, which workers use, stays.
func ExampleSkillsService_Patch() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	s, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Refunds"})
	if err != nil {
		panic(err)
	}

	s, err = c.Skills.Patch(ctx, s.ID, taskrouting.PatchSkillParams{Name: "Refunds & credits"})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Key, "/", s.Name)
	// Output: refunds / Refunds & credits
}

// Get reads one skill by id.
func ExampleSkillsService_Get() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	made, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Refunds", Description: "Money back"})
	if err != nil {
		panic(err)
	}

	s, err := c.Skills.Get(ctx, made.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Key, s.Description)
	// Output: refunds Money back
}

// Remove refuses a skill a worker still holds; once no worker holds it,
// it goes.
func ExampleSkillsService_Remove() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	s, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Refunds"})
	if err != nil {
		panic(err)
	}
	// A worker may name the skill by key; the worker read lists it by id.
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w1",
		Skills: []taskrouting.SkillAssignment{{SkillID: "refunds", Level: 3}}}); err != nil {
		panic(err)
	}

	err = c.Skills.Remove(ctx, s.ID)
	fmt.Println(errors.Is(err, taskrouting.ErrConflict))
	if err := c.Workers.Remove(ctx, "w1"); err != nil {
		panic(err)
	}
	fmt.Println(c.Skills.Remove(ctx, s.ID))
	// Output:
	// true
	// <nil>
}

// Suggest proposes the skills most often held beside the ones chosen.
func ExampleSkillsService_Suggest() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	for _, key := range []string{"billing", "english", "refunds"} {
		if _, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: key, Name: key}); err != nil {
			panic(err)
		}
	}
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w1",
		Skills: []taskrouting.SkillAssignment{{SkillID: "billing", Level: 2}, {SkillID: "refunds", Level: 4}}}); err != nil {
		panic(err)
	}
	billing, err := c.Skills.List(ctx, taskrouting.ListSkillsParams{Query: "billing"})
	if err != nil {
		panic(err)
	}

	skills, err := c.Skills.Suggest(ctx, taskrouting.SuggestSkillsParams{Selected: []string{billing[0].ID}, Limit: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(skills[0].Key)
	// Output: refunds
}
