package taskrouting

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"
)

// UpsertWorkerParams is the body of POST /workers. Every field is optional;
// with no ID the server makes one. Nil fields are left out; an empty but
// non-nil slice or map is sent and replaces what the worker had.
//
// Under the platform's rules a worker is a candidate for a task through any
// one tag it shares with the task. A worker with routing weights reaches
// only its weighted tags: Tags {"english", "technical"} with RoutingWeights
// {"technical": 5} is never offered a task through "english". A task that
// needs more than one shared tag says so with CreateTaskParams.RequiredSkills
// (skills the worker holds, Skills here) or SkillThresholds (docs/contract.md
// section 7, "How the platform matches").
type UpsertWorkerParams struct {
	ID   string   `json:"id,omitempty"`  // at most 128 characters
	Tags []string `json:"tags,omitzero"` // at most 64, each 1-64 characters
	// RoutingWeights maps a tag or a "prefix*" pattern to the worker's
	// proficiency (>= 0), at most 128 entries. A weight of 0 is a hard veto
	// of that tag. With weights, only the tags with a positive weight make
	// the worker a candidate; without, every tag in Tags does, each scoring
	// its share of the worker's tags.
	RoutingWeights map[string]float64 `json:"routingWeights,omitzero"`
	// Skills replaces the worker's skills (at most 128), which a task's
	// RequiredSkills asks for; each adds to the worker's score for such a
	// task by its level, unless it carries a weight override. Skills are not
	// routing weights: they do not change which tags the worker reaches.
	Skills []SkillAssignment `json:"skills,omitzero"`
	// TeamIDs replaces the teams the worker belongs to (at most 32).
	TeamIDs []string `json:"teamIds,omitzero"`
	// IP is the worker's address, matched against a task's AllowedCIDRs.
	IP string `json:"ip,omitempty"`
	// Latitude and Longitude place the worker for tasks with a location;
	// MaxTravelDistanceKm is how far from it the worker takes work.
	Latitude            *float64 `json:"latitude,omitempty"`
	Longitude           *float64 `json:"longitude,omitempty"`
	MaxTravelDistanceKm *float64 `json:"maxTravelDistanceKm,omitempty"`
	// MaxBacklogSize caps pending offers; nil is the workspace default and
	// Ptr(0) means the worker receives nothing.
	MaxBacklogSize *int `json:"maxBacklogSize,omitempty"`
	// Available: a new worker is created unavailable unless Ptr(true); nil
	// on an existing worker leaves it as it is.
	Available *bool `json:"available,omitempty"`
	// Locale is the worker's language, used for their notifications and
	// emails; Null returns them to the workspace default.
	Locale Nullable[string] `json:"locale,omitzero"`
}

// PatchWorkerParams is the body of PATCH /workers/{id}: nil fields keep
// their value, set fields replace it. The fields mean what they mean in
// UpsertWorkerParams.
type PatchWorkerParams struct {
	Tags                []string           `json:"tags,omitzero"`
	RoutingWeights      map[string]float64 `json:"routingWeights,omitzero"`
	Skills              []SkillAssignment  `json:"skills,omitzero"`
	TeamIDs             []string           `json:"teamIds,omitzero"`
	IP                  string             `json:"ip,omitempty"`
	Latitude            *float64           `json:"latitude,omitempty"`
	Longitude           *float64           `json:"longitude,omitempty"`
	MaxTravelDistanceKm *float64           `json:"maxTravelDistanceKm,omitempty"`
	MaxBacklogSize      *int               `json:"maxBacklogSize,omitempty"`
	Available           *bool              `json:"available,omitempty"`
	Locale              Nullable[string]   `json:"locale,omitzero"`
}

// SkillAssignment gives a worker a skill at a level.
type SkillAssignment struct {
	SkillID string `json:"skillId"` // the skill's id or key, at most 64 characters
	Level   int    `json:"level"`   // 1 (novice) to 5 (expert)
	// WeightOverride, when set (0-100), is the routing weight the skill
	// gives instead of the one its level projects to.
	WeightOverride *float64 `json:"weightOverride,omitempty"`
	// ValidUntil, when set, is the last day the skill counts ("2026-07-24",
	// UTC, inclusive): after it the mock server's routing treats the skill
	// as not held and skills.expiring reports it (docs/contract.md,
	// "Skill catalogue").
	ValidUntil string `json:"validUntil,omitempty"`
}

// WorkerSkill is a skill a worker holds, with the routing weight it gives.
type WorkerSkill struct {
	SkillID        string   `json:"skillId"`
	Key            string   `json:"key"`
	Name           string   `json:"name"`
	Level          int      `json:"level"`
	Weight         float64  `json:"weight"`                   // the weight in effect
	WeightOverride *float64 `json:"weightOverride,omitempty"` // nil when the level decides
	// ValidFrom and ValidUntil bound the qualification, as ISO days
	// ("2026-07-24", both inclusive); "" when unbounded.
	ValidFrom  string `json:"validFrom,omitempty"`
	ValidUntil string `json:"validUntil,omitempty"`
}

// WorkerTeam is one team a worker belongs to, as WorkerDetail lists it.
type WorkerTeam struct {
	TeamID string `json:"teamId"`
	Key    string `json:"key"`
	Name   string `json:"name"`
	Color  string `json:"color,omitempty"`
	Role   string `json:"role"` // "member" or "lead"
}

// validate holds the fields to the platform's limits (workers.upsert).
func (p UpsertWorkerParams) validate() error {
	const in = "UpsertWorkerParams"
	if p.ID == "." || p.ID == ".." {
		return checkID(in+".ID", p.ID)
	}
	return firstError(
		checkLen(in+".ID", p.ID, 0, 128),
		workerFields{p.Tags, p.RoutingWeights, p.Skills, p.TeamIDs, p.IP, p.Latitude, p.Longitude, p.MaxTravelDistanceKm, p.MaxBacklogSize}.validate(in),
	)
}

// validate holds the fields to the platform's limits (workers.patch).
func (p PatchWorkerParams) validate() error {
	return workerFields{p.Tags, p.RoutingWeights, p.Skills, p.TeamIDs, p.IP, p.Latitude, p.Longitude, p.MaxTravelDistanceKm, p.MaxBacklogSize}.validate("PatchWorkerParams")
}

// workerFields are the fields upsert and patch share, checked alike.
type workerFields struct {
	tags                []string
	weights             map[string]float64
	skills              []SkillAssignment
	teamIDs             []string
	ip                  string
	lat, lon, maxTravel *float64
	backlog             *int
}

func (f workerFields) validate(in string) error {
	if err := firstError(
		checkStrings(in+".Tags", f.tags, 0, 64, 1, 64),
		checkCount(in+".RoutingWeights", len(f.weights), 0, 128),
		checkCount(in+".Skills", len(f.skills), 0, 128),
		checkStrings(in+".TeamIDs", f.teamIDs, 0, 32, 0, 64),
		checkLen(in+".IP", f.ip, 0, 45),
		checkGeo(in, f.lat, f.lon, f.maxTravel, "MaxTravelDistanceKm"),
	); err != nil {
		return err
	}
	// In key order, so the same params always report the same field.
	for _, tag := range slices.Sorted(maps.Keys(f.weights)) {
		if f.weights[tag] < 0 {
			return &ParamError{Param: in + ".RoutingWeights[" + strconv.Quote(tag) + "]", Problem: "must be at least 0"}
		}
	}
	for i, s := range f.skills {
		at := in + ".Skills[" + strconv.Itoa(i) + "]"
		if err := firstError(
			checkLen(at+".SkillID", s.SkillID, 1, 64),
			checkRange(at+".Level", float64(s.Level), 1, 5),
			checkOptRange(at+".WeightOverride", s.WeightOverride, 0, 100),
			checkDay(at+".ValidUntil", s.ValidUntil),
		); err != nil {
			return err
		}
	}
	if f.backlog != nil && *f.backlog < 0 {
		return &ParamError{Param: in + ".MaxBacklogSize", Problem: "must be at least 0"}
	}
	return nil
}

// WorkerRef is the answer of POST /workers and PATCH /workers/{id}.
type WorkerRef struct {
	ID string `json:"id"`
}

// WorkerDetail is a worker as the server reports it.
type WorkerDetail struct {
	ID             string             `json:"id"`
	Tags           []string           `json:"tags"`
	RoutingWeights map[string]float64 `json:"routingWeights"`
	Skills         []WorkerSkill      `json:"skills,omitempty"`
	Teams          []WorkerTeam       `json:"teams,omitempty"`
	MaxBacklogSize *int               `json:"maxBacklogSize"` // nil: workspace default
	Available      bool               `json:"available"`
	// InvitePending and PendingApproval say why a worker is unavailable
	// when it is not simply off shift: an invitation not yet accepted, or a
	// self-registration an operator has not admitted.
	InvitePending   bool   `json:"invitePending,omitempty"`
	PendingApproval bool   `json:"pendingApproval,omitempty"`
	Locale          string `json:"locale,omitempty"` // the worker's language; "" for the workspace default
	QueueDepth      int    `json:"queueDepth"`       // pending offers held
	// UnavailableReason says why the platform took the worker off shift
	// (for example a missed liveness deadline); "" when none is given.
	UnavailableReason string `json:"unavailableReason,omitempty"`
	// LearnedRoutingWeights are the weights learning proposes, synced at
	// LearnedRoutingWeightsSynced; RoutingWeightsSnapshot the weights an
	// apply replaced, kept so it can be reverted. nil when none.
	LearnedRoutingWeights       map[string]float64 `json:"learnedRoutingWeights,omitempty"`
	LearnedRoutingWeightsSynced time.Time          `json:"-"` // wire learnedRoutingWeightsSyncedAt, epoch ms; zero when null
	RoutingWeightsSnapshot      map[string]float64 `json:"routingWeightsSnapshot,omitempty"`
	// Raw is the worker's JSON, for the members this version of the client
	// does not model. When the worker is a call's whole answer (Workers.Get)
	// it is the response body exactly as received; elsewhere (in a list,
	// or decoded with json.Unmarshal) it is the object's own bytes,
	// without the whitespace around it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the wire form and keeps it in Raw.
func (w *WorkerDetail) UnmarshalJSON(b []byte) error {
	type plain WorkerDetail
	in := struct {
		*plain
		SyncedAt wireTime `json:"learnedRoutingWeightsSyncedAt"`
	}{plain: (*plain)(w)}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	w.LearnedRoutingWeightsSynced = in.SyncedAt.t
	w.Raw = cloneRaw(b)
	return nil
}

// WorkerList is the answer of GET /workers.
type WorkerList struct {
	Workers []string `json:"workers"` // ids
	Count   int      `json:"count"`
}

// SetAvailabilityParams is the body of POST /workers/{id}/availability.
type SetAvailabilityParams struct {
	Available bool `json:"available"`
	// ReleaseBacklog requeues the worker's pending offers; only with
	// Available false, and only sent when true.
	ReleaseBacklog bool `json:"releaseBacklog,omitempty"`
}

// Availability is the answer of POST /workers/{id}/availability.
type Availability struct {
	ID              string   `json:"id"`
	Available       bool     `json:"available"`
	ReleasedTaskIDs []string `json:"releasedTaskIds,omitempty"`
}

// WorkerQueue is the answer of GET /workers/{id}/queue: the tasks offered to
// the worker and not yet accepted.
type WorkerQueue struct {
	WorkerID string   `json:"workerId"`
	TaskIDs  []string `json:"taskIds"`
}

// WorkersService holds the worker operations. Use it as Client.Workers.
type WorkersService struct{ c *Client }

// Upsert creates a worker, or updates one that exists.
// On an update, fields left out (nil) keep their value. A new worker is
// created unavailable unless Available is set to true.
//
// API: workers.upsert, POST /workers
func (s *WorkersService) Upsert(ctx context.Context, p UpsertWorkerParams, opts ...RequestOption) (*WorkerRef, error) {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(WorkerRef)
	if err := s.c.call(ctx, "POST", "/workers", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Patch changes some of a worker's fields.
//
// API: workers.patch, PATCH /workers/{id}
func (s *WorkersService) Patch(ctx context.Context, workerID string, p PatchWorkerParams, opts ...RequestOption) (*WorkerRef, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	if err := s.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(WorkerRef)
	if err := s.c.call(ctx, "PATCH", escapePath("/workers/", workerID), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns a worker.
//
// API: workers.get, GET /workers/{id}
func (s *WorkersService) Get(ctx context.Context, workerID string, opts ...RequestOption) (*WorkerDetail, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	out := new(WorkerDetail)
	if err := s.c.call(ctx, "GET", escapePath("/workers/", workerID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// List returns the ids of all workers.
//
// API: workers.list, GET /workers
func (s *WorkersService) List(ctx context.Context, opts ...RequestOption) (*WorkerList, error) {
	out := new(WorkerList)
	if err := s.c.call(ctx, "GET", "/workers", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SetAvailability turns a worker on or off.
//
// API: workers.setAvailability, POST /workers/{id}/availability
func (s *WorkersService) SetAvailability(ctx context.Context, workerID string, p SetAvailabilityParams, opts ...RequestOption) (*Availability, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	if p.Available && p.ReleaseBacklog {
		return nil, &ParamError{Param: "SetAvailabilityParams.ReleaseBacklog", Problem: "only applies when Available is false"}
	}
	out := new(Availability)
	if err := s.c.call(ctx, "POST", escapePath("/workers/", workerID, "/availability"), nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Queue returns the tasks offered to a worker and not yet accepted.
//
// API: workers.queue, GET /workers/{id}/queue
func (s *WorkersService) Queue(ctx context.Context, workerID string, opts ...RequestOption) (*WorkerQueue, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	out := new(WorkerQueue)
	if err := s.c.call(ctx, "GET", escapePath("/workers/", workerID, "/queue"), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Remove deletes a worker. Against the platform its pending offers are not released (no
// task.released): they expire on their own, and tasks that vetoed it or that it rejected
// forget it, so a worker registered again under the same id can be offered them
// (docs/contract.md, "How the platform matches").
//
// API: workers.remove, DELETE /workers/{id}
func (s *WorkersService) Remove(ctx context.Context, workerID string, opts ...RequestOption) error {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/workers/", workerID), nil, nil, nil, opts)
}
