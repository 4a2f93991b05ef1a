package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stateStep is one thing a random test story does: an API request, or moving the clock.
type stateStep struct {
	method, path string
	body         any
	hdr          []string
	advance      time.Duration // with method "": a step that moves the clock (maybe by 0)
}

// stepAnswer is what one step answered, compared between two servers.
type stepAnswer struct {
	Step   string
	Status int
	Body   string
}

// storyServer is a server of a random story with the manual clock that drives it.
type storyServer struct {
	srv *Server
	clk *ManualClock
}

func (ss storyServer) run(t *testing.T, st stateStep) stepAnswer {
	t.Helper()
	if st.method == "" {
		ss.clk.Advance(st.advance)
		return stepAnswer{Step: "advance " + st.advance.String()}
	}
	a := api(t, ss.srv, st.method, st.path, st.body, st.hdr...)
	return stepAnswer{Step: st.method + " " + st.path, Status: a.Status, Body: string(a.Body)}
}

// nextStep draws a step of a random story: workers come, go, change tags and availability,
// tasks are created (some with server-made ids), answered, cancelled, rewarded and read, and
// the clock moves so that offers expire. Answers name their task and worker from the offers
// the server made, read from its events, so that a good share of them succeed.
func nextStep(rng *rand.Rand, srv *Server, n int) stateStep {
	tags := []string{"en", "fr", "vip"}
	pickTags := func() []string {
		var out []string
		for _, t := range tags {
			if rng.IntN(2) == 0 {
				out = append(out, t)
			}
		}
		if len(out) == 0 {
			out = []string{tags[rng.IntN(len(tags))]}
		}
		return out
	}
	worker := fmt.Sprintf("w%d", rng.IntN(4))
	var offers [][2]string
	for _, ev := range srv.Events() {
		if ev.Kind == "task.matched" {
			offers = append(offers, [2]string{ev.TaskID, ev.WorkerID})
		}
	}
	offer := func() (string, string) {
		if len(offers) == 0 {
			return fmt.Sprintf("t%d", rng.IntN(n+1)), worker
		}
		o := offers[len(offers)-1-rng.IntN(min(len(offers), 4))]
		return o[0], o[1]
	}
	switch k := rng.IntN(14); k {
	case 0, 1:
		return stateStep{method: "POST", path: "/workers", body: map[string]any{
			"id": worker, "tags": pickTags(), "available": rng.IntN(4) != 0, "maxBacklogSize": 1 + rng.IntN(3),
		}}
	case 2:
		return stateStep{method: "POST", path: "/workers/" + worker + "/availability", body: map[string]any{"available": rng.IntN(2) == 0}}
	case 3, 4, 5:
		body := map[string]any{"tags": pickTags(), "priority": rng.IntN(5)}
		if rng.IntN(3) != 0 {
			body["id"] = fmt.Sprintf("t%d", n)
		}
		switch rng.IntN(8) {
		case 0:
			body["sla"] = map[string]any{"expireAfterMs": 30000 + rng.IntN(90000), "completeWithinMs": 60000, "onCompletionBreach": "requeue"}
		case 1:
			body["escalation"] = map[string]any{"respondWithinMs": 10000 + rng.IntN(20000)}
		case 2:
			if rng.IntN(3) == 0 {
				body["recurrence"] = map[string]any{"everyMs": 45000}
			}
		}
		var hdr []string
		if rng.IntN(4) == 0 {
			hdr = []string{"Idempotency-Key", fmt.Sprintf("k%d", rng.IntN(3))}
		}
		return stateStep{method: "POST", path: "/tasks", body: body, hdr: hdr}
	case 6, 7:
		task, w := offer()
		return stateStep{method: "POST", path: "/tasks/" + task + "/accept", body: map[string]any{"workerId": w}}
	case 8:
		task, w := offer()
		return stateStep{method: "POST", path: "/tasks/" + task + "/reject", body: map[string]any{"workerId": w}}
	case 9:
		task, w := offer()
		return stateStep{method: "POST", path: "/tasks/" + task + "/complete", body: map[string]any{"workerId": w}}
	case 10:
		task, _ := offer()
		if rng.IntN(2) == 0 {
			return stateStep{method: "DELETE", path: "/tasks/" + task}
		}
		return stateStep{method: "POST", path: "/tasks/" + task + "/reward", body: map[string]any{"reward": rng.Float64()*2 - 1}}
	case 11:
		task, _ := offer()
		return stateStep{method: "GET", path: "/tasks/" + task}
	case 12:
		task, w := offer()
		switch rng.IntN(6) {
		case 0:
			return stateStep{method: "DELETE", path: "/workers/" + worker}
		case 1:
			return stateStep{method: "POST", path: "/skills", body: map[string]any{"key": fmt.Sprintf("skill%d", n), "name": "Skill"}}
		case 2:
			return stateStep{method: "POST", path: "/tasks/" + task + "/assign", body: map[string]any{"workerId": worker, "force": rng.IntN(2) == 0}}
		case 3:
			return stateStep{method: "POST", path: "/tasks/" + task + "/fail", body: map[string]any{"workerId": w, "reason": "broken"}}
		}
		return stateStep{method: "POST", path: "/teams", body: map[string]any{"key": fmt.Sprintf("team%d", n), "name": "Team"}}
	default:
		return stateStep{advance: time.Duration(rng.IntN(90)) * time.Second}
	}
}

// TestRestoredStateDecidesAlike is the property saved state promises: a random story runs on
// one server, its state is saved at a random point and restored into a fresh server (with
// another clock and another seed), then the rest of the story runs on both. Every answer, every
// event after the save point and the final saved states must be the same.
func TestRestoredStateDecidesAlike(t *testing.T) {
	const stories, steps = 40, 60
	// What the stories did after their save point, over all of them: a property that held
	// only because nothing happened would prove nothing.
	seen := map[string]int{}
	t.Cleanup(func() {
		t.Logf("after the save points: %v", seen)
		for _, k := range []string{"2xx", "4xx", "task.matched", "task.accepted", "task.expired", "task.completed", "task.rejected", "server-made id"} {
			if seen[k] == 0 {
				t.Errorf("no story had %s after its save point", k)
			}
		}
	})
	for story := range stories {
		t.Run(fmt.Sprint(story), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(story), 33))
			var matcher MatcherConfig
			if story%4 == 3 {
				matcher = MatcherConfig{Rules: RulesEveryTag, Mode: ModeFirstCome}
			}
			clkA := NewManualClock(t0)
			a := storyServer{Start(t, WithClock(clkA), WithSeed(uint64(story)), WithMatcher(matcher)), clkA}
			if story%2 == 1 {
				a.srv.Reset() // ids of a later generation carry its tag ("evt_<tag>_1")
			}
			cut := rng.IntN(steps)
			for n := range cut {
				a.run(t, nextStep(rng, a.srv, n))
			}
			saved, err := a.srv.Snapshot(context.Background())
			require.NoError(t, err)
			eventsAtCut := len(a.srv.Events())

			clkB := NewManualClock(t0.Add(-time.Hour))
			b := storyServer{Start(t, WithClock(clkB), WithSeed(99), WithMatcher(matcher)), clkB}
			require.NoError(t, b.srv.Restore(context.Background(), saved))
			require.Equal(t, clkA.Now(), clkB.Now(), "the restored clock")

			var gotA, gotB []stepAnswer
			for n := cut; n < steps; n++ {
				st := nextStep(rng, a.srv, n)
				gotA = append(gotA, a.run(t, st))
				gotB = append(gotB, b.run(t, st))
			}
			for _, a := range gotA {
				if a.Status != 0 {
					seen[fmt.Sprintf("%dxx", a.Status/100)]++
				}
				if a.Status == 202 && strings.Contains(a.Body, `"id":"task_`) {
					seen["server-made id"]++
				}
			}
			for _, ev := range b.srv.Events() {
				seen[string(ev.Kind)]++
			}
			if d := cmp.Diff(gotA, gotB); d != "" {
				t.Fatalf("answers after the restore differ (-original +restored):\n%s", d)
			}
			// Seq is the place in this server's journal, which a restore starts afresh; the
			// events themselves must be the same.
			if d := cmp.Diff(a.srv.Events()[eventsAtCut:], b.srv.Events(), cmpopts.EquateEmpty(),
				cmpopts.IgnoreFields(Event{}, "Seq")); d != "" {
				t.Fatalf("events after the restore differ (-original +restored):\n%s", d)
			}
			endA, err := a.srv.Snapshot(context.Background())
			require.NoError(t, err)
			endB, err := b.srv.Snapshot(context.Background())
			require.NoError(t, err)
			if d := cmp.Diff(string(endA), string(endB)); d != "" {
				t.Fatalf("final states differ (-original +restored):\n%s", d)
			}
		})
	}
}

// settableClock is a clock that is not a ManualClock: the server treats it as the wall clock,
// so only a request notices that a deadline has passed, as under real time.
type settableClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *settableClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *settableClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestStateAfterAReadPastADeadline: under a clock that is not manual, a read past an
// offer's deadline fires nothing (only a write runs what is due, and the platform's rules
// expire offers in a batch at that write). The saved state holds no moment for the read,
// so the restored server has the same offers with the same deadlines.
func TestStateAfterAReadPastADeadline(t *testing.T) {
	clk := &settableClock{now: t0}
	a := Start(t, WithClock(clk), withoutTimerLoop()) // no timer: only requests run what is due
	mustAPI(t, a, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}, "available": true, "maxBacklogSize": 1})
	mustAPI(t, a, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"en"}})
	clk.add(61 * time.Second)
	mustAPI(t, a, 200, "GET", "/tasks/t1", nil) // the offer expired at 60 s; seen at 61 s
	clk.add(10 * time.Second)
	mustAPI(t, a, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"en"}})
	saved, err := a.Snapshot(context.Background())
	require.NoError(t, err)

	b := Start(t, WithClock(&settableClock{now: t0}), withoutTimerLoop())
	require.NoError(t, b.Restore(context.Background(), saved))
	again, err := b.Snapshot(context.Background())
	require.NoError(t, err)
	var doc struct{ Clock time.Time }
	require.NoError(t, json.Unmarshal(again, &doc))
	assert.Equal(t, t0, doc.Clock, "a clock that is not manual is not set")
	if d := cmp.Diff(strings.Replace(string(saved), `"clock": "2025-11-21T04:41:11Z"`, `"clock": "2025-11-21T04:40:00Z"`, 1), string(again)); d != "" {
		t.Errorf("the restored state differs (-saved +restored):\n%s", d)
	}
	task := mustAPI(t, b, 200, "GET", "/tasks/t1", nil).json(t)
	assert.Equal(t, "pending", task["status"], "offered again when the write after the deadline ran the expiry")
}

// savedStory is a small saved state: two workers, a task offered to one of them, a team,
// a skill and learning from an accepted task.
func savedStory(t *testing.T) (*Server, []byte) {
	t.Helper()
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}, "available": true})
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "bo", "tags": []string{"fr"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"en"}, "priority": 2})
	mustAPI(t, srv, 200, "POST", "/tasks/t1/accept", map[string]any{"workerId": "ana"})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"en"}, "priority": 1})
	mustAPI(t, srv, 200, "POST", "/teams", map[string]any{"key": "a", "name": "A"})
	mustAPI(t, srv, 201, "POST", "/skills", map[string]any{"key": "refunds", "name": "Refunds"})
	a := stateCall(t, srv, "GET", nil)
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Body)
	return srv, a.Body
}

// TestStateDocumentReadsAsTheState checks the readable members against the server's own
// answers: the document is something a person can read and write.
func TestStateDocumentReadsAsTheState(t *testing.T) {
	_, raw := savedStory(t)
	// What a suite in another language does with the schema file, with the Go validator.
	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(StateSchema()))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	require.NoError(t, c.AddResource("state.json", schemaDoc))
	schema, err := c.Compile("state.json")
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	require.NoError(t, schema.Validate(inst), "a saved state is valid under its schema")
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	assert.Equal(t, StateKind, doc["kind"])
	assert.EqualValues(t, StateVersion, doc["version"])
	assert.Equal(t, "2025-11-21T04:40:00Z", doc["clock"])
	ws := doc["workspaces"].([]any)[0].(map[string]any)
	assert.Equal(t, "ws_sandbox", ws["id"])
	workers := ws["workers"].([]any)
	require.Len(t, workers, 2)
	ana := workers[0].(map[string]any)
	assert.Equal(t, "ana", ana["id"])
	assert.Equal(t, []any{"t2"}, ana["offers"])
	tasks := ws["tasks"].([]any)
	require.Len(t, tasks, 2)
	assert.Equal(t, map[string]any{"status": "accepted", "workerId": "ana"}, pick(tasks[0], "status", "workerId"))
	assert.Equal(t, map[string]any{"status": "pending", "workerId": "ana"}, pick(tasks[1], "status", "workerId"))
	assert.NotNil(t, tasks[1].(map[string]any)["offerExpiresAt"])
	assert.Len(t, ws["teams"], 1)
	assert.Len(t, ws["skills"], 1)
	assert.NotEmpty(t, ws["learned"], "accepting t1 taught the matcher about ana and en")
	assert.Equal(t, map[string]any{"events": 3.0, "decisions": 2.0}, ws["sequence"])
	cmds := ws["commands"].([]any)
	require.Len(t, cmds, 7)
	assert.Equal(t, map[string]any{"at": "2025-11-21T04:40:00Z", "method": "POST", "path": "/v1/tasks",
		"body": map[string]any{"id": "t1", "tags": []any{"en"}, "priority": 2.0}, "status": 202.0}, cmds[2])
}

func pick(v any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		out[k] = v.(map[string]any)[k]
	}
	return out
}

// TestStateOverHTTP saves a state with GET /_mock/state and loads it with POST into another
// server, whose answers then carry on from it.
func TestStateOverHTTP(t *testing.T) {
	_, raw := savedStory(t)
	other := Start(t, WithClock(NewManualClock(t0.Add(time.Hour))))
	mustAPI(t, other, 200, "POST", "/workers", map[string]any{"id": "zed", "tags": []string{"en"}})
	a := stateCall(t, other, "POST", raw)
	require.Equal(t, http.StatusNoContent, a.Status, "%s", a.Body)

	assert.Equal(t, 404, api(t, other, "GET", "/workers/zed", nil).Status, "the restore replaced the state")
	task := mustAPI(t, other, 200, "GET", "/tasks/t2", nil).json(t)
	assert.Equal(t, "pending", task["status"])
	assert.Equal(t, "ana", task["workerId"])
	mustAPI(t, other, 200, "POST", "/tasks/t2/accept", map[string]any{"workerId": "ana"})
	assert.Equal(t, t0, other.cfg.clock.Now(), "the manual clock was set to the state's")
	again := stateCall(t, other, "GET", nil)
	var doc struct {
		Workspaces []struct {
			Commands []stateCommand `json:"commands"`
		} `json:"workspaces"`
	}
	require.NoError(t, json.Unmarshal(again.Body, &doc))
	assert.Len(t, doc.Workspaces[0].Commands, 8, "the restored log goes on")
}

// TestStateFixtureOfCommands loads a document a person wrote: only commands, no readable
// members, no seed. A suite in any language can keep such a fixture beside its tests.
func TestStateFixtureOfCommands(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	fixture := `{
	  "kind": "taskrouting.mockserver.state", "version": 1,
	  "workspaces": [{"commands": [
	    {"at": "2025-11-21T04:00:00Z", "method": "POST", "path": "/v1/workers", "body": {"id": "ana", "tags": ["en"], "available": true}},
	    {"at": "2025-11-21T04:00:01Z", "method": "POST", "path": "/v1/tasks", "body": {"id": "t1", "tags": ["en"]}},
	    {"at": "2025-11-21T04:00:02Z", "method": "POST", "path": "/v1/tasks", "body": {"tags": ["fr"]}}
	  ]}]
	}`
	require.NoError(t, srv.Restore(context.Background(), []byte(fixture)))
	task := mustAPI(t, srv, 200, "GET", "/tasks/t1", nil).json(t)
	assert.Equal(t, "pending", task["status"])
	tasks := mustAPI(t, srv, 200, "GET", "/tasks?status=queued", nil).json(t)["tasks"].([]any)
	require.Len(t, tasks, 1)
	assert.True(t, strings.HasPrefix(tasks[0].(map[string]any)["id"].(string), "task_"), "a server-made id")
}

// TestStateFixtureFile loads the fixture a suite in any language would keep beside its tests:
// commands written by hand, with the tasks they must lead to as an assertion, and a clock.
func TestStateFixtureFile(t *testing.T) {
	fixture, err := os.ReadFile("testdata/state/two-agents.json")
	require.NoError(t, err)
	clk := NewManualClock(t0.Add(24 * time.Hour))
	srv := Start(t, WithClock(clk))
	require.NoError(t, srv.Restore(context.Background(), fixture))
	assert.Equal(t, t0.Add(10*time.Second), clk.Now())

	clk.Advance(time.Minute) // refund-2's offer to ana expires and comes back to her
	var kinds []string
	for _, ev := range srv.Events() {
		kinds = append(kinds, string(ev.Kind)+" "+ev.TaskID+" "+ev.WorkerID)
	}
	assert.Equal(t, []string{"task.expired refund-2 ana", "task.matched refund-2 ana"}, kinds)
}

// TestRestoreRefusesBadStates breaks a saved state one member at a time: each is refused with
// a 400 naming the member, and the running state is what it was.
func TestRestoreRefusesBadStates(t *testing.T) {
	_, raw := savedStory(t)
	cases := []struct {
		name    string
		edit    func(doc map[string]any)
		text    string // the whole body instead of an edited document
		pointer string
		says    string // a part of the message after the pointer
	}{
		{name: "not JSON", text: `{"kind":`, pointer: ""},
		{name: "wrong version", edit: func(d map[string]any) { d["version"] = 2 }, pointer: "/version"},
		{name: "wrong kind", edit: func(d map[string]any) { d["kind"] = "wiremock.mappings" }, pointer: "/kind"},
		{name: "foreign document", text: `{"mappings": []}`, pointer: "/mappings"},
		{name: "unknown top member", edit: func(d map[string]any) { d["extra"] = true }, pointer: "/extra"},
		{name: "unknown worker member", edit: func(d map[string]any) { worker(d, 0)["nickname"] = "A" }, pointer: "/workspaces/0/workers/0/nickname"},
		{name: "wrong type", edit: func(d map[string]any) { task(d, 0)["priority"] = "high" }, pointer: "/workspaces/0/tasks/0/priority"},
		{name: "wrong command type", edit: func(d map[string]any) { command(d, 1)["status"] = "ok" }, pointer: "/workspaces/0/commands/1/status"},
		{name: "missing commands", edit: func(d map[string]any) { delete(space(d), "commands") }, pointer: "/workspaces/0/commands"},
		{name: "offer to a missing worker", edit: func(d map[string]any) {
			task(d, 1)["workerId"] = "ghost"
			worker(d, 0)["offers"] = []any{}
		}, pointer: "/workspaces/0/tasks/1/workerId"},
		{name: "offer of a missing task", edit: func(d map[string]any) { worker(d, 0)["offers"] = []any{"t9"} }, pointer: "/workspaces/0/workers/0/offers/0", says: "names task t9, which /workspaces/0/tasks lacks"},
		{name: "offer of a task not pending", edit: func(d map[string]any) { worker(d, 0)["offers"] = []any{"t1"} }, pointer: "/workspaces/0/workers/0/offers/0"},
		{name: "team member missing", edit: func(d map[string]any) { space(d)["teams"].([]any)[0].(map[string]any)["members"] = []any{"ghost"} }, pointer: "/workspaces/0/teams/0/members/0", says: "names worker ghost, which /workspaces/0/workers lacks"},
		{name: "worker twice", edit: func(d map[string]any) { worker(d, 1)["id"] = "ana" }, pointer: "/workspaces/0/workers/1/id"},
		{name: "state the commands do not lead to", edit: func(d map[string]any) { task(d, 1)["priority"] = 7 }, pointer: "/workspaces/0/tasks/1/priority"},
		{name: "sequence the commands do not lead to", edit: func(d map[string]any) { space(d)["sequence"].(map[string]any)["events"] = 40 }, pointer: "/workspaces/0/sequence/events"},
		{name: "a worker the commands never made", edit: func(d map[string]any) {
			space(d)["workers"] = append(space(d)["workers"].([]any), map[string]any{"id": "cy"})
		}, pointer: "/workspaces/0/workers"},
		{name: "command answered otherwise", edit: func(d map[string]any) { command(d, 3)["status"] = 409 }, pointer: "/workspaces/0/commands/3"},
		{name: "command refused", edit: func(d map[string]any) {
			command(d, 3)["path"] = "/v1/tasks/t404/accept"
			delete(command(d, 3), "status")
		}, pointer: "/workspaces/0/commands/3"},
		{name: "tick with a request", edit: func(d map[string]any) { command(d, 0)["tick"] = true }, pointer: "/workspaces/0/commands/0/tick"},
		{name: "other settings", edit: func(d map[string]any) { d["settings"].(map[string]any)["mode"] = "first-come" }, pointer: "/settings/mode"},
		{name: "more workspaces than keys", edit: func(d map[string]any) {
			d["workspaces"] = append(d["workspaces"].([]any), map[string]any{"commands": []any{}})
		}, pointer: "/workspaces/1"},
		{name: "bad seed", edit: func(d map[string]any) { space(d)["seed"] = "x1" }, pointer: "/workspaces/0/seed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target := Start(t, WithClock(NewManualClock(t0.Add(time.Hour))))
			mustAPI(t, target, 200, "POST", "/workers", map[string]any{"id": "zed", "tags": []string{"en"}, "available": true})
			mustAPI(t, target, 202, "POST", "/tasks", map[string]any{"id": "z1", "tags": []string{"en"}})
			before, err := target.Snapshot(context.Background())
			require.NoError(t, err)
			eventsBefore := target.Events()

			body := tc.text
			if tc.edit != nil {
				var doc map[string]any
				require.NoError(t, json.Unmarshal(raw, &doc))
				tc.edit(doc)
				b, err := json.Marshal(doc)
				require.NoError(t, err)
				body = string(b)
			}
			a := stateCall(t, target, "POST", []byte(body))
			require.Equal(t, http.StatusBadRequest, a.Status, "%s", a.Body)
			assert.Equal(t, CodeValidationFailed, a.errCode(t))
			var env errorEnvelope
			require.NoError(t, json.Unmarshal(a.Body, &env))
			t.Logf("%s", env.Error.Message)
			if tc.pointer != "" {
				assert.True(t, strings.HasPrefix(env.Error.Message, tc.pointer+": "), "the message names %s: %s", tc.pointer, env.Error.Message)
			}
			assert.Contains(t, env.Error.Message, tc.says)

			after, err := target.Snapshot(context.Background())
			require.NoError(t, err)
			if d := cmp.Diff(string(before), string(after)); d != "" {
				t.Errorf("a refused state changed the server (-before +after):\n%s", d)
			}
			assert.Equal(t, eventsBefore, target.Events())
		})
	}
}

func space(d map[string]any) map[string]any { return d["workspaces"].([]any)[0].(map[string]any) }
func worker(d map[string]any, i int) map[string]any {
	return space(d)["workers"].([]any)[i].(map[string]any)
}
func task(d map[string]any, i int) map[string]any {
	return space(d)["tasks"].([]any)[i].(map[string]any)
}
func command(d map[string]any, i int) map[string]any {
	return space(d)["commands"].([]any)[i].(map[string]any)
}

// TestSnapshotRefusedWhenTheLogCannotCarryIt: past WithStateLog's bound, or with the log
// off, GET /_mock/state answers 409 and says why; Reset makes it possible again.
func TestSnapshotRefusedWhenTheLogCannotCarryIt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int
		want  string
	}{
		{"bounded", 1, "more commands than the state log keeps"},
		{"off", 0, "the state log is off"},
		{"credential", -1, "a request carrying a credential"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := Start(t, WithStateLog(tc.limit))
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}})
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "bo", "tags": []string{"en"}})
			if tc.name == "credential" {
				mustAPI(t, srv, 201, "POST", "/notification-channels", map[string]any{"type": "webhook", "target": "http://127.0.0.1:9/n", "events": []string{"task.created"}, "secret": "whsec_channel"})
			}
			a := stateCall(t, srv, "GET", nil)
			require.Equal(t, http.StatusConflict, a.Status, "%s", a.Body)
			assert.Contains(t, string(a.Body), tc.want)
			_, err := srv.Snapshot(context.Background())
			assert.ErrorIs(t, err, ErrNoSnapshot)
		})
	}
}

// stateCall is GET or POST /_mock/state over HTTP.
func stateCall(t *testing.T, srv *Server, method string, body []byte) answer {
	t.Helper()
	req, err := http.NewRequest(method, srv.AdminURL()+"/state", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// TestResetAfterRestoreMakesNewIDs: a Reset after a restore starts a generation past the
// document's, so the events after it never reuse the ids of the restored ones.
func TestResetAfterRestoreMakesNewIDs(t *testing.T) {
	a := Start(t, WithSeed(5))
	a.Reset()
	mustAPI(t, a, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}, "available": true})
	mustAPI(t, a, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"en"}})
	saved, err := a.Snapshot(context.Background())
	require.NoError(t, err)
	restored := a.Events()[0].ID

	b := Start(t, WithSeed(5))
	require.NoError(t, b.Restore(context.Background(), saved))
	b.Reset()
	mustAPI(t, b, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}, "available": true})
	mustAPI(t, b, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"en"}})
	require.NotEmpty(t, b.Events())
	assert.NotEqual(t, restored, b.Events()[0].ID)
}

// BenchmarkStateLog is the cost of keeping the state log: POST /v1/tasks through the
// handler (no socket), with the log on (the default) and off, in the same run.
//
//	go test -run '^$' -bench StateLog -count 6 ./mockserver/
func BenchmarkStateLog(b *testing.B) {
	for _, tc := range []struct {
		name string
		opt  Option
	}{{"on", WithStateLog(-1)}, {"off", WithStateLog(0)}} {
		b.Run(tc.name, func(b *testing.B) {
			srv, err := NewUnstarted(tc.opt, withoutResponseChecks(), WithRequestLog(0))
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			h := srv.Handler()
			body := []byte(`{"tags":["en","vip"],"priority":3,"meta":{"customer":"c-1042"}}`)
			b.ReportAllocs()
			for b.Loop() {
				r, _ := http.NewRequest("POST", "/v1/tasks", bytes.NewReader(body))
				r.Header.Set("Authorization", "Bearer "+srv.APIKey())
				r.Header.Set("Content-Type", "application/json")
				w := &discardWriter{h: http.Header{}}
				h.ServeHTTP(w, r)
				if w.status != http.StatusAccepted {
					b.Fatalf("status %d", w.status)
				}
			}
		})
	}
}

type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }

// TestStateOfEveryWorkspace: each API key's workspace is saved by its place in the key order,
// never by its key, and loads into the workspace at the same place of a server with other keys.
func TestStateOfEveryWorkspace(t *testing.T) {
	a := Start(t, WithAPIKey("sk_test_first"), WithExtraAPIKey("sk_test_second"), WithSigningSecret("whsec_a"))
	mustAPI(t, a, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}})
	other := call(t, a, "sk_test_second", "POST", "/tasks", map[string]any{"id": "t9", "tags": []string{"fr"}})
	require.Equal(t, 202, other.Status, "%s", other.Body)
	saved, err := a.Snapshot(context.Background())
	require.NoError(t, err)
	for _, secret := range []string{"sk_test_first", "sk_test_second", "whsec_a"} {
		assert.NotContains(t, string(saved), secret, "a saved state holds no key or secret")
	}

	b := Start(t, WithAPIKey("sk_test_b1"), WithExtraAPIKey("sk_test_b2"))
	require.NoError(t, b.Restore(context.Background(), saved))
	assert.Equal(t, 200, call(t, b, "sk_test_b1", "GET", "/workers/ana", nil).Status)
	assert.Equal(t, 404, call(t, b, "sk_test_b1", "GET", "/tasks/t9", nil).Status)
	assert.Equal(t, 200, call(t, b, "sk_test_b2", "GET", "/tasks/t9", nil).Status)
	assert.Equal(t, 404, call(t, b, "sk_test_b2", "GET", "/workers/ana", nil).Status)

	one := Start(t)
	var se *StateError
	require.ErrorAs(t, one.Restore(context.Background(), saved), &se)
	assert.Equal(t, "/workspaces/1", se.Pointer)
}
