package mockserver

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// nearestShown is how many nearest workers an explanation lists.
const nearestShown = 5

// Unmatched says why nobody takes a queued task (Server.WhyUnmatched): a one-line summary,
// the task's tags no worker carries, and up to five nearest workers.
type Unmatched struct {
	Summary        string          `json:"summary"`
	UncarriedTags  []string        `json:"uncarriedTags"`
	NearestWorkers []NearestWorker `json:"nearestWorkers"`
}

// NearestWorker is one worker carrying some of the task's tags: which, and what it lacks
// (empty when it is eligible and the task only waits its turn).
type NearestWorker struct {
	WorkerID string        `json:"workerId"`
	Carries  []string      `json:"carries"`
	Lacks    []MatchReason `json:"lacks"`
}

func unmatchedJSON(u match.Unmatched) *Unmatched {
	out := &Unmatched{UncarriedTags: orEmpty(u.UncarriedTags), NearestWorkers: []NearestWorker{}}
	for _, n := range u.Nearest {
		w := NearestWorker{WorkerID: n.WorkerID, Carries: []string{}, Lacks: []MatchReason{}}
		for _, r := range n.Reasons {
			switch r.Kind {
			case match.ReasonTagWeight:
				w.Carries = append(w.Carries, r.Tag)
			case match.ReasonLearningBoost, match.ReasonLoadPenalty, match.ReasonSkillWeight, match.ReasonPreferredTeam:
			default:
				w.Lacks = append(w.Lacks, reasonJSON(r))
			}
		}
		out.NearestWorkers = append(out.NearestWorkers, w)
	}
	out.Summary = summarize(out)
	return out
}

// summarize says in one line what a person fixing the setup needs first.
func summarize(u *Unmatched) string {
	switch {
	case len(u.UncarriedTags) == 1:
		return "no worker carries tag " + u.UncarriedTags[0]
	case len(u.UncarriedTags) > 1:
		return "no worker carries tags " + strings.Join(u.UncarriedTags, ", ")
	case len(u.NearestWorkers) == 0:
		return "no worker carries its tags"
	}
	parts := make([]string, 0, len(u.NearestWorkers))
	for _, n := range u.NearestWorkers {
		if len(n.Lacks) == 0 {
			parts = append(parts, n.WorkerID+" eligible, other tasks first")
			continue
		}
		lacks := make([]string, 0, len(n.Lacks))
		for _, r := range n.Lacks {
			lacks = append(lacks, strings.TrimSpace(r.Kind+" "+reasonSubject(r)))
		}
		parts = append(parts, n.WorkerID+" "+strings.Join(lacks, ", "))
	}
	return "nearest workers: " + strings.Join(parts, "; ")
}

// WhyUnmatched explains why a queued task of the server's workspace (the one of APIKey) is
// not offered: the tags no worker carries, and the nearest workers with what each lacks
// (docs/contract.md, "Why a task waits"). It is this server's explanation, answered by no
// platform operation, so it lives here and on the admin endpoint
// GET /_mock/tasks/{id}/unmatched, never in a platform answer. A task that is not queued is an
// error wrapping ErrTaskNotQueued; an unknown task one wrapping ErrTaskNotFound. It changes
// nothing.
func (s *Server) WhyUnmatched(taskID string) (Unmatched, error) {
	ws := s.sandbox()
	ws.mu.Lock()
	defer ws.mu.Unlock()
	t, err := ws.engine.Task(taskID)
	if err != nil {
		return Unmatched{}, fmt.Errorf("mockserver: task %q: %w", taskID, ErrTaskNotFound)
	}
	if t.Status != match.StatusQueued {
		return Unmatched{}, fmt.Errorf("mockserver: task %q is %s: %w", taskID, t.Status, ErrTaskNotQueued)
	}
	u, err := ws.engine.WhyUnmatched(taskID, nearestShown)
	if err != nil {
		return Unmatched{}, fmt.Errorf("mockserver: task %q: %w", taskID, err)
	}
	return *unmatchedJSON(u), nil
}

// Errors of WhyUnmatched, for errors.Is.
var (
	ErrTaskNotFound  = errors.New("no such task")
	ErrTaskNotQueued = errors.New("the task is not queued")
)

// adminUnmatched is GET /_mock/tasks/{id}/unmatched: WhyUnmatched over HTTP, 404 for an
// unknown task and 409 invalid_state for one that is not queued.
func (s *Server) adminUnmatched(taskID string) (any, *apiError) {
	u, err := s.WhyUnmatched(taskID)
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return nil, notFoundf("task %s not found", taskID)
	case errors.Is(err, ErrTaskNotQueued):
		return nil, conflictf(CodeInvalidState, "%s", err.Error())
	case err != nil:
		return nil, errorf(http.StatusInternalServerError, CodeInternalError, "%s", err.Error())
	}
	return u, nil
}
