package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// Expiring lists the skills workers hold with an end date coming up (30
// days by default, from the server's day), the lapsed ones first. A lapsed
// skill no longer satisfies a task's RequiredSkills.
func ExampleSkillsService_Expiring() {
	c, sb := newSandbox() // the server's clock starts on 2025-11-21
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "forklift", Name: "Forklift licence"}); err != nil {
		panic(err)
	}
	for id, until := range map[string]string{"ana": "2025-11-30", "ben": "2026-06-30"} {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"warehouse"},
			Skills: []taskrouting.SkillAssignment{{SkillID: "forklift", Level: 3, ValidUntil: until}}})
		if err != nil {
			panic(err)
		}
	}
	exp, err := c.Skills.Expiring(ctx, taskrouting.ExpiringSkillsParams{})
	if err != nil {
		panic(err)
	}
	fmt.Println("as of", exp.AsOf)
	for _, s := range exp.Skills {
		fmt.Println(s.WorkerID, s.Key, s.ValidUntil, "expired:", s.Expired)
	}
	sb.clock.Advance(10 * 24 * time.Hour)
	exp, err = c.Skills.Expiring(ctx, taskrouting.ExpiringSkillsParams{WithinDays: taskrouting.Ptr(0)})
	if err != nil {
		panic(err)
	}
	fmt.Println("as of", exp.AsOf)
	for _, s := range exp.Skills {
		fmt.Println(s.WorkerID, s.Key, s.ValidUntil, "expired:", s.Expired)
	}
	// Output:
	// as of 2025-11-21
	// ana forklift 2025-11-30 expired: false
	// as of 2025-12-01
	// ana forklift 2025-11-30 expired: true
}

// RequiredSkills routes a task only to workers holding each skill at the
// minimum level; among them the higher level scores more (level x 20).
func ExampleTasksService_Create_requiredSkills() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "spanish", Name: "Spanish"}); err != nil {
		panic(err)
	}
	for id, level := range map[string]int{"ana": 2, "ben": 4} {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"support"}, Available: taskrouting.Ptr(true),
			Skills: []taskrouting.SkillAssignment{{SkillID: "spanish", Level: level}}})
		if err != nil {
			panic(err)
		}
	}
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "es-1", Tags: []string{"support"},
		RequiredSkills: []taskrouting.RequiredSkill{{SkillID: "spanish", MinLevel: 3}}})
	if err != nil {
		panic(err)
	}
	ds, err := c.Decisions.List(ctx, taskrouting.ListDecisionsParams{TaskID: "es-1"})
	if err != nil {
		panic(err)
	}
	for _, cand := range ds[0].Candidates {
		for _, r := range cand.Reasons {
			switch r.Kind {
			case taskrouting.ReasonSkillWeight:
				fmt.Println(cand.WorkerID, "chosen:", cand.Chosen, "level", r.Level, "adds", r.Weight)
			case taskrouting.ReasonSkillLevelTooLow:
				fmt.Println(cand.WorkerID, "chosen:", cand.Chosen, r.Kind, r.Level, "<", r.MinLevel)
			}
		}
	}
	// Output:
	// ben chosen: true level 4 adds 80
	// ana chosen: false skillLevelTooLow 2 < 3
}
