package mockserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// rawCall sends body exactly as given (nil: no body and no content type) and returns the
// status, the error code and message of the envelope, and the raw answer.
func rawCall(t *testing.T, srv *mockserver.Server, method, path, contentType string, body []byte) (int, string, string) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, srv.URL()+path, rd)
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var env struct {
		Error struct{ Code, Message string }
	}
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	require.NoError(t, err)
	_ = json.Unmarshal(buf.Bytes(), &env)
	return resp.StatusCode, env.Error.Code, env.Error.Message
}

// TestInvalidTextRefused: a string that is not Unicode text (bytes that are not UTF-8, a
// lone surrogate escape) is refused with 400 naming the member on every operation that
// takes tags, and nothing is stored. A surrogate pair (an emoji) is text and passes.
func TestInvalidTextRefused(t *testing.T) {
	srv := mockserver.Start(t)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w1", Tags: []string{"english"}})
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"english"}})
	require.NoError(t, err)

	tests := []struct {
		name, method, path, body, member string
	}{
		{"tasks.create lone high surrogate", "POST", "/tasks", `{"id":"bad1","tags":["english","\ud800"]}`, "body/tags/1"},
		{"tasks.create lone low surrogate", "POST", "/tasks", `{"id":"bad1","tags":["x\uDC01y"]}`, "body/tags/0"},
		{"tasks.create high surrogate then a letter", "POST", "/tasks", `{"id":"bad1","tags":["\ud83dA"]}`, "body/tags/0"},
		{"tasks.create invalid UTF-8", "POST", "/tasks", "{\"id\":\"bad1\",\"tags\":[\"a\xffb\"]}", "body/tags/0"},
		{"tasks.create nested member", "POST", "/tasks", `{"id":"bad1","tags":["english"],"meta":{"k":["ok","\udfff"]}}`, "body/meta/k/1"},
		{"tasks.create member name", "POST", "/tasks", `{"id":"bad1","tags":["english"],"meta":{"\ud800":1}}`, "body/meta has a member name"},
		{"tasks.update", "PATCH", "/tasks/t1", `{"tags":["\ud800"]}`, "body/tags/0"},
		{"tasks.suggestWorkers", "POST", "/tasks/suggest-workers", "{\"tags\":[\"\xc3\"]}", "body/tags/0"},
		{"tasks.check", "POST", "/tasks/check", `{"tags":["english"],"skillThresholds":{"\udc00":1}}`, "body/skillThresholds has a member name"},
		{"workers.upsert", "POST", "/workers", `{"id":"w2","tags":["\ud800"]}`, "body/tags/0"},
		{"workers.patch", "PATCH", "/workers/w1", "{\"tags\":[\"english\",\"\xed\xa0\x80\"]}", "body/tags/1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, code, msg := rawCall(t, srv, tc.method, tc.path, "application/json", []byte(tc.body))
			assert.Equal(t, http.StatusBadRequest, status)
			assert.Equal(t, taskrouting.CodeValidationFailed, code)
			assert.True(t, strings.HasPrefix(msg, tc.member), "message %q does not name %s", msg, tc.member)
		})
	}
	_, err = c.Tasks.Get(ctx, "bad1")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound, "a refused create stored the task")
	task, err := c.Tasks.Get(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, []string{"english"}, task.Tags, "a refused update changed the task")
	w, err := c.Workers.Get(ctx, "w1")
	require.NoError(t, err)
	assert.Equal(t, []string{"english"}, w.Tags, "a refused patch changed the worker")

	status, _, msg := rawCall(t, srv, "POST", "/tasks", "application/json",
		[]byte(`{"id":"emoji","tags":["\ud83d\ude00","caf\u00e9","plain","\uD83D\uDE01x","a\\ud800","q\"\/\b\t","😃"]}`))
	require.Equal(t, http.StatusAccepted, status, msg)
	task, err = c.Tasks.Get(ctx, "emoji")
	require.NoError(t, err)
	assert.Equal(t, []string{"😀", "café", "plain", "😁x", `a\ud800`, "q\"/\b\t", "😃"}, task.Tags)
}

// TestEmptyJSONBodyRefused: an empty body announced as JSON is refused even where the body
// is optional; the same call without a body (and without a content type) is served.
func TestEmptyJSONBodyRefused(t *testing.T) {
	srv := mockserver.Start(t)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"english"}})
	require.NoError(t, err)
	for _, body := range [][]byte{{}, []byte("  \n")} {
		status, code, msg := rawCall(t, srv, "POST", "/tasks/t1/escalate", "application/json", body)
		assert.Equal(t, http.StatusBadRequest, status, msg)
		assert.Equal(t, taskrouting.CodeValidationFailed, code)
	}
	task, err := c.Tasks.Get(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, 0, task.EscalationLevel, "a refused escalate changed the task")
	status, _, msg := rawCall(t, srv, "POST", "/tasks/t1/escalate", "", nil)
	assert.Equal(t, http.StatusOK, status, msg)
}

// TestRepeatedQueryParameterRefused: a scalar query parameter sent twice is refused as the
// wrong type, as the platform's validator does; it is not read as its first value.
func TestRepeatedQueryParameterRefused(t *testing.T) {
	srv := mockserver.Start(t)
	for _, path := range []string{"/tasks?limit=1&limit=2", "/tasks?limit=1&limit=1", "/tasks?status=queued&status=pending"} {
		status, code, msg := rawCall(t, srv, "GET", path, "", nil)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %s", path, msg)
		assert.Equal(t, taskrouting.CodeValidationFailed, code, path)
		assert.Contains(t, msg, "querystring/", path)
	}
	status, _, msg := rawCall(t, srv, "GET", "/tasks?limit=1", "", nil)
	assert.Equal(t, http.StatusOK, status, msg)
}

// TestSupervisorTeamScopeDecodesTeamID: a task that names its team with an escaped teamId
// is the team's: its supervisor may act on it and the overview counts it.
func TestSupervisorTeamScopeDecodesTeamID(t *testing.T) {
	srv := mockserver.Start(t)
	c := newClient(t, srv, srv.APIKey())
	ctx := context.Background()
	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing"})
	require.NoError(t, err)
	escaped := strings.ReplaceAll(team.ID, "_", `\u005f`)
	require.NotEqual(t, team.ID, escaped, "the team id has no underscore to escape")
	status, _, msg := rawCall(t, srv, "POST", "/tasks", "application/json",
		[]byte(`{"id":"esc","tags":["english"],"teamId":"`+escaped+`"}`))
	require.Equal(t, http.StatusAccepted, status, msg)
	s, _ := supervise(t, srv, mockserver.SupervisorInvite{TeamID: team.ID})
	board, err := s.Overview(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, board.Counts.Queued, "the overview counts the task")
	_, err = s.SetPriority(ctx, "esc", 3)
	assert.NoError(t, err, "the team's supervisor acts on the task")
}
