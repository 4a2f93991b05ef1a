package taskrouting

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// MatchMode is the rule a Decision chose its worker by. The server may add
// modes; unknown ones are kept as they come.
type MatchMode string

// Decision modes.
const (
	ModeBestMatch MatchMode = "best-match" // highest score
	ModeFirstCome MatchMode = "first-come" // longest idle
	ModeBalanced  MatchMode = "balanced"   // score minus a penalty per pending offer
	ModeAssign    MatchMode = "assign"     // a tasks.assign, not matching
)

// Decision records one match: the task offered to a worker, with the
// candidates the matcher weighed, chosen first.
type Decision struct {
	ID         string      `json:"id"`
	TaskID     string      `json:"taskId"`
	WorkerID   string      `json:"workerId"`
	MatchedAt  time.Time   `json:"-"` // wire matchedAt, epoch ms (ISO-8601 also read)
	Mode       MatchMode   `json:"mode"`
	Candidates []Candidate `json:"candidates"`
}

// UnmarshalJSON decodes the wire form.
func (d *Decision) UnmarshalJSON(b []byte) error {
	type plain Decision
	w := struct {
		*plain
		MatchedAt wireTime `json:"matchedAt"`
	}{plain: (*plain)(d)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	d.MatchedAt = w.MatchedAt.t
	return nil
}

// MarshalJSON writes the wire form (matchedAt in epoch ms).
func (d Decision) MarshalJSON() ([]byte, error) {
	type plain Decision
	return json.Marshal(struct {
		plain
		MatchedAt wireTime `json:"matchedAt"`
	}{plain(d), msOf(d.MatchedAt)})
}

// Candidate is one worker the matcher weighed, in a Decision or a Suggestion.
type Candidate struct {
	WorkerID          string   `json:"workerId"`
	Eligible          bool     `json:"eligible"`
	Chosen            bool     `json:"chosen,omitempty"` // decisions only
	Score             float64  `json:"score"`
	EffectivePriority float64  `json:"effectivePriority"`
	Reasons           []Reason `json:"reasons"`
}

// Reason explains part of a candidate's standing, e.g. kind "tagWeight" or
// "missingTag". Kinds are added over time; unknown ones are kept, with their
// members in Raw. The typed members are filled when the reason carries them;
// which ones a kind carries is listed with the Reason* constants.
type Reason struct {
	Kind string `json:"kind"`
	// Tag is the task tag the reason is about (tagWeight, zeroWeight,
	// missingTag, threshold, learnedVeto).
	Tag string `json:"tag,omitempty"`
	// Weight is the worker's routing weight for Tag (tagWeight, zeroWeight,
	// threshold).
	Weight float64 `json:"weight,omitempty"`
	// Threshold is the task's minimum weight for Tag (threshold).
	Threshold float64 `json:"threshold,omitempty"`
	// Factor is the learning factor applied to the score (learningBoost, the
	// every-tag rules).
	Factor float64 `json:"factor,omitempty"`
	// Predicted is the reward the platform's learning model predicts for the
	// worker and task, added to priority + score (learningBoost, the platform
	// rules with learning on).
	Predicted float64 `json:"predicted,omitempty"`
	// Penalty is the load penalty subtracted from the score (loadPenalty).
	Penalty float64 `json:"penalty,omitempty"`
	// Shadow reports a learning factor computed but not applied, in shadow
	// mode (learningBoost).
	Shadow bool `json:"shadow,omitempty"`
	// SkillID is the required skill (missingSkill, skillExpired,
	// skillLevelTooLow, skillWeight); Level is the worker's level in it
	// (skillLevelTooLow, skillWeight) and MinLevel the task's minimum
	// (missingSkill, skillLevelTooLow).
	SkillID  string `json:"skillId,omitempty"`
	Level    int    `json:"level,omitempty"`
	MinLevel int    `json:"minLevel,omitempty"`
	// TeamID is the task's teamId (notInTeam) or preferTeamId
	// (preferredTeam).
	TeamID string `json:"teamId,omitempty"`
	// DistanceKm is how far the worker is from the task and MaxDistanceKm
	// the limit it breaks, the task's or its own, whichever is lower (tooFar).
	DistanceKm    float64 `json:"distanceKm,omitempty"`
	MaxDistanceKm float64 `json:"maxDistanceKm,omitempty"`
	// Workers are the workers that ranked equal with the chosen one, the
	// chosen one included (tie, sent by the mock server only).
	Workers []string `json:"workers,omitempty"`
	// Raw is the whole reason object as received, with every member.
	Raw json.RawMessage `json:"-"`
}

// Reason kinds the service sends today. The list grows; compare Kind with
// these and keep the rest.
const (
	ReasonTagWeight          = "tagWeight"          // Tag, Weight: the weight counted in the score
	ReasonLearningBoost      = "learningBoost"      // Factor or Predicted, Shadow
	ReasonLoadPenalty        = "loadPenalty"        // Penalty (balanced mode)
	ReasonMissingTag         = "missingTag"         // Tag: the worker does not carry it
	ReasonZeroWeight         = "zeroWeight"         // Tag, Weight 0: a hard veto of the tag
	ReasonThreshold          = "threshold"          // Tag, Weight, Threshold: below the task's minimum
	ReasonVetoed             = "vetoed"             // the task's vetoedWorkers names the worker
	ReasonRejectedPreviously = "rejectedPreviously" // the worker rejected this task before
	ReasonBacklogFull        = "backlogFull"        // the worker holds as many offers as it may
	ReasonUnavailable        = "unavailable"        // the worker is not available
	ReasonOnBreak            = "onBreak"            // the worker is on a break
	ReasonLearnedVeto        = "learnedVeto"        // Tag: learning vetoed the worker (opt-in)
	ReasonManualAssign       = "manualAssign"       // the task was assigned by hand
	// ReasonTie is on the chosen candidate of a decision whose worker ranked equal
	// with others (Workers): the platform could have chosen any of them. The mock
	// server sends it (docs/contract.md, "Tests that hold on the platform").
	ReasonTie = "tie" // Workers

	// The routing inputs beyond tags (docs/contract.md, section 7, "Skills,
	// teams, place and network").
	ReasonMissingSkill     = "missingSkill"     // SkillID, MinLevel: a required skill the worker does not hold
	ReasonSkillExpired     = "skillExpired"     // SkillID: held, but past its ValidUntil
	ReasonSkillLevelTooLow = "skillLevelTooLow" // SkillID, Level, MinLevel
	ReasonSkillWeight      = "skillWeight"      // SkillID, Level, Weight: a required skill's part of the score
	ReasonNotInTeam        = "notInTeam"        // TeamID: the task is for that team's members only
	ReasonPreferredTeam    = "preferredTeam"    // TeamID, Weight: the bonus of a preferTeamId member
	ReasonTooFar           = "tooFar"           // DistanceKm, MaxDistanceKm
	ReasonNoGeo            = "noGeo"            // requireGeo and the worker (or task) has no location
	ReasonIPNotAllowed     = "ipNotAllowed"     // the worker's ip is in none of allowedCidrs, or unknown
)

// UnmarshalJSON fills the typed members and keeps the whole object in Raw.
func (r *Reason) UnmarshalJSON(b []byte) error {
	type plain Reason // drops the method, so this does not recurse
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = Reason(p)
	r.Raw = cloneRaw(b)
	return nil
}

// MarshalJSON writes Raw when there is one, else the typed members.
func (r Reason) MarshalJSON() ([]byte, error) {
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	type plain Reason
	return json.Marshal(plain(r))
}

// ListDecisionsParams filters GET /decisions. Zero fields are not sent.
type ListDecisionsParams struct {
	TaskID   string // at most 128 characters
	WorkerID string // at most 128 characters
	Limit    int    // 1-100; 0 leaves the server's default
}

// DecisionsService holds the calls a worker's side makes about a match, and
// the decision log. Use it as Client.Decisions.
type DecisionsService struct{ c *Client }

// Accept accepts a task offered to workerID.
//
// API: tasks.accept, POST /tasks/{id}/accept
func (s *DecisionsService) Accept(ctx context.Context, taskID, workerID string, opts ...RequestOption) (*TaskRef, error) {
	return s.c.answerTask(ctx, "/tasks/", taskID, "/accept", workerID, nil, opts)
}

// Reject turns down a task offered to workerID, which never gets it again.
//
// API: tasks.reject, POST /tasks/{id}/reject
func (s *DecisionsService) Reject(ctx context.Context, taskID, workerID string, opts ...RequestOption) (*TaskRef, error) {
	return s.c.answerTask(ctx, "/tasks/", taskID, "/reject", workerID, nil, opts)
}

// Complete completes a task accepted by workerID.
// result, when not nil, must encode as a JSON object; it is passed on in the
// task.completed event.
//
// API: tasks.complete, POST /tasks/{id}/complete
func (s *DecisionsService) Complete(ctx context.Context, taskID, workerID string, result any, opts ...RequestOption) (*TaskRef, error) {
	return s.c.answerTask(ctx, "/tasks/", taskID, "/complete", workerID, result, opts)
}

// answerTask is the shared body of Accept, Reject and Complete on both
// planes, which differ only in the path's root ("/tasks/" or
// "/portal/tasks/"), its last segment and the optional result.
func (c *Client) answerTask(ctx context.Context, root, taskID, verb, workerID string, result any, opts []RequestOption) (*TaskRef, error) {
	if err := c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	if err := c.admit(firstError(checkID("workerID", workerID), checkLen("workerID", workerID, 1, 128)), opts); err != nil {
		return nil, err
	}
	in := struct {
		WorkerID string `json:"workerId"`
		Result   any    `json:"result,omitempty"`
	}{workerID, result}
	out := new(TaskRef)
	if err := c.call(ctx, "POST", escapePath(root, taskID, verb), nil, in, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// List returns decisions, newest first.
//
// API: decisions.list, GET /decisions
func (s *DecisionsService) List(ctx context.Context, p ListDecisionsParams, opts ...RequestOption) ([]Decision, error) {
	if p.Limit < 0 {
		return nil, &ParamError{Param: "ListDecisionsParams.Limit", Problem: "must not be negative"}
	}
	if err := s.c.admit(firstError(
		checkLen("ListDecisionsParams.TaskID", p.TaskID, 0, 128),
		checkLen("ListDecisionsParams.WorkerID", p.WorkerID, 0, 128),
		checkRange("ListDecisionsParams.Limit", float64(p.Limit), 0, 100),
	), opts); err != nil {
		return nil, err
	}
	q := url.Values{}
	if p.TaskID != "" {
		q.Set("taskId", p.TaskID)
	}
	if p.WorkerID != "" {
		q.Set("workerId", p.WorkerID)
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var out struct {
		Decisions []Decision `json:"decisions"`
	}
	if err := s.c.call(ctx, "GET", "/decisions", q, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Decisions, nil
}
