package mockserver_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

func TestSkillsThroughClient(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()

	refunds, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Refunds", Description: "Money back"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(refunds.ID, "skl_"), "the server makes the id: %s", refunds.ID)
	assert.Equal(t, &taskrouting.Skill{ID: refunds.ID, Key: "refunds", Name: "Refunds", Description: "Money back", CreatedAt: t0}, refunds)
	clk.Advance(time.Minute)
	billing, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "billing", Name: "Billing questions"})
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Minute), billing.CreatedAt, "createdAt comes from the server's clock")

	got, err := c.Skills.Get(ctx, refunds.ID)
	require.NoError(t, err)
	assert.Equal(t, refunds, got)

	keys := func(p taskrouting.ListSkillsParams) []string {
		t.Helper()
		list, err := c.Skills.List(ctx, p)
		require.NoError(t, err)
		out := []string{}
		for _, s := range list {
			out = append(out, s.Key)
		}
		return out
	}
	lists := []struct {
		name string
		p    taskrouting.ListSkillsParams
		want []string
	}{
		{"everything, by key", taskrouting.ListSkillsParams{}, []string{"billing", "refunds"}},
		{"q matches the key", taskrouting.ListSkillsParams{Query: "REF"}, []string{"refunds"}},
		{"q matches the name", taskrouting.ListSkillsParams{Query: "questions"}, []string{"billing"}},
		{"q matches the description", taskrouting.ListSkillsParams{Query: "money"}, []string{"refunds"}},
		{"limit", taskrouting.ListSkillsParams{Limit: 1}, []string{"billing"}},
		{"no match", taskrouting.ListSkillsParams{Query: "zzz"}, []string{}},
	}
	for _, l := range lists {
		if d := cmp.Diff(l.want, keys(l.p)); d != "" {
			t.Errorf("list %s (-want +got):\n%s", l.name, d)
		}
	}

	renamed, err := c.Skills.Patch(ctx, refunds.ID, taskrouting.PatchSkillParams{Name: "Refunds & credits"})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.Skill{ID: refunds.ID, Key: "refunds", Name: "Refunds & credits", Description: "Money back", CreatedAt: t0}, renamed,
		"the name changes, the key and description stay")
	cleared, err := c.Skills.Patch(ctx, refunds.ID, taskrouting.PatchSkillParams{ClearDescription: true})
	require.NoError(t, err)
	assert.Equal(t, "", cleared.Description)
	assert.Equal(t, "Refunds & credits", cleared.Name, "a patch without a name keeps it")

	require.NoError(t, c.Skills.Remove(ctx, refunds.ID))
	_, err = c.Skills.Get(ctx, refunds.ID)
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
	assert.Equal(t, []string{"billing"}, keys(taskrouting.ListSkillsParams{}))
	_, err = c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Refunds again"})
	assert.NoError(t, err, "a removed skill's key is free again")
}

// TestSkillsRefusals checks unknown ids, another workspace's skills, a duplicate key and bad
// input: each is refused and leaves the catalogue as it was.
func TestSkillsRefusals(t *testing.T) {
	t.Parallel()
	const keyB = "sk_test_second_workspace"
	srv := mockserver.Start(t, mockserver.WithExtraAPIKey(keyB))
	c, other := newClient(t, srv, srv.APIKey()), newClient(t, srv, keyB)
	ctx := context.Background()
	refunds, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Refunds"})
	require.NoError(t, err)
	id := refunds.ID
	tests := []struct {
		name   string
		call   func() error
		status int
		code   string
	}{
		{"duplicate key", func() error {
			_, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Other"})
			return err
		}, 409, mockserver.CodeSkillExists},
		{"get unknown", func() error { _, err := c.Skills.Get(ctx, "skl_nope"); return err }, 404, "not_found"},
		{"patch unknown", func() error {
			_, err := c.Skills.Patch(ctx, "skl_nope", taskrouting.PatchSkillParams{Name: "x"})
			return err
		}, 404, "not_found"},
		{"remove unknown", func() error { return c.Skills.Remove(ctx, "skl_nope") }, 404, "not_found"},
		{"another workspace gets", func() error { _, err := other.Skills.Get(ctx, id); return err }, 404, "not_found"},
		{"another workspace patches", func() error {
			_, err := other.Skills.Patch(ctx, id, taskrouting.PatchSkillParams{Name: "x"})
			return err
		}, 404, "not_found"},
		{"another workspace removes", func() error { return other.Skills.Remove(ctx, id) }, 404, "not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var apiErr *taskrouting.APIError
			require.ErrorAs(t, tc.call(), &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, tc.code, apiErr.Code)
		})
	}
	for _, bad := range []struct{ method, path, body string }{
		{http.MethodPost, "/skills", `{"key":"","name":"n"}`},
		{http.MethodPost, "/skills", `{"key":"k"}`},
		{http.MethodPost, "/skills", `{"key":"k","name":"n","x":1}`},
		{http.MethodPatch, "/skills/" + id, `{"key":"renamed"}`},
		{http.MethodPatch, "/skills/" + id, `{"name":""}`},
		{http.MethodGet, "/skills?limit=101", ""},
		{http.MethodGet, "/skills/suggest?limit=0", ""},
	} {
		op := map[string]string{http.MethodPost: "skills.create", http.MethodPatch: "skills.patch", http.MethodGet: "skills.list"}[bad.method]
		if strings.HasPrefix(bad.path, "/skills/suggest") {
			op = "skills.suggest"
		}
		status, body := sendRaw(t, srv, srv.APIKey(), op, bad.method, bad.path, bad.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s %s %s: %s", bad.method, bad.path, bad.body, body)
	}

	list, err := c.Skills.List(ctx, taskrouting.ListSkillsParams{})
	require.NoError(t, err)
	assert.Equal(t, []taskrouting.Skill{*refunds}, list, "refused calls changed nothing")
	mine, err := other.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Refunds"})
	require.NoError(t, err, "keys are unique per workspace, not per server")
	assert.NotEqual(t, id, mine.ID)
}

// TestWorkerSkillsUseTheCatalogue gives workers skills by key and by id: the worker read
// lists them resolved (catalogue id, key, current name, weight level x 20 or the override).
// A skill the workspace lacks is refused and the worker keeps its skills; a skill a worker
// holds cannot be removed until no worker holds it.
func TestWorkerSkillsUseTheCatalogue(t *testing.T) {
	t.Parallel()
	const keyB = "sk_test_second_workspace"
	srv := mockserver.Start(t, mockserver.WithExtraAPIKey(keyB))
	c, other := newClient(t, srv, srv.APIKey()), newClient(t, srv, keyB)
	ctx := context.Background()
	refunds, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "refunds", Name: "Refunds"})
	require.NoError(t, err)
	spanish, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "spanish", Name: "Spanish"})
	require.NoError(t, err)
	foreign, err := other.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: "german", Name: "German"})
	require.NoError(t, err)
	half := 50.0
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w1", Tags: []string{"billing"}, Skills: []taskrouting.SkillAssignment{
		{SkillID: "refunds", Level: 3}, {SkillID: spanish.ID, Level: 2, WeightOverride: &half}}})
	require.NoError(t, err)

	skillsOf := func(id string) []taskrouting.WorkerSkill {
		t.Helper()
		w, err := c.Workers.Get(ctx, id)
		require.NoError(t, err)
		return w.Skills
	}
	want := []taskrouting.WorkerSkill{
		{SkillID: refunds.ID, Key: "refunds", Name: "Refunds", Level: 3, Weight: 60},
		{SkillID: spanish.ID, Key: "spanish", Name: "Spanish", Level: 2, Weight: 50, WeightOverride: &half},
	}
	if d := cmp.Diff(want, skillsOf("w1")); d != "" {
		t.Fatalf("worker skills (-want +got):\n%s", d)
	}

	_, err = c.Skills.Patch(ctx, refunds.ID, taskrouting.PatchSkillParams{Name: "Refunds & credits"})
	require.NoError(t, err)
	want[0].Name = "Refunds & credits"
	if d := cmp.Diff(want, skillsOf("w1")); d != "" {
		t.Errorf("a renamed skill reads renamed on the worker (-want +got):\n%s", d)
	}

	refusals := []struct {
		name   string
		skills []taskrouting.SkillAssignment
	}{
		{"unknown skill", []taskrouting.SkillAssignment{{SkillID: "plumbing", Level: 1}}},
		{"another workspace's skill", []taskrouting.SkillAssignment{{SkillID: foreign.ID, Level: 1}}},
		{"the same skill twice, by key and id", []taskrouting.SkillAssignment{{SkillID: "refunds", Level: 1}, {SkillID: refunds.ID, Level: 2}}},
	}
	for _, r := range refusals {
		_, err := c.Workers.Patch(ctx, "w1", taskrouting.PatchWorkerParams{Skills: r.skills})
		var apiErr *taskrouting.APIError
		require.ErrorAs(t, err, &apiErr, r.name)
		assert.Equal(t, "validation_failed", apiErr.Code, r.name)
		_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w2", Skills: r.skills})
		assert.ErrorIs(t, err, taskrouting.ErrValidation, r.name)
	}
	if d := cmp.Diff(want, skillsOf("w1")); d != "" {
		t.Errorf("refused writes left the skills alone (-want +got):\n%s", d)
	}
	_, err = c.Workers.Get(ctx, "w2")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound, "a refused upsert made no worker")

	err = c.Skills.Remove(ctx, spanish.ID)
	var apiErr *taskrouting.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, []any{409, mockserver.CodeSkillInUse}, []any{apiErr.StatusCode, apiErr.Code})
	assert.True(t, errors.Is(err, taskrouting.ErrConflict))
	_, err = c.Skills.Get(ctx, spanish.ID)
	require.NoError(t, err, "a refused remove keeps the skill")

	_, err = c.Workers.Patch(ctx, "w1", taskrouting.PatchWorkerParams{Skills: []taskrouting.SkillAssignment{{SkillID: "refunds", Level: 4}}})
	require.NoError(t, err)
	require.NoError(t, c.Skills.Remove(ctx, spanish.ID), "no worker holds it any more")
	require.NoError(t, c.Workers.Remove(ctx, "w1"))
	require.NoError(t, c.Skills.Remove(ctx, refunds.ID), "a removed worker holds nothing")
}

// TestSkillsSuggest ranks skills by how many workers hold them beside a selected one, or,
// with nothing selected, by how many workers hold them; ties go by key.
func TestSkillsSuggest(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	ids := map[string]string{}
	for _, key := range []string{"a", "b", "c", "d", "e"} {
		s, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: key, Name: strings.ToUpper(key)})
		require.NoError(t, err)
		ids[key] = s.ID
	}
	holds := map[string][]string{"w1": {"a", "b"}, "w2": {"a", "b"}, "w3": {"a", "c"}, "w4": {"d"}, "w5": {"d"}}
	for w, keys := range holds {
		var as []taskrouting.SkillAssignment
		for _, k := range keys {
			as = append(as, taskrouting.SkillAssignment{SkillID: k, Level: 1})
		}
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: w, Skills: as})
		require.NoError(t, err)
	}
	tests := []struct {
		name string
		p    taskrouting.SuggestSkillsParams
		want []string
	}{
		{"nothing selected: most held first", taskrouting.SuggestSkillsParams{}, []string{"a", "b", "d", "c", "e"}},
		{"held beside a", taskrouting.SuggestSkillsParams{Selected: []string{ids["a"]}}, []string{"b", "c", "d", "e"}},
		{"held beside a or d, by key too", taskrouting.SuggestSkillsParams{Selected: []string{ids["a"], "d"}}, []string{"b", "c", "e"}},
		{"limit", taskrouting.SuggestSkillsParams{Selected: []string{ids["a"]}, Limit: 1}, []string{"b"}},
		{"an unknown selection is ignored", taskrouting.SuggestSkillsParams{Selected: []string{"skl_nope"}}, []string{"a", "b", "c", "d", "e"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Skills.Suggest(ctx, tc.p)
			require.NoError(t, err)
			keys := []string{}
			for _, s := range got {
				keys = append(keys, s.Key)
			}
			if d := cmp.Diff(tc.want, keys); d != "" {
				t.Errorf("suggest (-want +got):\n%s", d)
			}
		})
	}
}
