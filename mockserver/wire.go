package mockserver

import (
	"bytes"
	"encoding/json"
	"sort"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// taskExtra is what the server stores beside a task for the matcher, to echo it back:
// members the matcher does not enforce, each exactly as the client sent it.
type taskExtra struct {
	meta        json.RawMessage // object or null; nil when absent
	title       *string
	description *string
	escalation  json.RawMessage // the whole object as sent (other members kept), or null
	sla         json.RawMessage
	schedule    json.RawMessage
	others      map[string]json.RawMessage // platform members modelled by the client, kept opaque
	ctxCreated  time.Time                  // first tasks.context.set since the last clear; zero: none
	ctxUpdated  time.Time                  // last tasks.context.set
	comments    []comment                  // tasks.comments.* (comments.go), posting order
	commentSeq  int
	idemKeys    []string // idempotency keys whose stored answers name the task (finished.go)
}

// workerExtra is what the server stores beside a worker: the platform's members the
// matcher does not act on yet (skills, teams, network and geo), echoed on reads.
type workerExtra struct {
	skills  json.RawMessage // array as sent; nil: none
	teamIDs []string        // as sent; writeWorker moves them to the team store, so stored extras hold nil
	others  map[string]any  // ip, latitude, longitude, maxTravelDistanceKm: stored, not listed (as the platform)
}

func (x *workerExtra) set(name string, v any) {
	if x.others == nil {
		x.others = map[string]any{}
	}
	x.others[name] = v
}

// mergeWorkerExtra applies a patch's members over what the worker had; absent members keep
// their value.
func mergeWorkerExtra(old, patch any) any {
	p, ok := patch.(*workerExtra)
	if !ok || p == nil {
		return nil // the matcher keeps the stored value
	}
	o, ok := old.(*workerExtra)
	if !ok || o == nil {
		return p
	}
	out := &workerExtra{skills: o.skills, teamIDs: o.teamIDs}
	for k, v := range o.others {
		out.set(k, v)
	}
	if p.skills != nil {
		out.skills = p.skills
	}
	if p.teamIDs != nil {
		out.teamIDs = p.teamIDs
	}
	for k, v := range p.others {
		out.set(k, v)
	}
	return out
}

// isoTime writes a time as the platform's ISO-8601 strings (UTC, milliseconds).
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// wireSkill is a skill as the platform lists it on a worker (WorkerSkill in
// api/openapi.json): key and name come from the catalogue, and the weight in effect is the
// override, else level x 20, as the platform derives it; the same weight scores a required
// skill in the mock's routing.
type wireSkill struct {
	SkillID        string   `json:"skillId"`
	Key            string   `json:"key"`
	Name           string   `json:"name"`
	Level          int      `json:"level"`
	Weight         float64  `json:"weight"`
	WeightOverride *float64 `json:"weightOverride"` // null without an override, as the platform sends it
	ValidUntil     *string  `json:"validUntil,omitempty"`
}

// workerSkills is a worker's stored skills resolved against the catalogue, [] when it has
// none.
func workerSkills(w match.WorkerDetail, cat *skillCatalog) []wireSkill {
	out := []wireSkill{}
	for _, a := range storedSkills(w.Extra) {
		s, _ := cat.resolve(a.SkillID) // a skill held by a worker cannot be removed
		ws := wireSkill{SkillID: a.SkillID, Key: s.Key, Name: s.Name, Level: a.Level,
			Weight: float64(a.Level * 20), WeightOverride: a.WeightOverride}
		if a.ValidUntil != "" {
			until := a.ValidUntil
			ws.ValidUntil = &until
		}
		if a.WeightOverride != nil {
			ws.Weight = *a.WeightOverride
		}
		out = append(out, ws)
	}
	return out
}

type wireTask struct {
	ID              string             `json:"id"`
	Tags            []string           `json:"tags"`
	Priority        float64            `json:"priority"`
	Status          string             `json:"status"`
	WorkerID        *string            `json:"workerId"`
	CreatedAt       int64              `json:"createdAt"`
	Meta            json.RawMessage    `json:"meta"`
	SkillThresholds map[string]float64 `json:"skillThresholds,omitempty"`
	Title           *string            `json:"title,omitempty"`
	Escalation      json.RawMessage    `json:"escalation,omitempty"`
	EscalationLevel int                `json:"escalationLevel"`
	SLA             json.RawMessage    `json:"sla,omitempty"`
	Schedule        json.RawMessage    `json:"schedule,omitempty"`
	Result          json.RawMessage    `json:"result,omitempty"`
}

// taskJSON renders a Task; the platform members kept opaque are spliced in after the known
// ones so their bytes come back exactly as sent.
func taskJSON(t match.Task) json.RawMessage {
	w := wireTask{
		ID:              t.ID,
		Tags:            orEmpty(t.Tags),
		Priority:        t.Priority,
		Status:          string(t.Status),
		CreatedAt:       t.CreatedAt.UnixMilli(),
		Meta:            json.RawMessage("null"),
		SkillThresholds: t.SkillThresholds,
		EscalationLevel: t.EscalationLevel,
	}
	if t.WorkerID != "" {
		id := t.WorkerID
		w.WorkerID = &id
	}
	if t.Status == match.StatusCompleted {
		w.Result = rawOrNull(t.Result)
	}
	x, _ := t.Extra.(*taskExtra)
	if x != nil {
		if x.meta != nil {
			w.Meta = x.meta
		}
		w.Title = x.title
		w.Escalation, w.SLA, w.Schedule = x.escalation, x.sla, x.schedule
	}
	b, _ := json.Marshal(w)
	if x == nil || len(x.others) == 0 {
		return b
	}
	keys := make([]string, 0, len(x.others))
	for k := range x.others {
		if !storedOnly[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(x.others[k])
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// storedOnly are create members the server keeps but, like the platform, does not list on
// a task read: the platform's Task model has no member for them. The rich data
// (description, context, references) is read through tasks.context.get and the worker
// plane's task detail; the counts are in the task's data summary.
var storedOnly = map[string]bool{
	"requiredSkills": true, "teamId": true, "preferTeamId": true,
	"context": true, "references": true,
}

// portalTask is the worker plane's task detail, which the platform keeps to what a worker
// needs: no holder, meta, vetoes or queue times.
type portalTask struct {
	ID          string          `json:"id"`
	Status      string          `json:"status"`
	Tags        []string        `json:"tags"`
	Priority    float64         `json:"priority"`
	Title       *string         `json:"title,omitempty"`
	Description *string         `json:"description,omitempty"`
	Context     json.RawMessage `json:"context,omitempty"`
	References  json.RawMessage `json:"references,omitempty"`
	CreatedAt   int64           `json:"createdAt"`
}

func portalTaskJSON(t match.Task) portalTask {
	out := portalTask{ID: t.ID, Status: string(t.Status), Tags: orEmpty(t.Tags), Priority: t.Priority, CreatedAt: t.CreatedAt.UnixMilli()}
	if x, ok := t.Extra.(*taskExtra); ok {
		out.Title, out.Description = x.title, x.description
		out.Context, out.References = x.others["context"], x.others["references"]
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

type wireWorker struct {
	ID             string             `json:"id"`
	Tags           []string           `json:"tags"`
	RoutingWeights map[string]float64 `json:"routingWeights"`
	MaxBacklogSize *int               `json:"maxBacklogSize"`
	Available      bool               `json:"available"`
	QueueDepth     int                `json:"queueDepth"`
	Skills         []wireSkill        `json:"skills"`
	Teams          []wireTeam         `json:"teams"`
	Locale         string             `json:"locale,omitempty"`
	// Set from the worker's sign-in (onboarding.go): an invite still to be accepted, or a
	// join awaiting an operator.
	InvitePending   bool `json:"invitePending,omitempty"`
	PendingApproval bool `json:"pendingApproval,omitempty"`
}

// wireTeam is a team membership as the platform lists it. The API has no call that makes a
// worker a lead, so every member is a "member".
type wireTeam struct {
	TeamID string  `json:"teamId"`
	Key    string  `json:"key"`
	Name   string  `json:"name"`
	Color  *string `json:"color"`
	Role   string  `json:"role"`
}

func workerJSON(w match.WorkerDetail, teams []wireTeam, cat *skillCatalog) wireWorker {
	out := wireWorker{
		ID:             w.ID,
		Tags:           orEmpty(w.Tags),
		RoutingWeights: w.RoutingWeights,
		MaxBacklogSize: w.MaxBacklogSize,
		Available:      w.Available,
		QueueDepth:     w.QueueDepth,
		Skills:         workerSkills(w, cat),
		Teams:          teams,
	}
	if out.RoutingWeights == nil {
		out.RoutingWeights = map[string]float64{}
	}
	if x, ok := w.Extra.(*workerExtra); ok {
		out.Locale, _ = x.others["locale"].(string)
	}
	return out
}

// MatchReason is one reason of the matcher about a worker, as decisions, suggest-workers and
// Unmatched carry it: its kind ("missingTag", "vetoed", ...) and the members that mean
// something for that kind.
type MatchReason struct {
	Kind      string   `json:"kind"`
	Tag       string   `json:"tag,omitempty"`
	Weight    *float64 `json:"weight,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	Factor    *float64 `json:"factor,omitempty"`
	Predicted *float64 `json:"predicted,omitempty"`
	Penalty   *float64 `json:"penalty,omitempty"`
	Shadow    bool     `json:"shadow,omitempty"`
	// The routing reasons' members (routing.go).
	SkillID       string   `json:"skillId,omitempty"`
	Level         *int     `json:"level,omitempty"`
	MinLevel      *int     `json:"minLevel,omitempty"`
	TeamID        string   `json:"teamId,omitempty"`
	DistanceKm    *float64 `json:"distanceKm,omitempty"`
	MaxDistanceKm *float64 `json:"maxDistanceKm,omitempty"`
	// Workers are, on a decision's "tie" reason, the workers that ranked equal with the
	// chosen one, the chosen one included (ties.go).
	Workers []string `json:"workers,omitempty"`
}

// reasonJSON sends only the members that mean something for the kind, so a weight of 0 on a
// zeroWeight reason is distinguishable from "no weight".
func reasonJSON(r match.Reason) MatchReason {
	out := MatchReason{Kind: string(r.Kind), Tag: r.Tag}
	if routingReasonJSON(r, &out) {
		return out
	}
	w, th, b := r.Weight, r.Threshold, r.Boost
	switch r.Kind {
	case match.ReasonTagWeight, match.ReasonZeroWeight:
		out.Weight = &w
	case match.ReasonThreshold:
		out.Weight, out.Threshold = &w, &th
	case match.ReasonLearningBoost:
		out.Factor, out.Shadow = &b, r.Shadow
		if r.Predicted {
			out.Factor, out.Predicted = nil, &b
		}
	case match.ReasonLoadPenalty:
		out.Penalty = &b
	}
	return out
}

type wireCandidate struct {
	WorkerID          string        `json:"workerId"`
	Eligible          bool          `json:"eligible"`
	Chosen            bool          `json:"chosen"`
	Score             float64       `json:"score"`
	EffectivePriority float64       `json:"effectivePriority"`
	Reasons           []MatchReason `json:"reasons"`
}

func candidateJSON(c match.Candidate) wireCandidate {
	out := wireCandidate{WorkerID: c.WorkerID, Eligible: c.Eligible, Chosen: c.Chosen, Score: c.Score,
		EffectivePriority: c.EffectivePriority, Reasons: make([]MatchReason, 0, len(c.Reasons))}
	for _, r := range c.Reasons {
		out.Reasons = append(out.Reasons, reasonJSON(r))
	}
	return out
}

type wireDecision struct {
	ID         string          `json:"id"`
	TaskID     string          `json:"taskId"`
	WorkerID   string          `json:"workerId"`
	MatchedAt  int64           `json:"matchedAt"`
	Mode       string          `json:"mode"`
	Candidates []wireCandidate `json:"candidates"`
}

func decisionJSON(d match.Decision) wireDecision {
	out := wireDecision{ID: d.ID, TaskID: d.TaskID, WorkerID: d.WorkerID, MatchedAt: d.MatchedAt.UnixMilli(),
		Mode: string(d.Mode), Candidates: make([]wireCandidate, 0, len(d.Candidates))}
	for _, c := range d.Candidates {
		wc := candidateJSON(c)
		if c.Chosen && len(d.Ties) > 0 {
			wc.Reasons = append(wc.Reasons, tieReason(d.Ties))
		}
		out.Candidates = append(out.Candidates, wc)
	}
	return out
}
