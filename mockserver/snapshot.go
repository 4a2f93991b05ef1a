package mockserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// StateKind and StateVersion name the documents Snapshot writes and Restore reads
// (mockstate.schema.json). A document of another kind or version is refused.
const (
	StateKind    = "taskrouting.mockserver.state"
	StateVersion = 1
)

// WithStateLog sets how many commands each workspace keeps for Snapshot (default
// DefaultStateLog). Past that many, Snapshot is refused for the workspace until Reset; 0
// keeps none (Snapshot is always refused), a negative n keeps every command.
func WithStateLog(n int) Option {
	return func(cfg *config) { cfg.stateLog = n }
}

func newCommandLog(cfg *config, gen uint64) commandLog {
	l := commandLog{seed: cfg.seed, gen: gen, limit: max(cfg.stateLog, 0)}
	if cfg.stateLog == 0 {
		l.refused = "the state log is off (WithStateLog(0))"
	}
	return l
}

// StateError is a state document Restore refused: Pointer is the JSON pointer (RFC 6901) of
// the member at fault, "" for the document as a whole.
type StateError struct {
	Pointer string
	Reason  string
}

func (e *StateError) Error() string {
	if e.Pointer == "" {
		return "mockserver: state: " + e.Reason
	}
	return "mockserver: state " + e.Pointer + ": " + e.Reason
}

func stateErrorf(pointer, format string, args ...any) *StateError {
	return &StateError{Pointer: pointer, Reason: fmt.Sprintf(format, args...)}
}

// ErrNoSnapshot is wrapped by Snapshot when a workspace's state cannot be written down: a
// request whose effect the document cannot carry happened (a worker-plane request, an upload
// to storage), or more commands than WithStateLog keeps.
var ErrNoSnapshot = errors.New("the state cannot be saved")

// stateDoc is the document of mockstate.schema.json.
type stateDoc struct {
	Kind       string           `json:"kind"`
	Version    int              `json:"version"`
	Clock      *time.Time       `json:"clock,omitempty"`
	Settings   *stateSettings   `json:"settings,omitempty"`
	Workspaces []stateWorkspace `json:"workspaces"`
}

type stateSettings struct {
	Rules               string        `json:"rules"`
	Mode                string        `json:"mode"`
	DefaultMaxBacklog   int           `json:"defaultMaxBacklog"`
	OfferTimeoutMs      int64         `json:"offerTimeoutMs"`
	BalancedLoadPenalty float64       `json:"balancedLoadPenalty"`
	Learning            stateLearning `json:"learning"`
	Limits              stateLimits   `json:"limits"`
	Retention           int           `json:"retention"`
	// FinishedTasks is WithFinishedTasks. A document written before the bound existed has
	// none, and is then not checked against it: its commands' answers are.
	FinishedTasks *int `json:"finishedTasks,omitempty"`
}

type stateLearning struct {
	Enabled     bool  `json:"enabled"`
	ShadowMode  bool  `json:"shadowMode"`
	LearnedVeto bool  `json:"learnedVeto"`
	HalfLifeMs  int64 `json:"halfLifeMs"`
}

type stateLimits struct {
	TaskRate              int   `json:"taskRate"`
	TaskRateWindowMs      int64 `json:"taskRateWindowMs"`
	QueuedTasks           int   `json:"queuedTasks"`
	Workers               int   `json:"workers"`
	Skills                int   `json:"skills"`
	WorkerSkills          int   `json:"workerSkills"`
	IncludedTasksPerMonth int   `json:"includedTasksPerMonth"`
}

// stateWorkspace is one workspace. Restore reads its id, seed, generation and commands; the
// readable members are raw on the way in (absent: not checked) and filled on the way out.
type stateWorkspace struct {
	ID         string         `json:"id"`
	Seed       string         `json:"seed"`
	Generation uint64         `json:"generation"`
	Sequence   any            `json:"sequence,omitempty"`
	Workers    any            `json:"workers,omitempty"`
	Tasks      any            `json:"tasks,omitempty"`
	Teams      any            `json:"teams,omitempty"`
	Skills     any            `json:"skills,omitempty"`
	Learned    any            `json:"learned,omitempty"`
	Commands   []stateCommand `json:"commands"`
}

// Snapshot writes the server's state as a state document (docs/contract.md, "Saved
// state"): for each workspace, the commands that brought it there and a readable account
// of its workers, tasks, teams, skills, learned values and id sequences. Restore on any
// server started with the same settings and at least as many API keys brings it back; the
// document holds no key or secret.
//
// It changes nothing. It fails with an error wrapping ErrNoSnapshot when a workspace ran a
// request the document cannot carry.
func (s *Server) Snapshot(ctx context.Context) ([]byte, error) {
	doc, err := s.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(doc, "", "  ")
}

func (s *Server) snapshot(ctx context.Context) (*stateDoc, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	now := s.clock.Now().UTC()
	settings := s.stateSettings()
	doc := &stateDoc{Kind: StateKind, Version: StateVersion, Clock: &now, Settings: &settings}
	for _, k := range s.keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ws := s.workspaces[k]
		ws.mu.Lock()
		sw, err := ws.stateWorkspace()
		ws.mu.Unlock()
		if err != nil {
			return nil, err
		}
		doc.Workspaces = append(doc.Workspaces, sw)
	}
	return doc, nil
}

func (ws *workspace) stateWorkspace() (stateWorkspace, error) {
	if ws.cmds.refused != "" {
		return stateWorkspace{}, fmt.Errorf("mockserver: workspace %s: %w: it ran %s", ws.id, ErrNoSnapshot, ws.cmds.refused)
	}
	v := ws.view()
	return stateWorkspace{
		ID: ws.id, Seed: strconv.FormatUint(ws.cmds.seed, 10), Generation: ws.cmds.gen,
		Sequence: v.Sequence, Workers: v.Workers, Tasks: v.Tasks, Teams: v.Teams,
		Skills: v.Skills, Learned: v.Learned,
		Commands: ws.cmds.all(),
	}, nil
}

// stateSettings are the server's settings that decide how commands play out.
func (s *Server) stateSettings() stateSettings {
	mc := s.workspaces[s.keys[0]].engine.Config()
	l := s.cfg.limits
	return stateSettings{
		Rules: string(mc.Rules), Mode: string(mc.Mode), DefaultMaxBacklog: mc.DefaultMaxBacklog,
		OfferTimeoutMs: mc.OfferTimeout.Milliseconds(), BalancedLoadPenalty: mc.BalancedLoadPenalty,
		Learning: stateLearning{
			Enabled: !mc.Learning.Disabled, ShadowMode: mc.Learning.ShadowMode,
			LearnedVeto: mc.Learning.LearnedVeto, HalfLifeMs: mc.Learning.HalfLife.Milliseconds(),
		},
		Limits: stateLimits{
			TaskRate: l.TaskRate, TaskRateWindowMs: l.TaskRateWindow.Milliseconds(), QueuedTasks: l.QueuedTasks,
			Workers: l.Workers, Skills: l.Skills, WorkerSkills: l.WorkerSkills, IncludedTasksPerMonth: l.IncludedTasksPerMonth,
		},
		Retention: s.cfg.retention, FinishedTasks: &s.cfg.finishedTasks,
	}
}

// adminState is GET and POST /_mock/state.
func (s *Server) adminState(r *http.Request) (any, int, *apiError) {
	if r.Method == http.MethodGet {
		doc, err := s.snapshot(r.Context())
		if errors.Is(err, ErrNoSnapshot) {
			return nil, 0, conflictf(CodeInvalidState, "%s", strings.TrimPrefix(err.Error(), "mockserver: "))
		}
		if err != nil {
			return nil, 0, errorf(http.StatusServiceUnavailable, CodeServiceUnavailable, "%v", err)
		}
		return doc, http.StatusOK, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxStateBytes+1))
	if err != nil {
		return nil, 0, invalidBodyf("body could not be read")
	}
	if len(body) > maxStateBytes {
		return nil, 0, errorf(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "a state must NOT be larger than %d bytes", maxStateBytes)
	}
	err = s.Restore(r.Context(), body)
	var se *StateError
	switch {
	case errors.As(err, &se):
		msg := se.Reason
		if se.Pointer != "" {
			msg = se.Pointer + ": " + se.Reason
		}
		return nil, 0, validationf("%s", msg)
	case err != nil:
		return nil, 0, errorf(http.StatusServiceUnavailable, CodeServiceUnavailable, "%v", err)
	}
	return nil, http.StatusNoContent, nil
}
