package mockserver

import (
	"github.com/taskrouting/taskrouting-go/webhook"

	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeInto decodes an answer into the platform's shape, refusing members the shape lacks,
// so a drift in either direction fails.
func decodeInto(t *testing.T, a answer, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(a.Body)))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), "%s", a.Body)
}

func parseISO(t *testing.T, s string) time.Time {
	t.Helper()
	got, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err, "not an ISO-8601 time: %q", s)
	return got
}

// TestIdentityAndBreaksInPlatformShapes decodes identities.create, worker.startBreak,
// worker.me and worker.endBreak into the platform's shapes: times are ISO-8601 strings at the
// manual clock's instant.
func TestIdentityAndBreaksInPlatformShapes(t *testing.T) {
	t.Parallel()
	clk := NewManualClock(t0)
	srv := Start(t, WithClock(clk))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"a"}})

	var ident struct {
		Identity struct {
			ID, WorkerID, Label, Status string
			Email                       *string
			HasPin                      bool
			ActivatedAt                 *string
			CreatedAt                   string
			RevokedAt                   *string
		}
	}
	decodeInto(t, mustAPI(t, srv, 200, "POST", "/workers/agent_1/identity", map[string]any{"label": "desk 4", "pin": "4921"}), &ident)
	assert.True(t, strings.HasPrefix(ident.Identity.ID, "wid_"), ident.Identity.ID)
	assert.Equal(t, "active", ident.Identity.Status)
	assert.True(t, ident.Identity.HasPin)
	assert.True(t, parseISO(t, ident.Identity.CreatedAt).Equal(t0))

	var login struct {
		Token    string `json:"token"`
		WorkerID string `json:"workerId"`
	}
	a := call(t, srv, "", "POST", "/worker-auth/login", map[string]any{"workspaceId": srv.WorkspaceID(), "workerId": "agent_1", "pin": "4921"})
	require.Equal(t, 200, a.Status, "%s", a.Body)
	require.NoError(t, json.Unmarshal(a.Body, &login))

	type breakAnswer struct {
		WorkerID string  `json:"workerId"`
		OnBreak  bool    `json:"onBreak"`
		Since    *string `json:"since"`
		EndedAt  *string `json:"endedAt"`
	}
	var started breakAnswer
	a = call(t, srv, login.Token, "POST", "/portal/breaks/start", map[string]any{"reason": "lunch"})
	require.Equal(t, 200, a.Status, "%s", a.Body)
	decodeInto(t, a, &started)
	require.NotNil(t, started.Since)
	assert.True(t, started.OnBreak)
	assert.True(t, parseISO(t, *started.Since).Equal(t0))

	var me struct {
		WorkerID        string          `json:"workerId"`
		Label           *string         `json:"label"`
		Available       bool            `json:"available"`
		PendingApproval bool            `json:"pendingApproval"`
		OnBreak         bool            `json:"onBreak"`
		BreakStartedAt  *string         `json:"breakStartedAt"`
		BreakReason     *string         `json:"breakReason"`
		Skills          json.RawMessage `json:"skills"`
		Locale          *string         `json:"locale"`
		EmailNotices    bool            `json:"emailNotices"`
		QueueDepth      int             `json:"queueDepth"`
		// SkillSetupPending is false: the workspace has no skill catalogue to choose from.
		SkillSetupPending bool `json:"skillSetupPending"`
	}
	a = call(t, srv, login.Token, "GET", "/portal/me", nil)
	require.Equal(t, 200, a.Status, "%s", a.Body)
	decodeInto(t, a, &me)
	require.NotNil(t, me.Label)
	assert.Equal(t, "desk 4", *me.Label)
	require.NotNil(t, me.BreakStartedAt)
	assert.True(t, parseISO(t, *me.BreakStartedAt).Equal(t0))
	assert.JSONEq(t, `[]`, string(me.Skills))

	clk.Advance(15 * time.Minute)
	var ended breakAnswer
	a = call(t, srv, login.Token, "POST", "/portal/breaks/end", nil)
	require.Equal(t, 200, a.Status, "%s", a.Body)
	decodeInto(t, a, &ended)
	require.NotNil(t, ended.EndedAt)
	assert.True(t, parseISO(t, *ended.EndedAt).Equal(t0.Add(15*time.Minute)))
}

// TestPlatformRequestLimits holds the mock to api/openapi.json's request rules at the edges
// the platform documents: each refused request names the member and changes nothing.
func TestPlatformRequestLimits(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"a"}})
	weights := func(n int) map[string]float64 {
		m := map[string]float64{}
		for i := range n {
			m["t"+strings.Repeat("x", i%3)+string(rune('a'+i%26))+strings.Repeat("y", i/26)] = 1
		}
		return m
	}
	cases := []struct {
		name, method, path string
		body               any
		want               string // "" : accepted
	}{
		{"identity without label", "POST", "/workers/agent_1/identity", map[string]any{"pin": "4921"}, "body must have required property 'label'"},
		{"identity label too long", "POST", "/workers/agent_1/identity", map[string]any{"label": strings.Repeat("l", 129), "pin": "4921"}, "body/label must NOT have more than 128 characters"},
		{"identity PIN too short", "POST", "/workers/agent_1/identity", map[string]any{"label": "d", "pin": "492"}, "body/pin must NOT have fewer than 4 characters"},
		{"identity PIN at 256", "POST", "/workers/agent_1/identity", map[string]any{"label": "d", "pin": strings.Repeat("9", 256)}, ""},
		{"worker meta refused", "POST", "/workers", map[string]any{"id": "w2", "meta": map[string]any{"a": 1}}, "body must NOT have additional properties"},
		{"worker patch meta refused", "PATCH", "/workers/agent_1", map[string]any{"meta": map[string]any{}}, "body must NOT have additional properties"},
		{"routing weights at 128", "PATCH", "/workers/agent_1", map[string]any{"routingWeights": weights(128)}, ""},
		{"routing weights past 128", "PATCH", "/workers/agent_1", map[string]any{"routingWeights": weights(129)}, "body/routingWeights must NOT have more than 128 properties"},
		{"task geo object refused", "POST", "/tasks", map[string]any{"tags": []string{"a"}, "geo": map[string]any{}}, "body must NOT have additional properties"},
		{"task team refused", "POST", "/tasks", map[string]any{"tags": []string{"a"}, "team": "blue"}, "body must NOT have additional properties"},
		{"task latitude past 90", "POST", "/tasks", map[string]any{"tags": []string{"a"}, "latitude": 91}, "body/latitude must be <= 90"},
		{"suggest has no skillThresholds", "POST", "/tasks/suggest-workers", map[string]any{"tags": []string{"a"}, "skillThresholds": map[string]any{"a": 1}}, "body must NOT have additional properties"},
		{"suggest with required skills and geo", "POST", "/tasks/suggest-workers", map[string]any{"tags": []string{"a"}, "requiredSkills": []any{map[string]any{"skillId": "s", "minLevel": 2}}, "latitude": 1, "longitude": 2, "maxDistanceKm": 3, "requireGeo": true, "allowedCidrs": []string{"10.0.0.0/8"}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := mustAPI(t, srv, 200, "GET", "/workers/agent_1", nil).Body
			a := api(t, srv, tc.method, tc.path, tc.body)
			if tc.want == "" {
				assert.Less(t, a.Status, 300, "%s", a.Body)
				return
			}
			assert.Equal(t, 400, a.Status, "%s", a.Body)
			assert.Equal(t, "validation_failed", a.errCode(t))
			var env struct{ Error struct{ Message string } }
			require.NoError(t, json.Unmarshal(a.Body, &env))
			assert.Equal(t, tc.want, env.Error.Message)
			assert.JSONEq(t, string(before), string(mustAPI(t, srv, 200, "GET", "/workers/agent_1", nil).Body), "state unchanged")
		})
	}
}

// TestWorkerSkillsTeamsGeoAreStored sends the platform's worker members and reads back what
// the platform lists (skills and teams; ip and geo are stored but, as on the platform, not
// listed); a patch of one member keeps the others.
func TestWorkerSkillsTeamsGeoAreStored(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithClock(NewManualClock(t0)))
	var team struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "POST", "/teams", map[string]any{"key": "a", "name": "A"}).Body, &team))
	var german struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 201, "POST", "/skills", map[string]any{"key": "sk_de", "name": "German"}).Body, &german))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{
		"id": "w1", "tags": []string{"a"}, "skills": []any{map[string]any{"skillId": "sk_de", "level": 4}},
		"teamIds": []string{team.ID}, "locale": "de", "ip": "10.1.2.3", "latitude": 52.5, "longitude": 13.4, "maxTravelDistanceKm": 30,
	})
	mustAPI(t, srv, 200, "PATCH", "/workers/w1", map[string]any{"latitude": 48.1})
	var got struct {
		Skills []struct {
			SkillID string  `json:"skillId"`
			Level   int     `json:"level"`
			Weight  float64 `json:"weight"`
		} `json:"skills"`
		Teams []struct {
			TeamID string `json:"teamId"`
			Role   string `json:"role"`
		} `json:"teams"`
		Locale string `json:"locale"`
	}
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "GET", "/workers/w1", nil).Body, &got))
	want := got
	want.Skills = append(want.Skills[:0:0], struct {
		SkillID string  `json:"skillId"`
		Level   int     `json:"level"`
		Weight  float64 `json:"weight"`
	}{german.ID, 4, 80}) // named by key, listed by id; weight level x 20
	want.Teams = append(want.Teams[:0:0], struct {
		TeamID string `json:"teamId"`
		Role   string `json:"role"`
	}{team.ID, "member"})
	want.Locale = "de"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("worker (-want +got):\n%s", diff)
	}
}

// TestTaskUpdateRequeuesWhenTheHolderNoLongerQualifies edits the tags of a pending task so
// that its holder lacks one: the offer is taken back (task.released, reason "updated") and
// goes to the worker that qualifies.
func TestTaskUpdateRequeuesWhenTheHolderNoLongerQualifies(t *testing.T) {
	t.Parallel()
	// Under the every-tag rules a holder without the new tag no longer qualifies.
	srv := Start(t, WithClock(NewManualClock(t0)), WithMatcher(MatcherConfig{Rules: RulesEveryTag}))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "wa", "tags": []string{"a"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}, "title": "old"})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "wab", "tags": []string{"a", "b"}, "available": true})

	var got map[string]any
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "PATCH", "/tasks/t1", map[string]any{"tags": []string{"a", "b"}, "title": nil}).Body, &got))
	assert.Equal(t, map[string]any{"id": "t1", "status": "pending", "tags": []any{"a", "b"}, "priority": 0.0, "requeued": true, "previousWorkerId": "wa"}, got)

	task := mustAPI(t, srv, 200, "GET", "/tasks/t1", nil).json(t)
	assert.Equal(t, "wab", task["workerId"])
	assert.NotContains(t, task, "title", "null clears the title")
	var released []map[string]any
	for _, ev := range srv.Events() {
		if ev.Kind == webhook.KindTaskReleased {
			var body map[string]any
			require.NoError(t, json.Unmarshal(ev.Payload, &body))
			released = append(released, body)
		}
	}
	require.Len(t, released, 1)
	assert.Contains(t, string(mustJSON(t, released[0])), `"updated"`)

	// setPriority is the same call with priority alone and answers the same shape.
	got = nil
	require.NoError(t, json.Unmarshal(mustAPI(t, srv, 200, "PATCH", "/tasks/t1", map[string]any{"priority": 7}).Body, &got))
	assert.Equal(t, map[string]any{"id": "t1", "status": "pending", "tags": []any{"a", "b"}, "priority": 7.0, "requeued": false}, got)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
