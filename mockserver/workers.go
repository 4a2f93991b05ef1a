package mockserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// workerBody is UpsertWorkerInput of api/openapi.json (PatchWorkerInput is the same without
// id; the schema of each refuses what it lacks).
type workerBody struct {
	ID                  string             `json:"id"`
	Tags                []string           `json:"tags"`
	RoutingWeights      map[string]float64 `json:"routingWeights"`
	MaxBacklogSize      *float64           `json:"maxBacklogSize"`
	Available           *bool              `json:"available"`
	Skills              json.RawMessage    `json:"skills"`
	TeamIDs             []string           `json:"teamIds"` // nil: absent or null; [] clears
	IP                  *string            `json:"ip"`
	Latitude            *float64           `json:"latitude"`
	Longitude           *float64           `json:"longitude"`
	MaxTravelDistanceKm *float64           `json:"maxTravelDistanceKm"`
	Locale              json.RawMessage    `json:"locale"` // null: back to the workspace default
}

func decodeWorkerInput(r *request) (match.WorkerInput, *apiError) {
	var b workerBody
	if err := decodeBody(r.body, &b); err != nil {
		return match.WorkerInput{}, err
	}
	in := match.WorkerInput{ID: b.ID, Tags: b.Tags, RoutingWeights: b.RoutingWeights, Available: b.Available}
	if b.MaxBacklogSize != nil {
		n := int(*b.MaxBacklogSize)
		in.MaxBacklogSize = &n
	}
	if b.IP != nil {
		if err := checkWorkerIP("body/ip", *b.IP); err != nil {
			return in, err
		}
	}
	if err := checkSkillDays(b.Skills); err != nil {
		return in, err
	}
	if x := b.extra(); x != nil {
		in.Extra = x
	}
	return in, nil
}

// extra collects the platform's skills, teams, network and geo members. The mock stores and
// echoes them, and routes on them (routing.go; docs/contract.md, section 7). nil: none sent.
func (b *workerBody) extra() *workerExtra {
	x := &workerExtra{}
	sent := false
	if b.Skills != nil && !isNull(b.Skills) {
		x.skills, sent = compact(b.Skills), true
	}
	if b.TeamIDs != nil {
		x.teamIDs, sent = b.TeamIDs, true
	}
	if b.Locale != nil {
		loc := ""
		if !isNull(b.Locale) {
			_ = json.Unmarshal(b.Locale, &loc) // a string: the schema says so
		}
		x.set("locale", loc)
		sent = true
	}
	if b.IP != nil {
		x.set("ip", *b.IP)
		sent = true
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"latitude", b.Latitude}, {"longitude", b.Longitude}, {"maxTravelDistanceKm", b.MaxTravelDistanceKm}} {
		if f.v != nil {
			x.set(f.name, *f.v)
			sent = true
		}
	}
	if !sent {
		return nil
	}
	return x
}

type idAnswer struct {
	ID string `json:"id"`
}

// prepUpsertWorker is POST /workers: create or update; {} creates a worker with a server id.
func prepUpsertWorker(r *request) (op, *apiError) {
	in, err := decodeWorkerInput(r)
	if err != nil {
		return nil, err
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if in.ID == "" {
			in.ID = ws.freshWorkerID()
		}
		return ws.writeWorker(now, in, false)
	}, nil
}

// prepPatchWorker is PATCH /workers/{id}: absent members keep their value.
func prepPatchWorker(r *request) (op, *apiError) {
	in, err := decodeWorkerInput(r)
	if err != nil {
		return nil, err
	}
	in.ID = r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		return ws.writeWorker(now, in, true)
	}, nil
}

// writeWorker applies an upsert or a patch after checking the plan limits it could break.
func (ws *workspace) writeWorker(now time.Time, in match.WorkerInput, patch bool) (int, any, *apiError) {
	old, lookErr := ws.engine.Worker(in.ID)
	exists := lookErr == nil
	if patch && !exists {
		return 0, nil, notFoundf("worker %s not found", in.ID)
	}
	if x, ok := in.Extra.(*workerExtra); ok {
		if err := ws.resolveWorkerSkills(x); err != nil {
			return 0, nil, err
		}
	}
	if lim := ws.limits.Workers; lim > 0 && !exists && ws.workers >= lim {
		return 0, nil, planLimit("workers", lim)
	}
	newTags := old.Tags
	if in.Tags != nil {
		newTags = in.Tags
	}
	if lim := ws.limits.WorkerSkills; lim > 0 && len(newTags) > lim {
		return 0, nil, planLimit("skills per worker", lim)
	}
	if lim := ws.limits.Skills; lim > 0 && ws.skillsAfter(old.Tags, newTags) > lim {
		return 0, nil, planLimit("skills", lim)
	}
	// teamIds live in the team store (teams.go), not beside the worker: checked here, applied
	// once the write succeeded.
	var teamIDs []string
	if x, ok := in.Extra.(*workerExtra); ok && x.teamIDs != nil {
		if i := ws.teams.unknown(x.teamIDs); i >= 0 {
			return 0, nil, validationf("body/teamIds/%d names no team of this workspace (%s)", i, x.teamIDs[i])
		}
		teamIDs, x.teamIDs = x.teamIDs, nil
	}
	if patch {
		in.Extra = mergeWorkerExtra(old.Extra, in.Extra)
	}
	// The matcher gets the worker's whole routing input on every write: the stored members
	// with this write's over them, and the teams it will be on.
	extraAfter := in.Extra
	if extraAfter == nil {
		extraAfter = old.Extra
	}
	teamsAfter := ws.teams.teamIDsOf(in.ID)
	if teamIDs != nil {
		teamsAfter = slices.Clone(teamIDs)
	}
	in.Routing = workerRouting(extraAfter, teamsAfter)
	var res match.Result
	var err error
	if patch {
		res, err = ws.engine.PatchWorker(now, in.ID, in)
	} else {
		res, err = ws.engine.UpsertWorker(now, in)
	}
	ws.publish(res)
	if err != nil {
		return 0, nil, matchError(err)
	}
	if res.Created {
		ws.workers++
	}
	ws.observeWorker(now, in.ID, sourceOperator)
	ws.retag(old.Tags, newTags)
	if teamIDs != nil {
		ws.teams.setWorkerTeams(in.ID, teamIDs, now)
	}
	return http.StatusOK, idAnswer{ID: in.ID}, nil
}

func (ws *workspace) freshWorkerID() string {
	for {
		id := ws.newID("wrk_")
		if _, err := ws.engine.Worker(id); err != nil {
			return id
		}
	}
}

func prepGetWorker(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		w, err := ws.engine.Worker(id)
		if err != nil {
			return 0, nil, matchError(err)
		}
		out := workerJSON(w, ws.teams.ofWorker(id), &ws.skillCat)
		if ident := ws.identities[id]; ident != nil {
			out.InvitePending, out.PendingApproval = ident.inviteHash != [32]byte{}, ident.pendingApproval
		}
		return http.StatusOK, out, nil
	}, nil
}

type workerList struct {
	Workers []string `json:"workers"`
	Count   int      `json:"count"`
}

func prepListWorkers(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		ids := orEmpty(ws.engine.WorkerIDs())
		return http.StatusOK, workerList{Workers: ids, Count: len(ids)}, nil
	}, nil
}

type availabilityAnswer struct {
	ID              string   `json:"id"`
	Available       bool     `json:"available"`
	ReleasedTaskIDs []string `json:"releasedTaskIds,omitempty"`
}

// prepSetAvailability is POST /workers/{id}/availability.
func prepSetAvailability(r *request) (op, *apiError) {
	var b struct {
		Available      bool `json:"available"`
		ReleaseBacklog bool `json:"releaseBacklog"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	available, release := b.Available, b.ReleaseBacklog
	if release && available {
		return nil, invalidBodyf("releaseBacklog can only be sent with available: false")
	}
	id := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		res, err := ws.engine.SetAvailability(now, id, available, release)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		ws.observeWorker(now, id, sourceOperator)
		if ident := ws.identities[id]; available && ident != nil {
			ident.pendingApproval = false // an operator putting a joined worker on shift admits them
		}
		out := availabilityAnswer{ID: id, Available: available}
		if release {
			out.ReleasedTaskIDs = orEmpty(res.ReleasedTaskIDs)
		}
		return http.StatusOK, out, nil
	}, nil
}

type queueAnswer struct {
	WorkerID string   `json:"workerId"`
	TaskIDs  []string `json:"taskIds"`
}

func prepWorkerQueue(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		ids, err := ws.engine.WorkerQueue(id)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, queueAnswer{WorkerID: id, TaskIDs: orEmpty(ids)}, nil
	}, nil
}

// prepRemoveWorker is DELETE /workers/{id}: under the every-tag rules its pending offers go
// back to the queue; under the platform rules they stay until they expire (match.RemoveWorker).
func prepRemoveWorker(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		old, _ := ws.engine.Worker(id)
		res, err := ws.engine.RemoveWorker(now, id)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		ws.workers--
		ws.retag(old.Tags, nil)
		delete(ws.identities, id)
		ws.teams.dropWorker(id)
		ws.time.workerGone(now, id)
		ws.links.dropWorker(id)
		ws.sessions.revokeWorker(ws, id, "")
		return http.StatusNoContent, nil, nil
	}, nil
}
