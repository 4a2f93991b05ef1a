package mockserver

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed mockstate.schema.json
var stateSchemaText []byte

// StateSchema returns the JSON Schema of state documents (draft 2020-12,
// mockserver/mockstate.schema.json), for suites that check a hand-written fixture before
// loading it.
func StateSchema() []byte { return slices.Clone(stateSchemaText) }

// maxStateBytes bounds a state document POST /_mock/state reads.
const maxStateBytes = 256 << 20

var stateSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(stateSchemaText))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mockstate.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mockstate.schema.json")
})

// Restore replaces the server's state by a state document's (docs/contract.md, "Saved
// state"), as Reset followed by running each workspace's commands again at their times: the
// journals (requests, events, deliveries) start empty, ids and sequences go on from the
// document's, and a ManualClock is set to the document's clock (for every server it drives).
//
// Everything is checked before anything changes: the document against StateSchema(), its
// settings against the server's, its references (an offer names a task, a task's worker
// is a worker), each command's answer against the status it records and the readable
// members against the state the commands lead to. A refused document leaves the server as it
// was and is reported as a *StateError naming the member at fault.
func (s *Server) Restore(ctx context.Context, doc []byte) error {
	staged, err := s.stage(ctx, doc)
	if err != nil {
		return err
	}
	s.install(staged)
	return nil
}

// staged is a document brought to life in workspaces no request can reach yet.
type staged struct {
	workspaces []*workspace // by key index; nil: fresh
	gen        uint64
	clock      *time.Time
}

func (s *Server) stage(ctx context.Context, raw []byte) (*staged, error) {
	generic, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, stateErrorf("", "not a JSON document: %v", err)
	}
	if m, ok := generic.(map[string]any); ok {
		if k, ok := m["kind"].(string); ok && k != StateKind {
			return nil, stateErrorf("/kind", "is %q; a mock server state is %q", k, StateKind)
		}
		if v, ok := m["version"].(json.Number); ok && v.String() != strconv.Itoa(StateVersion) {
			return nil, stateErrorf("/version", "is %s; this server reads version %d", v, StateVersion)
		}
	}
	schema, err := stateSchema()
	if err != nil {
		return nil, fmt.Errorf("mockserver: the state schema does not compile: %w", err)
	}
	if err := schema.Validate(generic); err != nil {
		return nil, schemaError(err)
	}
	var doc stateDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, stateErrorf("", "%v", err)
	}
	s.mu.RLock()
	settings := s.stateSettings()
	keys := len(s.keys)
	s.mu.RUnlock()
	if doc.Settings != nil {
		if doc.Settings.FinishedTasks == nil {
			settings.FinishedTasks = nil
		}
		if p, docHas, realHas := firstDifference("/settings", toGeneric(settings), toGeneric(*doc.Settings)); p != "" {
			return nil, stateErrorf(p, "the document has %s where this server runs with %s", docHas, realHas)
		}
	}
	if len(doc.Workspaces) > keys {
		return nil, stateErrorf("/workspaces/"+strconv.Itoa(keys), "the server has %d API keys, the document %d workspaces", keys, len(doc.Workspaces))
	}
	for i := range doc.Workspaces {
		if err := checkReferences("/workspaces/"+strconv.Itoa(i), &doc.Workspaces[i]); err != nil {
			return nil, err
		}
	}
	return s.replayState(ctx, &doc)
}

// checkReferences refuses readable members that contradict each other, before any command
// runs: each is named where it points nowhere.
func checkReferences(at string, w *stateWorkspace) error {
	var workers []stateWorker
	var tasks []stateTask
	var teams []stateTeam
	var learned []stateLearned
	for _, m := range []struct {
		v    any
		into any
	}{{w.Workers, &workers}, {w.Tasks, &tasks}, {w.Teams, &teams}, {w.Learned, &learned}} {
		if m.v != nil {
			b, _ := json.Marshal(m.v)
			_ = json.Unmarshal(b, m.into) // the schema has checked the types
		}
	}
	workerIDs := map[string]bool{}
	for i, wk := range workers {
		if workerIDs[wk.ID] {
			return stateErrorf(fmt.Sprintf("%s/workers/%d/id", at, i), "worker %s is listed twice", wk.ID)
		}
		workerIDs[wk.ID] = true
	}
	taskByID := map[string]stateTask{}
	for i, t := range tasks {
		if _, dup := taskByID[t.ID]; dup {
			return stateErrorf(fmt.Sprintf("%s/tasks/%d/id", at, i), "task %s is listed twice", t.ID)
		}
		// A task's worker may be missing from the workers: under the platform's rules a removed
		// worker keeps its offers until they expire. Whether it is so is the commands' to say.
		taskByID[t.ID] = t
	}
	for i, wk := range workers {
		for j, id := range wk.Offers {
			t, ok := taskByID[id]
			p := fmt.Sprintf("%s/workers/%d/offers/%d", at, i, j)
			switch {
			case w.Tasks == nil:
			case !ok:
				return stateErrorf(p, "names task %s, which %s/tasks lacks", id, at)
			case t.Status != "pending" || t.WorkerID == nil || *t.WorkerID != wk.ID:
				return stateErrorf(p, "names task %s, which is not pending with worker %s", id, wk.ID)
			}
		}
	}
	for i, tm := range teams {
		for j, id := range tm.Members {
			if w.Workers != nil && !workerIDs[id] {
				return stateErrorf(fmt.Sprintf("%s/teams/%d/members/%d", at, i, j), "names worker %s, which %s/workers lacks", id, at)
			}
		}
	}
	for i, l := range learned {
		if w.Workers != nil && !workerIDs[l.WorkerID] {
			return stateErrorf(fmt.Sprintf("%s/learned/%d/workerId", at, i), "names worker %s, which %s/workers lacks", l.WorkerID, at)
		}
	}
	for i, c := range w.Commands {
		p := fmt.Sprintf("%s/commands/%d", at, i)
		switch {
		case c.Tick && (c.Method != "" || c.Path != "" || c.Body != nil || c.Query != "" || c.IdempotencyKey != "" || c.Status != 0):
			return stateErrorf(p+"/tick", "a tick carries no request")
		case !c.Tick && c.Method == "":
			return stateErrorf(p+"/method", "is required unless tick is true")
		case !c.Tick && c.Path == "":
			return stateErrorf(p+"/path", "is required unless tick is true")
		}
	}
	return nil
}

// replayState runs each workspace's commands into a server of its own, with the same keys and
// settings but a clock set by hand and nothing sent out, and compares what they lead to with
// the document's readable members.
func (s *Server) replayState(ctx context.Context, doc *stateDoc) (*staged, error) {
	s.mu.RLock()
	cfg := s.cfg
	wsIDs := slices.Clone(s.workspaceIDs)
	s.mu.RUnlock()
	clk := NewManualClock(time.Unix(0, 0).UTC())
	cfg.clock = clk
	cfg.webhookURLs, cfg.logger, cfg.testLog, cfg.noResponseChecks, cfg.errs = nil, nil, nil, true, nil
	stage, err := newServer([]Option{func(c *config) { *c = cfg }})
	if err != nil {
		return nil, err
	}
	defer stage.shutdown()
	stage.notes.pause() // a replayed notification step sends nothing
	host := "localhost"
	if u, err := url.Parse(s.URL()); err == nil && u.Host != "" {
		host = u.Host
	}
	out := &staged{workspaces: make([]*workspace, len(doc.Workspaces)), clock: doc.Clock}
	for i := range doc.Workspaces {
		w := &doc.Workspaces[i]
		at := "/workspaces/" + strconv.Itoa(i)
		c := stage.cfg
		if w.Seed != "" {
			if c.seed, err = strconv.ParseUint(w.Seed, 10, 64); err != nil {
				return nil, stateErrorf(at+"/seed", "is not a 64-bit unsigned integer")
			}
		}
		out.gen = max(out.gen, w.Generation)
		ws := newWorkspace(i, w.Generation, &c, &stage.sessions)
		ws.id = wsIDs[i]
		key := stage.keys[i]
		stage.mu.Lock()
		stage.workspaces[key] = ws
		stage.mu.Unlock()
		for j, cmd := range w.Commands {
			if j%256 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			clk.jumpTo(cmd.At)
			if cmd.Tick {
				ws.tick(cmd.At, stage.deliver)
				continue
			}
			if err := stage.replayCommand(fmt.Sprintf("%s/commands/%d", at, j), key, host, cmd); err != nil {
				return nil, err
			}
		}
		ws.mu.Lock()
		got := ws.view()
		ws.mu.Unlock()
		for _, m := range []struct {
			name      string
			doc, real any
		}{
			{"sequence", w.Sequence, got.Sequence}, {"tasks", w.Tasks, got.Tasks},
			{"workers", w.Workers, got.Workers}, {"teams", w.Teams, got.Teams},
			{"skills", w.Skills, got.Skills}, {"learned", w.Learned, got.Learned},
		} {
			if m.doc == nil {
				continue
			}
			if p, docHas, realHas := firstDifference(at+"/"+m.name, toGeneric(m.real), toGeneric(m.doc)); p != "" {
				return nil, stateErrorf(p, "the document has %s where its commands lead to %s", docHas, realHas)
			}
		}
		ws.sessions = nil // set by install
		out.workspaces[i] = ws
	}
	return out, nil
}

// replayCommand runs one logged command through the API plane and checks its answer.
func (s *Server) replayCommand(at, key, host string, c stateCommand) error {
	target := c.Path
	if c.Query != "" {
		target += "?" + c.Query
	}
	r, err := http.NewRequest(c.Method, "http://"+host+target, bytes.NewReader(c.Body))
	if err != nil {
		return stateErrorf(at+"/path", "is not a request path: %v", err)
	}
	r.Host = host
	r.Header.Set("Authorization", "Bearer "+key)
	if c.Body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	if c.IdempotencyKey != "" {
		r.Header.Set("Idempotency-Key", c.IdempotencyKey)
	}
	resp, _ := s.handle(r)
	if c.Status == resp.status || (c.Status == 0 && resp.status/100 == 2) {
		return nil
	}
	want := "a 2xx status"
	if c.Status != 0 {
		want = strconv.Itoa(c.Status)
	}
	var env errorEnvelope
	detail := ""
	if json.Unmarshal(resp.body, &env) == nil && env.Error.Message != "" {
		detail = " (" + env.Error.Message + ")"
	}
	return stateErrorf(at, "%s %s was answered %d%s where the document records %s", c.Method, c.Path, resp.status, detail, want)
}

// install puts staged workspaces in place, as Reset does: requests in progress finish
// first, none straddles the change.
func (s *Server) install(st *staged) {
	s.resetMu.Lock()
	defer s.resetMu.Unlock()
	s.deliver.pause()
	s.notes.pause()
	s.gate.Lock()
	s.mu.Lock()
	// Later resets make ids from generations past every one the document used.
	s.gen = max(s.gen, st.gen)
	s.sessions.reset()
	s.supervisors.reset()
	s.push.reset()
	fresh := s.newWorkspaces()
	for i, k := range s.keys {
		ws := fresh[k]
		if i < len(st.workspaces) {
			ws = st.workspaces[i]
			ws.sessions = &s.sessions
		}
		s.workspaces[k] = ws
	}
	s.faults.clear()
	s.rec.reset()
	s.deliver.reset()
	s.notes.reset()
	s.mu.Unlock()
	s.gate.Unlock()
	if s.manual != nil && st.clock != nil {
		s.manual.Set(*st.clock)
	}
	s.nudge()
}

// jumpTo sets the clock without visiting the deadlines on the way: a replay fires them only
// where the log says the original did.
func (c *ManualClock) jumpTo(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}
