package mockserver

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWhyATaskWaits: Server.WhyUnmatched and GET /_mock/tasks/{id}/unmatched say which tags
// nobody carries and what the nearest workers lack; the platform's own answers (the task's
// read, a suggest-workers dry run) carry no such member.
func TestWhyATaskWaits(t *testing.T) {
	t.Parallel()
	// The nearest workers' reasons are the every-tag rules' (missingTag for each tag lacked).
	srv := Start(t, WithMatcher(MatcherConfig{Rules: RulesEveryTag}))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"english"}, "available": true})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "off", "tags": []string{"english", "billing"}, "available": false})
	cases := []struct {
		name string
		tags []string
		want Unmatched
	}{
		{name: "a misspelt tag", tags: []string{"englsh"}, want: Unmatched{
			Summary: "no worker carries tag englsh", UncarriedTags: []string{"englsh"}, NearestWorkers: []NearestWorker{}}},
		{name: "carriers lack a tag or are away", tags: []string{"english", "billing"}, want: Unmatched{
			Summary:       "nearest workers: off unavailable; ana missingTag billing",
			UncarriedTags: []string{},
			NearestWorkers: []NearestWorker{
				{WorkerID: "off", Carries: []string{"english", "billing"}, Lacks: []MatchReason{{Kind: "unavailable"}}},
				{WorkerID: "ana", Carries: []string{"english"}, Lacks: []MatchReason{{Kind: "missingTag", Tag: "billing"}}},
			}}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := "task_wait_" + string(rune('a'+i))
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": id, "tags": tc.tags})
			got, err := srv.WhyUnmatched(id)
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Server.WhyUnmatched (-want +got):\n%s", diff)
			}
			admin := adminGet(t, srv, "/tasks/"+id+"/unmatched")
			require.Equal(t, 200, admin.Status, "%s", admin.Body)
			var overHTTP Unmatched
			require.NoError(t, json.Unmarshal(admin.Body, &overHTTP))
			if diff := cmp.Diff(tc.want, overHTTP); diff != "" {
				t.Errorf("GET /_mock/tasks/{id}/unmatched (-want +got):\n%s", diff)
			}
			read := mustAPI(t, srv, 200, "GET", "/tasks/"+id, nil).json(t)
			assert.Equal(t, "queued", read["status"])
			assert.NotContains(t, read, "unmatched", "a platform answer")
			dry := mustAPI(t, srv, 200, "POST", "/tasks/suggest-workers", map[string]any{"tags": tc.tags}).json(t)
			assert.NotContains(t, dry, "unmatched", "a platform answer")
		})
	}

	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_offered", "tags": []string{"english"}})
	_, err := srv.WhyUnmatched("task_offered")
	assert.ErrorIs(t, err, ErrTaskNotQueued)
	_, err = srv.WhyUnmatched("nope")
	assert.ErrorIs(t, err, ErrTaskNotFound)
	assert.Equal(t, 409, adminGet(t, srv, "/tasks/task_offered/unmatched").Status)
	assert.Equal(t, 404, adminGet(t, srv, "/tasks/nope/unmatched").Status)
}

// adminGet sends GET to an admin endpoint (path under /_mock) with the server's key.
func adminGet(t *testing.T, srv *Server, path string) answer {
	t.Helper()
	req, err := http.NewRequest("GET", srv.AdminURL()+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{Status: resp.StatusCode, Header: resp.Header, Body: body}
}
