package mockserver

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// workerIDBody reads the {workerId} body shared by accept and reject.
func workerIDBody(r *request, extra ...string) (*object, string, *apiError) {
	o, err := parseBody(r.body, append([]string{"workerId"}, extra...)...)
	if err != nil {
		return nil, "", err
	}
	if err := o.require("workerId"); err != nil {
		return nil, "", err
	}
	id, _, err := o.id("workerId")
	return o, id, err
}

// prepAccept is POST /tasks/{id}/accept: only the offered worker may accept.
func prepAccept(r *request) (op, *apiError) {
	_, workerID, err := workerIDBody(r)
	if err != nil {
		return nil, err
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		res, err := ws.engine.Accept(now, taskID, workerID)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, taskRef{ID: taskID, Status: "accepted"}, nil
	}, nil
}

// prepReject is POST /tasks/{id}/reject: the task is queued again and the worker never gets
// it again. The answer says "queued" as the platform does, even when matching has already
// offered the task to someone else.
func prepReject(r *request) (op, *apiError) {
	_, workerID, err := workerIDBody(r)
	if err != nil {
		return nil, err
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		res, err := ws.engine.Reject(now, taskID, workerID)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, taskRef{ID: taskID, Status: "queued"}, nil
	}, nil
}

// prepComplete is POST /tasks/{id}/complete with an optional result object, stored and sent
// in task.completed.
func prepComplete(r *request) (op, *apiError) {
	o, workerID, err := workerIDBody(r, "result")
	if err != nil {
		return nil, err
	}
	result, _, err := o.anyObject("result", true)
	if err != nil {
		return nil, err
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		var stored any
		if result != nil {
			stored = result
		}
		res, err := ws.engine.Complete(now, taskID, workerID, stored)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, taskRef{ID: taskID, Status: "completed"}, nil
	}, nil
}

type assignAnswer struct {
	ID               string  `json:"id"`
	Status           string  `json:"status"`
	WorkerID         string  `json:"workerId"`
	PreviousWorkerID *string `json:"previousWorkerId"`
}

// prepAssign is POST /tasks/{id}/assign: an explicit offer that bypasses eligibility.
func prepAssign(r *request) (op, *apiError) {
	o, workerID, err := workerIDBody(r, "force")
	if err != nil {
		return nil, err
	}
	force, _, err := o.boolean("force")
	if err != nil {
		return nil, err
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		res, err := ws.engine.Assign(now, taskID, workerID, force)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		out := assignAnswer{ID: taskID, Status: "pending", WorkerID: workerID}
		if res.PreviousWorkerID != "" {
			prev := res.PreviousWorkerID
			out.PreviousWorkerID = &prev
		}
		return http.StatusOK, out, nil
	}, nil
}

// updateAnswer is the platform's UpdateTaskResult, the answer of tasks.update and
// tasks.setPriority alike.
type updateAnswer struct {
	ID               string   `json:"id"`
	Status           string   `json:"status"`
	Tags             []string `json:"tags"`
	Priority         float64  `json:"priority"`
	Requeued         bool     `json:"requeued"`
	PreviousWorkerID string   `json:"previousWorkerId,omitempty"`
}

// prepUpdateTask is PATCH /tasks/{id} (tasks.update; tasks.setPriority is the same call with
// priority alone). tags and priority go to the matcher; title, description, context,
// references and meta are stored, and null clears them. A tag change that leaves the
// holder of a pending offer unqualified takes the offer back (task.released, reason
// "updated") and queues the task again.
func prepUpdateTask(r *request) (op, *apiError) {
	o, err := parseBody(r.body, "tags", "priority", "title", "description", "context", "references", "meta")
	if err != nil {
		return nil, err
	}
	if len(o.raw) == 0 {
		return nil, validationf("body must NOT have fewer than 1 properties")
	}
	var up match.TaskUpdate
	if up.Tags, _, err = o.strings("tags", 1, 32, 1, 64, false); err != nil {
		return nil, err
	}
	if dup := firstDuplicate(up.Tags); dup >= 0 {
		return nil, validationf("body/tags must NOT have duplicate items (item %d repeats an earlier one)", dup)
	}
	if p, ok, err := o.number("priority"); err != nil {
		return nil, err
	} else if ok {
		up.Priority = &p
	}
	edit, err := decodeTaskEdit(o)
	if err != nil {
		return nil, err
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		res, err := ws.engine.UpdateTask(now, taskID, up)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		t, err := ws.engine.Task(taskID)
		if err != nil {
			return 0, nil, matchError(err)
		}
		if x, ok := t.Extra.(*taskExtra); ok {
			edit.apply(x)
		}
		return http.StatusOK, updateAnswer{
			ID: taskID, Status: string(t.Status), Tags: t.Tags, Priority: t.Priority,
			Requeued: res.PreviousWorkerID != "", PreviousWorkerID: res.PreviousWorkerID,
		}, nil
	}, nil
}

// taskEdit holds the stored members a PATCH sets (a value) or clears (null).
type taskEdit struct {
	title, description *string
	clearTitle         bool
	clearDescription   bool
	meta               json.RawMessage // nil: untouched; "null" clears
	others             map[string]json.RawMessage
}

func decodeTaskEdit(o *object) (taskEdit, *apiError) {
	var e taskEdit
	var err *apiError
	if e.meta, _, err = o.anyObject("meta", true); err != nil {
		return e, err
	}
	for _, f := range []struct {
		name  string
		max   int
		dst   **string
		clear *bool
	}{{"title", 300, &e.title, &e.clearTitle}, {"description", 10000, &e.description, &e.clearDescription}} {
		if v, sent := o.raw[f.name]; sent && isNull(v) {
			*f.clear = true
			continue
		}
		s, ok, err := o.str(f.name, 1, f.max)
		if err != nil {
			return e, err
		}
		if ok {
			*f.dst = &s
		}
	}
	for _, name := range []string{"context", "references"} {
		if v, ok := o.anyValue(name); ok {
			if e.others == nil {
				e.others = map[string]json.RawMessage{}
			}
			e.others[name] = v
		}
	}
	return e, nil
}

func (e taskEdit) apply(x *taskExtra) {
	switch {
	case e.clearTitle:
		x.title = nil
	case e.title != nil:
		x.title = e.title
	}
	switch {
	case e.clearDescription:
		x.description = nil
	case e.description != nil:
		x.description = e.description
	}
	if e.meta != nil {
		x.meta = e.meta
	}
	for k, v := range e.others {
		if x.others == nil {
			x.others = map[string]json.RawMessage{}
		}
		if isNull(v) {
			delete(x.others, k)
			continue
		}
		x.others[k] = v
	}
}

type suggestAnswer struct {
	Tags     []string           `json:"tags"`
	Priority float64            `json:"priority"`
	Workers  []suggestCandidate `json:"workers"`
	// Unmatched is this server's addition: why no worker is eligible (see wireUnmatched).
	Unmatched *wireUnmatched `json:"unmatched,omitempty"`
}

type suggestCandidate struct {
	WorkerID          string       `json:"workerId"`
	Eligible          bool         `json:"eligible"`
	Score             float64      `json:"score"`
	EffectivePriority float64      `json:"effectivePriority"`
	Reasons           []wireReason `json:"reasons"`
}

// suggestOnlyMembers are the suggest-workers members beyond tags: required skills, place and
// network, which the dry run applies as a task's (routing.go).
func suggestOnlyMembers() []string {
	return []string{"requiredSkills", "latitude", "longitude", "maxDistanceKm", "requireGeo", "allowedCidrs"}
}

// prepSuggestWorkers is POST /tasks/suggest-workers: a dry run that creates nothing.
func prepSuggestWorkers(r *request) (op, *apiError) {
	o, err := parseBody(r.body, append([]string{"tags", "priority", "vetoedWorkers", "limit"}, suggestOnlyMembers()...)...)
	if err != nil {
		return nil, err
	}
	if err := o.require("tags"); err != nil {
		return nil, err
	}
	var in match.SuggestInput
	if in.Tags, _, err = o.strings("tags", 1, 32, 1, 64, false); err != nil {
		return nil, err
	}
	if in.Priority, _, err = o.number("priority"); err != nil {
		return nil, err
	}
	if in.VetoedWorkers, _, err = o.strings("vetoedWorkers", 0, 64, 1, 128, true); err != nil {
		return nil, err
	}
	limit, _, err := o.integer("limit", 1, 100)
	if err != nil {
		return nil, err
	}
	in.Limit = int(limit)
	if in.Routing, err = decodeTaskRouting(o); err != nil {
		return nil, err
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		in := in
		in.Routing = ws.resolveTaskRouting(in.Routing)
		cands, err := ws.engine.SuggestWorkers(in)
		if err != nil {
			return 0, nil, matchError(err)
		}
		out := suggestAnswer{Tags: in.Tags, Priority: in.Priority, Workers: make([]suggestCandidate, 0, len(cands))}
		for _, c := range cands {
			w := candidateJSON(c)
			out.Workers = append(out.Workers, suggestCandidate{WorkerID: w.WorkerID, Eligible: w.Eligible, Score: w.Score,
				EffectivePriority: w.EffectivePriority, Reasons: w.Reasons})
		}
		out.Unmatched = suggestUnmatched(ws.engine, in, cands)
		return http.StatusOK, out, nil
	}, nil
}
