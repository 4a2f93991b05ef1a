package mockserver

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// nearestShown is how many nearest workers an explanation lists.
const nearestShown = 5

// wireUnmatched is the "unmatched" member of a queued task's read and of a suggest-workers
// answer without an eligible worker: why nobody takes the task (docs/contract.md, "Why a
// task waits"). It is this server's addition, not the platform's.
type wireUnmatched struct {
	Summary        string        `json:"summary"`
	UncarriedTags  []string      `json:"uncarriedTags"`
	NearestWorkers []wireNearest `json:"nearestWorkers"`
}

// wireNearest is one worker carrying some of the task's tags: which, and what it lacks.
type wireNearest struct {
	WorkerID string       `json:"workerId"`
	Carries  []string     `json:"carries"`
	Lacks    []wireReason `json:"lacks"`
}

func unmatchedJSON(u match.Unmatched) *wireUnmatched {
	out := &wireUnmatched{UncarriedTags: orEmpty(u.UncarriedTags), NearestWorkers: []wireNearest{}}
	for _, n := range u.Nearest {
		w := wireNearest{WorkerID: n.WorkerID, Carries: []string{}, Lacks: []wireReason{}}
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
func summarize(u *wireUnmatched) string {
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

// withUnmatched adds the "unmatched" member to a queued task's JSON object.
func withUnmatched(task json.RawMessage, e *match.Engine, t match.Task) json.RawMessage {
	if t.Status != match.StatusQueued {
		return task
	}
	u, err := e.WhyUnmatched(t.ID, nearestShown)
	if err != nil {
		return task
	}
	member, err := json.Marshal(unmatchedJSON(u))
	if err != nil {
		return task
	}
	body := bytes.TrimSuffix(bytes.TrimSpace(task), []byte("}"))
	out := make([]byte, 0, len(body)+len(member)+16)
	out = append(append(append(out, body...), `,"unmatched":`...), member...)
	return append(out, '}')
}

// suggestUnmatched explains a suggest-workers answer in which no worker is eligible.
func suggestUnmatched(e *match.Engine, in match.SuggestInput, cands []match.Candidate) *wireUnmatched {
	for _, c := range cands {
		if c.Eligible {
			return nil
		}
	}
	u, err := e.NearestWorkers(in, nearestShown)
	if err != nil {
		return nil
	}
	return unmatchedJSON(u)
}
