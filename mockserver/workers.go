package mockserver

import (
	"net/http"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// workerMembers are the members of UpsertWorkerInput; PatchWorkerInput is the same without id.
func workerMembers(withID bool) []string {
	m := []string{"tags", "routingWeights", "maxBacklogSize", "available", "meta"}
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
	if in.RoutingWeights, _, err = o.numberMap("routingWeights", 256, 65, 0); err != nil {
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
	if meta, ok, err := o.anyObject("meta", true); err != nil {
		return in, err
	} else if ok {
		in.Extra = &workerExtra{meta: meta}
	}
	return in, nil
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
	ws.retag(old.Tags, newTags)
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
		return http.StatusOK, workerJSON(w), nil
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
		ws.sessions.revokeWorker(ws, id)
		return http.StatusNoContent, nil, nil
	}, nil
}
