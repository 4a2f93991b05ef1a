package mockserver

import (
	"fmt"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// TieBreak is how the platform rules break a tie between equally ranked workers
// (docs/contract.md, "Tests that hold on the platform").
type TieBreak string

// WithTieBreak values.
const (
	// TieRegistration gives a tie to the worker registered first: the platform's order
	// while its Redis keeps the users hash compact. The default, also for "".
	TieRegistration TieBreak = "registration"
	// TieShuffle gives a tie to the first worker of an order drawn from the server's seed
	// (WithSeed), fixed for the server's life, as a Redis hash order is: a test that depends
	// on which of the tied workers wins fails here for some seeds, as it can fail on the
	// platform.
	TieShuffle TieBreak = "shuffle"
)

// WithTieBreak sets how the platform rules break ties between equally ranked workers:
// TieRegistration (the default) or TieShuffle. Whichever it is, each decision made on a tie
// names the tied workers (Server.Ties).
func WithTieBreak(b TieBreak) Option {
	return func(cfg *config) {
		switch b {
		case "", TieRegistration, TieShuffle:
			cfg.tieBreak = b
		default:
			cfg.errs = append(cfg.errs, fmt.Errorf("mockserver: unknown tie break %q", b))
		}
	}
}

// Tie is a decision the platform could have made otherwise: under the platform rules the
// chosen worker ranked equal with others, and the platform's engine breaks such a tie by
// the order it reads its users hash in Redis, which a test cannot know.
type Tie struct {
	DecisionID string    `json:"decisionId"`
	TaskID     string    `json:"taskId"`
	WorkerID   string    `json:"workerId"` // the chosen worker
	Workers    []string  `json:"workers"`  // every worker that ranked equal, the chosen one included, in the order the pass met them
	MatchedAt  time.Time `json:"-"`
}

// maxTies is how many ties a workspace keeps: as many as decisions (the newest).
const maxTies = 10000

// Ties returns the decisions of the sandbox workspace made on a tie, oldest first (the
// newest 10,000). A decision not listed was strict: no other worker ranked equal. It
// changes nothing; GET /_mock/ties answers the same.
func (s *Server) Ties() []Tie {
	ws := s.sandbox()
	ws.mu.Lock()
	defer ws.mu.Unlock()
	out := make([]Tie, len(ws.ties))
	for i, t := range ws.ties {
		t.Workers = append([]string(nil), t.Workers...)
		out[i] = t
	}
	return out
}

// observeTie keeps a task.matched decision made on a tie and says so in the test log.
func (ws *workspace) observeTie(ev match.Event) {
	if ev.Kind != match.EventTaskMatched || ev.DecisionID == "" {
		return
	}
	workers := ws.engine.DecisionTies(ev.DecisionID)
	if workers == nil {
		return
	}
	t := Tie{DecisionID: ev.DecisionID, TaskID: ev.TaskID, WorkerID: ev.WorkerID, Workers: workers, MatchedAt: ev.At}
	if len(ws.ties) == maxTies {
		ws.ties = append(ws.ties[:0], ws.ties[1:]...)
	}
	ws.ties = append(ws.ties, t)
	if ws.testLog != nil {
		ws.testLog.Helper()
		ws.testLog.Logf("%s", tieLine(t))
	}
}

// tieLine is the test log's line for a tie.
func tieLine(t Tie) string {
	return fmt.Sprintf("mockserver: decision %s gave task %s to %s on a tie with %s: the platform may give it to any of them "+
		"(docs/contract.md, \"Tests that hold on the platform\")", t.DecisionID, t.TaskID, t.WorkerID, strings.Join(others(t), ", "))
}

func others(t Tie) []string {
	out := make([]string, 0, len(t.Workers)-1)
	for _, w := range t.Workers {
		if w != t.WorkerID {
			out = append(out, w)
		}
	}
	return out
}

type adminTie struct {
	DecisionID string   `json:"decisionId"`
	TaskID     string   `json:"taskId"`
	WorkerID   string   `json:"workerId"`
	Workers    []string `json:"workers"`
	MatchedAt  int64    `json:"matchedAt"`
}

// adminTies is GET /_mock/ties.
func (s *Server) adminTies() any {
	ts := s.Ties()
	out := make([]adminTie, len(ts))
	for i, t := range ts {
		out[i] = adminTie{DecisionID: t.DecisionID, TaskID: t.TaskID, WorkerID: t.WorkerID, Workers: t.Workers, MatchedAt: t.MatchedAt.UnixMilli()}
	}
	return map[string]any{"ties": out}
}

// tieReason is the reason a decision's chosen candidate carries when it was chosen on a
// tie: kind "tie" and the tied workers. The platform's decision candidates and reasons are
// open objects whose kinds grow, so the explanation may carry it.
func tieReason(workers []string) MatchReason {
	return MatchReason{Kind: reasonTie, Workers: workers}
}

// reasonTie is the kind of tieReason.
const reasonTie = "tie"
