package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// ServerOptions are the mock server settings a scenario's engine options map to; everything
// else is the server's default, as a user's test gets it.
func ServerOptions(o Options, clk *mockserver.ManualClock) []mockserver.Option {
	o = o.Normalized()
	m := mockserver.MatcherConfig{
		DefaultMaxBacklog:   o.Backlog,
		OfferTimeout:        time.Duration(o.OfferMs) * time.Millisecond,
		MaintenanceInterval: time.Duration(o.SweepMs) * time.Millisecond,
		// The engine player runs the engine with learning off unless the scenario turns it
		// on; then the server ranks by it too, exploring at the scenario's rate from its seed.
		LearningDisabled: !o.Learning,
		LearningRanks:    o.Learning,
	}
	if o.Learning {
		rate := o.Exploration
		m.LearningExplorationRate = &rate
	}
	switch o.Fairness {
	case FairnessFirstCome:
		m.Mode = mockserver.ModeFirstCome
	case FairnessBalanced:
		m.Mode = mockserver.ModeBalanced
	case FairnessSpreadWork:
		m.Mode = mockserver.ModeSpreadWork
	}
	return []mockserver.Option{
		mockserver.WithClock(clk),
		mockserver.WithMatcher(m),
		mockserver.WithLogger(slog.New(slog.DiscardHandler)),
		mockserver.WithRequestLog(1),
		mockserver.WithSeed(o.LearningSeed),
	}
}

// PlayServer plays a scenario through the mock server's public surface: its HTTP API with
// the server's defaults (served in process by Server.Transport, the handler stack a user's
// client reaches), its manual clock, and its recorded events. It returns the trace, one
// StepTrace per step, and an error only when the server cannot be built or answers what no
// step can (a broken body), never for a refused command (StepTrace.Err).
//
// A scenario's options the server has no setting for (the engine's relevantBatchSize other
// than 50, enableDefaultMatching) are refused.
func PlayServer(sc Scenario) ([]StepTrace, error) {
	trace, _, err := PlayServerTies(sc)
	return trace, err
}

// PlayServerTies is PlayServer that also returns each step's Ties, as the server discloses
// them (Server.Ties, GET /_mock/ties).
func PlayServerTies(sc Scenario) ([]StepTrace, []Ties, error) {
	return playServer(sc, false)
}

// PlayServerLoopback is PlayServer with the server listening on a loopback port
// (mockserver.New) and every request sent over a socket to its URL, as a user's client
// reaches it.
func PlayServerLoopback(sc Scenario) ([]StepTrace, error) {
	trace, _, err := playServer(sc, true)
	return trace, err
}

func playServer(sc Scenario, loopback bool) ([]StepTrace, []Ties, error) {
	o := sc.Options.Normalized()
	if o.Batch != 50 || o.DefaultMatching {
		return nil, nil, fmt.Errorf("conformance: the mock server has no setting for batch %d or the default tag", o.Batch)
	}
	clk := mockserver.NewManualClock(scenarioEpoch)
	newServer := mockserver.NewUnstarted
	if loopback {
		newServer = mockserver.New
	}
	srv, err := newServer(ServerOptions(o, clk)...)
	if err != nil {
		return nil, nil, err
	}
	defer srv.Close()
	p := serverPlayer{srv: srv, clk: clk, http: &http.Client{Transport: srv.Transport()},
		base: "http://mock.invalid" + mockserver.BasePath, holdings: newHoldings(), workers: map[string]bool{}}
	if loopback {
		// A transport of its own, so its idle connections close with the scenario.
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		p.http, p.base = &http.Client{Transport: tr}, srv.URL()
	}
	trace := make([]StepTrace, 0, len(sc.Steps))
	ties := make([]Ties, 0, len(sc.Steps))
	for _, st := range sc.Steps {
		out, err := p.step(st)
		if err != nil {
			return trace, ties, fmt.Errorf("%s step %d (%s): %w", sc.Name(), len(trace)+1, st, err)
		}
		trace = append(trace, out.Canonical())
		ties = append(ties, p.stepTies())
	}
	return trace, ties, nil
}

type serverPlayer struct {
	srv      *mockserver.Server
	clk      *mockserver.ManualClock
	http     *http.Client
	base     string    // the API's base URL, BasePath included
	seen     int       // events read so far
	seenTies int       // Server.Ties read so far
	matched  []matched // the step's offers, in order
	// What each worker holds, from the server's events: task -> worker.
	holdings
	workers map[string]bool
}

type matched struct{ task, decision string }

func (p *serverPlayer) step(st Step) (StepTrace, error) {
	var out StepTrace
	var status int
	var err error
	switch st.Op {
	case OpWorker:
		body := map[string]any{"id": st.ID, "tags": st.Tags}
		if st.Tags == nil {
			body["tags"] = []string{}
		}
		// A worker step writes the whole record, as the engine's addUser does: without
		// weights it clears them (the server keeps an absent member; docs/contract.md).
		body["routingWeights"] = st.Weights
		if st.Weights == nil {
			body["routingWeights"] = map[string]float64{}
		}
		if st.Backlog != nil {
			body["maxBacklogSize"] = *st.Backlog
		}
		if !p.workers[st.ID] {
			body["available"] = true // the engine matches a new user at once; an update keeps a pause
		}
		status, err = p.call("POST", "/workers", body)
		if err == nil && status < 300 {
			p.workers[st.ID] = true
		}
	case OpTask:
		body := map[string]any{"id": st.ID, "tags": st.Tags, "priority": st.Priority}
		if len(st.Vetoed) > 0 {
			body["vetoedWorkers"] = st.Vetoed
		}
		if st.Thresholds != nil {
			body["skillThresholds"] = st.Thresholds
		}
		status, err = p.call("POST", "/tasks", body)
	case OpAccept, OpReject:
		task, worker, ok := pickPair(p.pending, p.workers, st.Pick)
		if !ok {
			out.Did = st.Op + " none"
			break
		}
		out.Did = st.Op + " " + task + ">" + worker
		status, err = p.call("POST", "/tasks/"+url.PathEscape(task)+"/"+st.Op, map[string]any{"workerId": worker})
	case OpComplete:
		task, worker, ok := pickPair(p.accepted, p.workers, st.Pick)
		if !ok {
			out.Did = "complete none"
			break
		}
		out.Did = "complete " + task + ">" + worker
		status, err = p.call("POST", "/tasks/"+url.PathEscape(task)+"/complete", map[string]any{"workerId": worker, "result": map[string]any{}})
	case OpPause, OpResume, OpRemove:
		if !p.workers[st.ID] {
			out.Did = st.Op + " none"
			break
		}
		if st.Op == OpRemove {
			status, err = p.call("DELETE", "/workers/"+url.PathEscape(st.ID), nil)
			delete(p.workers, st.ID)
		} else {
			status, err = p.call("POST", "/workers/"+url.PathEscape(st.ID)+"/availability", map[string]any{"available": st.Op == OpResume})
		}
	case OpAdvance:
		p.clk.Advance(time.Duration(st.Ms) * time.Millisecond)
	default:
		return out, errUnknownOp
	}
	if err != nil {
		return out, err
	}
	out.Err = status >= 400
	p.apply(&out)
	return out, nil
}

// call sends one request with the sandbox key and reports its status; a 5xx is an error.
func (p *serverPlayer) call(method, path string, body any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, p.base+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+p.srv.APIKey())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, nil
}

// apply records the events since the last step in the trace and in what the workers hold.
func (p *serverPlayer) apply(out *StepTrace) {
	evs := p.srv.Events()
	p.matched = p.matched[:0]
	for _, ev := range evs[p.seen:] {
		p.record(string(ev.Kind), ev.TaskID, ev.WorkerID, out)
		if ev.Kind == webhook.KindTaskMatched {
			p.matched = append(p.matched, matched{ev.TaskID, decisionOf(ev.Payload)})
		}
	}
	p.seen = len(evs)
	out.Offers, out.Expired, out.Released = slices.Clip(out.Offers), slices.Clip(out.Expired), slices.Clip(out.Released)
}

// stepTies reads the ties the server disclosed for the step's offers (Server.Ties, by
// decision): task -> the tied workers of its newest offer; a task whose newest offer was
// strict has no entry.
func (p *serverPlayer) stepTies() Ties {
	all := p.srv.Ties()
	byDecision := map[string][]string{}
	for _, t := range all[min(p.seenTies, len(all)):] {
		byDecision[t.DecisionID] = t.Workers
	}
	p.seenTies = len(all)
	out := Ties{}
	for _, m := range p.matched {
		if tie, ok := byDecision[m.decision]; ok {
			out[m.task] = tie
		} else {
			delete(out, m.task)
		}
	}
	return out
}

// decisionOf reads a task.matched payload's decision id, as a webhook receiver would; "" when
// it has none.
func decisionOf(payload []byte) string {
	ev, err := webhook.ParseEvent(payload)
	if err != nil {
		return ""
	}
	m, err := ev.TaskMatched()
	if err != nil {
		return ""
	}
	return m.DecisionID
}
