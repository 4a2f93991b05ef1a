package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// workerMembers are the members of UpsertWorkerInput; PatchWorkerInput is the same without id.
func workerMembers(withID bool) []string {
	m := []string{
		"tags", "routingWeights", "maxBacklogSize", "available",
		"skills", "teamIds", "ip", "latitude", "longitude", "maxTravelDistanceKm", "locale",
	}
	if withID {
		m = append(m, "id")
	}
	return m
}

func decodeWorkerInput(r *request, withID bool) (match.WorkerInput, *apiError) {
	var in match.WorkerInput
	o, err := parseBody(r.body, workerMembers(withID)...)
	if err != nil {
		return in, err
	}
	if withID {
		if in.ID, _, err = o.id("id"); err != nil {
			return in, err
		}
	}
	if in.Tags, _, err = o.strings("tags", 0, 64, 1, 64, false); err != nil {
		return in, err
	}
	if dup := firstDuplicate(in.Tags); dup >= 0 {
		return in, validationf("body/tags must NOT have duplicate items (item %d repeats an earlier one)", dup)
	}
	if in.RoutingWeights, _, err = o.numberMap("routingWeights", 128, 65, 0); err != nil {
		return in, err
	}
	if n, ok, err := o.integer("maxBacklogSize", 0, 10_000); err != nil {
		return in, err
	} else if ok {
		v := int(n)
		in.MaxBacklogSize = &v
	}
	if b, ok, err := o.boolean("available"); err != nil {
		return in, err
	} else if ok {
		in.Available = &b
	}
	x, err := decodeWorkerExtra(o)
	if err != nil {
		return in, err
	}
	if x != nil {
		in.Extra = x
	}
	return in, nil
}

// decodeWorkerExtra checks the platform's skills, teams, network and geo members. The mock
// stores and echoes them; routing does not use them yet (docs/contract.md, section 7).
func decodeWorkerExtra(o *object) (*workerExtra, *apiError) {
	x := &workerExtra{}
	sent := false
	if raw, ok := o.get("skills"); ok {
		if err := checkSkills(o.at("skills"), raw); err != nil {
			return nil, err
		}
		x.skills, sent = compact(raw), true
	}
	if ids, ok, err := o.strings("teamIds", 0, 64, 1, 128, true); err != nil {
		return nil, err
	} else if ok {
		x.teamIDs, sent = ids, true
	}
	// locale: null returns the worker to the workspace default (stored as "").
	if v, given := o.raw["locale"]; given && isNull(v) {
		x.set("locale", "")
		sent = true
	} else if loc, ok, err := o.str("locale", 0, 0); err != nil { // no limit is published
		return nil, err
	} else if ok {
		x.set("locale", loc)
		sent = true
	}
	if ip, ok, err := o.str("ip", 1, 64); err != nil {
		return nil, err
	} else if ok {
		x.set("ip", ip)
		sent = true
	}
	for _, f := range []struct {
		name   string
		lo, hi float64
	}{{"latitude", -90, 90}, {"longitude", -180, 180}, {"maxTravelDistanceKm", 0, 40_000}} {
		v, ok, err := o.number(f.name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if v < f.lo {
			return nil, validationf("%s must be >= %v", o.at(f.name), f.lo)
		}
		if v > f.hi {
			return nil, validationf("%s must be <= %v", o.at(f.name), f.hi)
		}
		x.set(f.name, v)
		sent = true
	}
	if !sent {
		return nil, nil
	}
	return x, nil
}

// checkSkills holds skills to the platform's SkillAssignment: {skillId, level 1-5,
// weightOverride?}.
func checkSkills(path string, raw []byte) *apiError {
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return validationf("%s must be array", path)
	}
	if len(items) > 64 {
		return validationf("%s must NOT have more than 64 items", path)
	}
	for i, it := range items {
		item, err := toObject(fmt.Sprintf("%s/%d", path, i), it, []string{"skillId", "level", "weightOverride"})
		if err != nil {
			return err
		}
		for _, name := range []string{"skillId", "level"} {
			if err := item.require(name); err != nil {
				return err
			}
		}
		if _, _, err := item.str("skillId", 1, 64); err != nil {
			return err
		}
		if _, _, err := item.integer("level", 1, 5); err != nil {
			return err
		}
		if _, _, err := item.number("weightOverride"); err != nil {
			return err
		}
	}
	return nil
}

type idAnswer struct {
	ID string `json:"id"`
}

// prepUpsertWorker is POST /workers: create or update; {} creates a worker with a server id.
func prepUpsertWorker(r *request) (op, *apiError) {
	in, err := decodeWorkerInput(r, true)
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
	in, err := decodeWorkerInput(r, false)
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
		return http.StatusOK, workerJSON(w, ws.teams.ofWorker(id), &ws.skillCat), nil
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
	o, err := parseBody(r.body, "available", "releaseBacklog")
	if err != nil {
		return nil, err
	}
	if err := o.require("available"); err != nil {
		return nil, err
	}
	available, _, err := o.boolean("available")
	if err != nil {
		return nil, err
	}
	release, _, err := o.boolean("releaseBacklog")
	if err != nil {
		return nil, err
	}
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

// prepRemoveWorker is DELETE /workers/{id}; its pending offers go back to the queue.
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
		ws.sessions.revokeWorker(ws, id)
		return http.StatusNoContent, nil, nil
	}, nil
}
