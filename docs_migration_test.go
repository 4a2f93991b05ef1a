package taskrouting_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestMigrationGuideStatesTheDefaultRules: docs/migration.md describes the rules the mock
// server matches by default (one shared tag is enough), not the every-tag rules of its
// earlier releases, and answers offers as the README does (EnsureAccepted).
func TestMigrationGuideStatesTheDefaultRules(t *testing.T) {
	b, err := os.ReadFile("docs/migration.md")
	require.NoError(t, err)
	guide := string(b)
	for _, stale := range []string{
		"Eligibility needs **every** task tag",
		"no worker\ncarries all the tags",
		"carries all the tags",
		"c.Decisions.Accept(ctx",
		"w.Accept(ctx",
		"let learning work",
	} {
		if strings.Contains(guide, stale) {
			t.Errorf("docs/migration.md still says %q", stale)
		}
	}
	for _, want := range []string{"### Requiring several skills", "SkillThresholds:", "RequiredSkills:", "c.Decisions.EnsureAccepted(ctx"} {
		if !strings.Contains(guide, want) {
			t.Errorf("docs/migration.md lacks %q", want)
		}
	}
}

// TestMigrationGuideSeveralSkills plays the guide's "Requiring several skills" against the
// mock server's default rules: tags alone send an English and billing task to the English-only
// worker who ranks first; thresholds on both tags send it to the worker who has both, and
// required skills likewise.
func TestMigrationGuideSeveralSkills(t *testing.T) {
	ctx := t.Context()
	srv := mockserver.Start(t)
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	require.NoError(t, err)
	for _, id := range []string{"english", "billing"} {
		_, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: id, Name: id})
		require.NoError(t, err)
	}
	workers := []taskrouting.UpsertWorkerParams{
		{ID: "eve", Tags: []string{"english"}, RoutingWeights: map[string]float64{"english": 5},
			Skills: []taskrouting.SkillAssignment{{SkillID: "english", Level: 5}}},
		{ID: "ana", Tags: []string{"english", "billing"}, RoutingWeights: map[string]float64{"english": 1, "billing": 1},
			Skills: []taskrouting.SkillAssignment{{SkillID: "english", Level: 3}, {SkillID: "billing", Level: 2}}},
	}
	for _, w := range workers {
		w.Available = taskrouting.Ptr(true)
		_, err := c.Workers.Upsert(ctx, w)
		require.NoError(t, err)
	}
	tests := []struct {
		name string
		p    taskrouting.CreateTaskParams
		want string
	}{
		{"tags alone: one shared tag is enough", taskrouting.CreateTaskParams{Tags: []string{"english", "billing"}}, "eve"},
		{"skill thresholds on both", taskrouting.CreateTaskParams{Tags: []string{"english", "billing"},
			SkillThresholds: map[string]float64{"english": 1, "billing": 1}}, "ana"},
		{"required skills", taskrouting.CreateTaskParams{Tags: []string{"billing"},
			RequiredSkills: []taskrouting.RequiredSkill{{SkillID: "english", MinLevel: 3}, {SkillID: "billing", MinLevel: 1}}}, "ana"},
	}
	for _, tt := range tests {
		ref, err := c.Tasks.Create(ctx, tt.p)
		require.NoError(t, err, tt.name)
		got, err := c.Tasks.Get(ctx, ref.ID)
		require.NoError(t, err, tt.name)
		if got.WorkerID != tt.want {
			t.Errorf("%s: offered to %q, want %q", tt.name, got.WorkerID, tt.want)
		}
	}
}
