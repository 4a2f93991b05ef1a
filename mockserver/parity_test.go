package mockserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// members decodes an answer's top-level object with its members kept raw, so a test can tell
// a member sent as null from one left out.
func members(t *testing.T, raw []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m), "%s", raw)
	return m
}

// TestWorkflowSaveTakesWhatThePlatformTakes: an assignment step without
// assignmentTemplate.tags is saved (a run that enters it fails the step, since the mock
// routes an assignment by its tags), and a graph with no steps is 400 invalid_workflow.
func TestWorkflowSaveTakesWhatThePlatformTakes(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	saved := mustAPI(t, srv, 200, "PUT", "/workflows/wf_onboard", map[string]any{
		"name": "Onboarding", "initialStepId": "collect",
		"steps": []any{map[string]any{"id": "collect", "name": "Collect docs", "taskType": "assignment", "defaultNextStepId": nil}},
	})
	assert.Equal(t, `"collect"`, string(members(t, saved.Body)["initialStepId"]))
	run := mustAPI(t, srv, 201, "POST", "/workflows/wf_onboard/runs", map[string]any{})
	assert.Equal(t, `"failed"`, string(members(t, run.Body)["status"]), "the step without tags fails: %s", run.Body)

	for name, body := range map[string]map[string]any{
		"no steps":                   {"name": "Broken", "steps": []any{}},
		"an initial step among none": {"name": "Broken", "initialStepId": "missing", "steps": []any{}},
	} {
		a := api(t, srv, "PUT", "/workflows/wf_broken", body)
		assert.Equal(t, 400, a.Status, name)
		assert.Equal(t, CodeInvalidWorkflow, a.errCode(t), name)
	}
	mustAPI(t, srv, 404, "GET", "/workflows/wf_broken", nil)
}

// TestCreatedAnswers201: skills.create and tasks.comments.add answer 201 Created, as the
// platform does.
func TestCreatedAnswers201(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 201, "POST", "/skills", map[string]any{"key": "refunds", "name": "Refunds"})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	mustAPI(t, srv, 201, "POST", "/tasks/task_1/comments", map[string]any{"body": "Escalated"})
}

// TestCommentAuthorCarriesTheWorkersLabel: a comment added for a worker whose identity has a
// label carries that label; an authorLabel in the body wins; a worker without a label and the
// API's own comments keep null.
func TestCommentAuthorCarriesTheWorkersLabel(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}})
	mustAPI(t, srv, 200, "POST", "/workers/agent_1/identity", map[string]any{"label": "Ada", "pin": "4821"})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	tests := []struct {
		name string
		body map[string]any
		want string
	}{
		{"labelled worker", map[string]any{"body": "Called back", "workerId": "agent_1"}, `{"type":"worker","id":"agent_1","label":"Ada"}`},
		{"label sent", map[string]any{"body": "Noted", "workerId": "agent_1", "authorLabel": "Ada L."}, `{"type":"worker","id":"agent_1","label":"Ada L."}`},
		{"worker without identity", map[string]any{"body": "Hi", "workerId": "agent_9"}, `{"type":"worker","id":"agent_9","label":null}`},
		{"the API", map[string]any{"body": "Escalated"}, `{"type":"api","id":null,"label":null}`},
	}
	for _, tc := range tests {
		a := mustAPI(t, srv, 201, "POST", "/tasks/task_1/comments", tc.body)
		comment := members(t, members(t, a.Body)["comment"])
		assert.JSONEq(t, tc.want, string(comment["author"]), tc.name)
	}
}

// TestMembersThePlatformSends: members the platform's answers carry, with null where it sends
// null: stats.meter.includedTasksPerMonth, learning.status.signalWeights (with learning on),
// worker.me.skillSetupPending, learning.workerStats skills[].skill and workers.get
// skills[].weightOverride.
func TestMembersThePlatformSends(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)), WithLimits(Limits{IncludedTasksPerMonth: 50000}),
		WithMatcher(MatcherConfig{LearningRanks: true}))

	stats := members(t, mustAPI(t, srv, 200, "GET", "/stats", nil).Body)
	assert.Equal(t, "50000", string(members(t, stats["meter"])["includedTasksPerMonth"]))

	status := members(t, mustAPI(t, srv, 200, "GET", "/learning/status", nil).Body)
	assert.JSONEq(t, `{}`, string(status["signalWeights"]), "no signal credited yet")

	skill := members(t, mustAPI(t, srv, 201, "POST", "/skills", map[string]any{"key": "refunds", "name": "Refunds"}).Body)
	var skillID string
	require.NoError(t, json.Unmarshal(skill["id"], &skillID))
	skillTag := "skill:" + skillID
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english", skillTag}, "available": true,
		"skills": []any{map[string]any{"skillId": skillID, "level": 4}}})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_2", "tags": []string{"english"}})
	mustAPI(t, srv, 200, "POST", "/workers/agent_2/identity", map[string]any{"label": "Grace", "pin": "4821"})

	detail := members(t, mustAPI(t, srv, 200, "GET", "/workers/agent_1", nil).Body)
	var skills []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(detail["skills"], &skills))
	require.Len(t, skills, 1)
	assert.Equal(t, "null", string(skills[0]["weightOverride"]), "sent as null without an override")

	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english", skillTag}})
	mustAPI(t, srv, 200, "POST", "/tasks/task_1/accept", map[string]any{"workerId": "agent_1"})
	mustAPI(t, srv, 200, "POST", "/tasks/task_1/feedback", map[string]any{"signals": map[string]any{"csat": 0.9, "handleTime": -0.2}})
	status = members(t, mustAPI(t, srv, 200, "GET", "/learning/status", nil).Body)
	assert.JSONEq(t, `{"csat":1,"handleTime":1}`, string(status["signalWeights"]), "every credited signal weighs 1")

	var ws struct {
		Skills []map[string]json.RawMessage `json:"skills"`
	}
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/learning/workers/agent_1", nil).Body, &ws))
	got := map[string]string{}
	for _, s := range ws.Skills {
		var tag string
		require.NoError(t, json.Unmarshal(s["tag"], &tag))
		got[tag] = string(s["skill"])
	}
	assert.Equal(t, map[string]string{"english": "null", skillTag: `{"id":"` + skillID + `","name":"Refunds"}`}, got)

	// agent_2 holds no skill while the workspace has a catalogue: asked to choose, until it
	// answers, even with an empty set.
	login := call(t, srv, "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": "agent_2", "pin": "4821"})
	require.Equal(t, 200, login.Status, "%s", login.Body)
	token := login.json(t)["token"].(string)
	me := func() string {
		a := call(t, srv, token, "GET", "/portal/me", nil)
		require.Equal(t, 200, a.Status, "%s", a.Body)
		return string(members(t, a.Body)["skillSetupPending"])
	}
	assert.Equal(t, "true", me())
	set := call(t, srv, token, "PUT", "/portal/me/skills", map[string]any{"skills": []any{}})
	require.Equal(t, 200, set.Status, "%s", set.Body)
	assert.Equal(t, "false", me())
}
