package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// start is the mock server's clock at the beginning: 2026-07-20, 09:00 UTC.
var start = time.Date(2026, 7, 20, 9, 0, 0, 0, time.UTC)

// run sets up the skills and agents, routes four tasks and reports what decided each.
func run(ctx context.Context, out io.Writer) error {
	clk := mockserver.NewManualClock(start)
	srv, err := mockserver.New(mockserver.WithSeed(1), mockserver.WithClock(clk))
	if err != nil {
		return fmt.Errorf("mock server: %w", err)
	}
	defer srv.Close()
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		return err
	}

	// The catalogue: workers and tasks may name a skill by its key or by its id.
	for _, s := range []taskrouting.CreateSkillParams{{Key: "spanish", Name: "Spanish"}, {Key: "refunds", Name: "Refunds"}} {
		if _, err := c.Skills.Create(ctx, s); err != nil {
			return fmt.Errorf("create skill %s: %w", s.Key, err)
		}
	}
	// Every agent carries the tag "support"; the skills make the difference. Each holds at
	// most one offer, so the story does not depend on who is idle.
	agents := []taskrouting.UpsertWorkerParams{
		{ID: "ana", Skills: []taskrouting.SkillAssignment{{SkillID: "spanish", Level: 5}, {SkillID: "refunds", Level: 1}}},
		{ID: "ben", Skills: []taskrouting.SkillAssignment{{SkillID: "spanish", Level: 2}, {SkillID: "refunds", Level: 4}}},
		// Carla's Spanish certificate ends on 2026-07-21 (the day itself still counts).
		{ID: "carla", Skills: []taskrouting.SkillAssignment{{SkillID: "spanish", Level: 4, ValidUntil: "2026-07-21"}, {SkillID: "refunds", Level: 3}}},
	}
	for _, a := range agents {
		a.Tags, a.Available, a.MaxBacklogSize = []string{"support"}, taskrouting.Ptr(true), taskrouting.Ptr(1)
		if _, err := c.Workers.Upsert(ctx, a); err != nil {
			return fmt.Errorf("upsert %s: %w", a.ID, err)
		}
		fmt.Fprintf(out, "agent %-5s %s\n", a.ID, skillList(a.Skills))
	}

	d := &desk{c: c, out: out}
	// 1. Spanish at level 3 or more: ben (2) is out; ana (5) outscores carla (4).
	if err := d.route(ctx, "es-complaint", "spanish", 3); err != nil {
		return err
	}
	// 2. Refunds at 3 or more: ana is busy with task 1 and below the level anyway; carla (3)
	// and ben (4) qualify, ben scores more.
	if err := d.route(ctx, "refund-1", "refunds", 3); err != nil {
		return err
	}
	// 3. Spanish at 4 or more: ana and ben are busy, carla (4) qualifies.
	if err := d.route(ctx, "es-escalation", "spanish", 4); err != nil {
		return err
	}
	for _, id := range []string{"es-complaint", "refund-1", "es-escalation"} {
		if err := d.finish(ctx, id); err != nil {
			return err
		}
	}

	// Two days later carla's Spanish has lapsed: the next Spanish task skips her.
	clk.Advance(48 * time.Hour)
	fmt.Fprintf(out, "clock: %s\n", clk.Now().UTC().Format(time.DateOnly))
	exp, err := c.Skills.Expiring(ctx, taskrouting.ExpiringSkillsParams{})
	if err != nil {
		return fmt.Errorf("expiring skills: %w", err)
	}
	for _, s := range exp.Skills {
		fmt.Fprintf(out, "expiring: %s %s until %s (expired %v)\n", s.WorkerID, s.Key, s.ValidUntil, s.Expired)
	}
	if _, err := c.Workers.Patch(ctx, "ana", taskrouting.PatchWorkerParams{Available: taskrouting.Ptr(false)}); err != nil {
		return err
	}
	// 4. Spanish at 2 or more with ana off shift: carla's lapsed level 4 does not count, ben (2) gets it.
	if err := d.route(ctx, "es-followup", "spanish", 2); err != nil {
		return err
	}
	fmt.Fprintf(out, "summary: %d tasks routed by skill level, %s\n", d.routed, strings.Join(d.winners, ", "))
	return nil
}

// desk creates tasks and explains their decisions.
type desk struct {
	c       *taskrouting.Client
	out     io.Writer
	routed  int
	winners []string
}

// route creates a task that requires skill at minLevel and prints who got it and why the
// others did not.
func (d *desk) route(ctx context.Context, id, skill string, minLevel int) error {
	_, err := d.c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: id, Tags: []string{"support"},
		RequiredSkills: []taskrouting.RequiredSkill{{SkillID: skill, MinLevel: minLevel}}})
	if err != nil {
		return fmt.Errorf("create %s: %w", id, err)
	}
	ds, err := d.c.Decisions.List(ctx, taskrouting.ListDecisionsParams{TaskID: id})
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "task %s needs %s >= %d\n", id, skill, minLevel)
	if len(ds) == 0 {
		fmt.Fprintf(d.out, "  nobody qualifies: it waits\n")
		return nil
	}
	for _, cand := range ds[0].Candidates {
		verdict := "out"
		if cand.Chosen {
			verdict = "GETS IT"
			d.routed++
			d.winners = append(d.winners, id+" -> "+cand.WorkerID)
		} else if cand.Eligible {
			verdict = "eligible"
		}
		fmt.Fprintf(d.out, "  %-5s %-8s score %5.1f  %s\n", cand.WorkerID, verdict, cand.Score, reasons(cand.Reasons))
	}
	return nil
}

// finish accepts and completes a task for the worker it was offered to.
func (d *desk) finish(ctx context.Context, id string) error {
	t, err := d.c.Tasks.Get(ctx, id)
	if err != nil {
		return err
	}
	if t.WorkerID == "" {
		return nil
	}
	if _, err := d.c.Decisions.Accept(ctx, id, t.WorkerID); err != nil {
		return fmt.Errorf("accept %s: %w", id, err)
	}
	if _, err := d.c.Decisions.Complete(ctx, id, t.WorkerID, map[string]any{"resolved": true}); err != nil {
		return fmt.Errorf("complete %s: %w", id, err)
	}
	return nil
}

func reasons(rs []taskrouting.Reason) string {
	var parts []string
	for _, r := range rs {
		switch r.Kind {
		case taskrouting.ReasonSkillWeight:
			parts = append(parts, fmt.Sprintf("level %d adds %g", r.Level, r.Weight))
		case taskrouting.ReasonSkillLevelTooLow:
			parts = append(parts, fmt.Sprintf("skillLevelTooLow (%d < %d)", r.Level, r.MinLevel))
		case taskrouting.ReasonSkillExpired:
			parts = append(parts, "skillExpired")
		case taskrouting.ReasonMissingSkill:
			parts = append(parts, "missingSkill")
		case taskrouting.ReasonBacklogFull, taskrouting.ReasonUnavailable:
			parts = append(parts, r.Kind)
		}
	}
	return strings.Join(parts, ", ")
}

func skillList(ss []taskrouting.SkillAssignment) string {
	var parts []string
	for _, s := range ss {
		p := fmt.Sprintf("%s %d", s.SkillID, s.Level)
		if s.ValidUntil != "" {
			p += " until " + s.ValidUntil
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}
