package mockserver

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// taskActionBody is the body of accept, reject, complete and assign: the worker, and the
// members only some of them take (the schema of each refuses the others).
type taskActionBody struct {
	WorkerID string          `json:"workerId"`
	Force    bool            `json:"force"`
	Result   json.RawMessage `json:"result"` // nil: absent; an object or "null" as sent
}

func decodeTaskAction(r *request) (taskActionBody, *apiError) {
	var b taskActionBody
	err := decodeBody(r.body, &b)
	if b.Result != nil {
		b.Result = compact(b.Result)
	}
	return b, err
}

// storedResult is the complete result as the matcher keeps it: nil when none was sent.
func (b taskActionBody) storedResult() any {
	if b.Result == nil {
		return nil
	}
	return b.Result
}

// prepAccept is POST /tasks/{id}/accept: only the offered worker may accept.
func prepAccept(r *request) (op, *apiError) {
	b, err := decodeTaskAction(r)
	if err != nil {
		return nil, err
	}
	workerID := b.WorkerID
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
	b, err := decodeTaskAction(r)
	if err != nil {
		return nil, err
	}
	workerID := b.WorkerID
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
	b, err := decodeTaskAction(r)
	if err != nil {
		return nil, err
	}
	taskID, workerID := r.params[0], b.WorkerID
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		res, err := ws.engine.Complete(now, taskID, workerID, b.storedResult())
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
	b, err := decodeTaskAction(r)
	if err != nil {
		return nil, err
	}
	taskID, workerID, force := r.params[0], b.WorkerID, b.Force
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
	var b updateTaskBody
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	up := match.TaskUpdate{Tags: b.Tags, Priority: b.Priority}
	edit, err := decodeTaskEdit(&b)
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

// updateTaskBody is the PATCH /tasks/{id} body. The stored members are raw so that absent
// (nil), null (clear) and a value can be told apart.
type updateTaskBody struct {
	Tags        []string        `json:"tags"`
	Priority    *float64        `json:"priority"`
	Title       json.RawMessage `json:"title"`
	Description json.RawMessage `json:"description"`
	Context     json.RawMessage `json:"context"`
	References  json.RawMessage `json:"references"`
	Meta        json.RawMessage `json:"meta"`
}

func decodeTaskEdit(b *updateTaskBody) (taskEdit, *apiError) {
	var e taskEdit
	if b.Meta != nil {
		e.meta = compact(b.Meta)
	}
	for _, f := range []struct {
		raw   json.RawMessage
		dst   **string
		clear *bool
	}{{b.Title, &e.title, &e.clearTitle}, {b.Description, &e.description, &e.clearDescription}} {
		switch {
		case f.raw == nil:
		case isNull(f.raw):
			*f.clear = true
		default:
			*f.dst = new(string)
			if err := decodeBody(f.raw, *f.dst); err != nil {
				return e, err
			}
		}
	}
	for name, raw := range map[string]json.RawMessage{"context": b.Context, "references": b.References} {
		if raw != nil {
			if e.others == nil {
				e.others = map[string]json.RawMessage{}
			}
			e.others[name] = compact(raw)
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
}

type suggestCandidate struct {
	WorkerID          string        `json:"workerId"`
	Eligible          bool          `json:"eligible"`
	Score             float64       `json:"score"`
	EffectivePriority float64       `json:"effectivePriority"`
	Reasons           []MatchReason `json:"reasons"`
}

// prepSuggestWorkers is POST /tasks/suggest-workers: a dry run that creates nothing.
func prepSuggestWorkers(r *request) (op, *apiError) {
	var b struct {
		Tags          []string `json:"tags"`
		Priority      float64  `json:"priority"`
		VetoedWorkers []string `json:"vetoedWorkers"`
		Limit         float64  `json:"limit"`
		// The routing members a dry run applies as a task's (routing.go).
		RequiredSkills json.RawMessage `json:"requiredSkills"`
		Latitude       json.RawMessage `json:"latitude"`
		Longitude      json.RawMessage `json:"longitude"`
		MaxDistanceKm  json.RawMessage `json:"maxDistanceKm"`
		RequireGeo     json.RawMessage `json:"requireGeo"`
		AllowedCidrs   json.RawMessage `json:"allowedCidrs"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	in := match.SuggestInput{Tags: b.Tags, Priority: b.Priority, VetoedWorkers: b.VetoedWorkers, Limit: int(b.Limit)}
	var err *apiError
	if in.Routing, err = decodeTaskRouting(taskRoutingRaw{b.RequiredSkills, b.Latitude, b.Longitude, b.MaxDistanceKm,
		b.RequireGeo, b.AllowedCidrs, nil, nil}); err != nil {
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
		return http.StatusOK, out, nil
	}, nil
}
