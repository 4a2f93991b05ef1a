package taskrouting_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// The three ways a new user's task waits while every call answers 2xx,
// each found by Tasks.Check before the create (README, "When a task waits").
func TestCheckExplainsWhyATaskWouldWait(t *testing.T) {
	srv := mockserver.Start(t)
	c := mockClient(t, srv)
	ctx := context.Background()
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ana", Tags: []string{"english"}, Available: taskrouting.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "ben", Tags: []string{"french"}, Available: taskrouting.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	type finding struct {
		Eligible  int
		Uncovered []string
		Codes     []string
	}
	tests := []struct {
		name string
		p    taskrouting.CreateTaskParams
		want finding
	}{
		{"ready", taskrouting.CreateTaskParams{Tags: []string{"english"}}, finding{Eligible: 1}},
		{"typo'd tag", taskrouting.CreateTaskParams{Tags: []string{"englsh"}},
			finding{Uncovered: []string{"englsh"}, Codes: []string{"no_eligible_worker", "uncovered_tag"}}},
		{"the only worker is unavailable", taskrouting.CreateTaskParams{Tags: []string{"french"}},
			finding{Codes: []string{"no_eligible_worker"}}},
		{"unknown required skill", taskrouting.CreateTaskParams{Tags: []string{"english"},
			RequiredSkills: []taskrouting.RequiredSkill{{SkillID: "tax_law", MinLevel: 3}}},
			finding{Codes: []string{"no_eligible_worker"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := c.Tasks.Check(ctx, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			got := finding{Eligible: rep.EligibleWorkerCount, Uncovered: rep.UncoveredTags}
			for _, i := range rep.Issues {
				got.Codes = append(got.Codes, i.Code)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("check (-want +got):\n%s", diff)
			}
		})
	}
}
