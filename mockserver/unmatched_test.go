package mockserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWhyATaskWaits: a queued task's read and a suggest-workers answer without an eligible
// worker carry "unmatched", saying which tags nobody carries and what the nearest workers
// lack; a task that was offered has no such member.
func TestWhyATaskWaits(t *testing.T) {
	t.Parallel()
	// The nearest workers' reasons are the every-tag rules' (missingTag for each tag lacked).
	srv := Start(t, WithMatcher(MatcherConfig{Rules: RulesEveryTag}))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"english"}, "available": true})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "off", "tags": []string{"english", "billing"}, "available": false})
	cases := []struct {
		name string
		tags []string
		want wireUnmatched
	}{
		{name: "a misspelt tag", tags: []string{"englsh"}, want: wireUnmatched{
			Summary: "no worker carries tag englsh", UncarriedTags: []string{"englsh"}, NearestWorkers: []wireNearest{}}},
		{name: "carriers lack a tag or are away", tags: []string{"english", "billing"}, want: wireUnmatched{
			Summary:       "nearest workers: off unavailable; ana missingTag billing",
			UncarriedTags: []string{},
			NearestWorkers: []wireNearest{
				{WorkerID: "off", Carries: []string{"english", "billing"}, Lacks: []wireReason{{Kind: "unavailable"}}},
				{WorkerID: "ana", Carries: []string{"english"}, Lacks: []wireReason{{Kind: "missingTag", Tag: "billing"}}},
			}}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := "task_wait_" + string(rune('a'+i))
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": id, "tags": tc.tags})
			var task struct {
				Status    string         `json:"status"`
				Unmatched *wireUnmatched `json:"unmatched"`
			}
			require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/tasks/"+id, nil).Body, &task))
			require.Equal(t, "queued", task.Status)
			require.NotNil(t, task.Unmatched)
			if diff := cmp.Diff(tc.want, *task.Unmatched); diff != "" {
				t.Errorf("task read (-want +got):\n%s", diff)
			}
			var dry struct {
				Unmatched *wireUnmatched `json:"unmatched"`
			}
			require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "POST", "/tasks/suggest-workers", map[string]any{"tags": tc.tags}).Body, &dry))
			require.NotNil(t, dry.Unmatched)
			if diff := cmp.Diff(tc.want, *dry.Unmatched); diff != "" {
				t.Errorf("suggest-workers (-want +got):\n%s", diff)
			}
		})
	}

	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_offered", "tags": []string{"english"}})
	read := mustAPI(t, srv, 200, "GET", "/tasks/task_offered", nil).json(t)
	assert.Equal(t, "pending", read["status"])
	assert.NotContains(t, read, "unmatched")
	dry := mustAPI(t, srv, 200, "POST", "/tasks/suggest-workers", map[string]any{"tags": []string{"english"}}).json(t)
	assert.NotContains(t, dry, "unmatched", "a worker is eligible")
}
