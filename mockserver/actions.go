package mockserver

import (
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

type priorityAnswer struct {
	ID       string  `json:"id"`
	Priority float64 `json:"priority"`
}

// prepSetPriority is PATCH /tasks/{id} with {priority}.
func prepSetPriority(r *request) (op, *apiError) {
	o, err := parseBody(r.body, "priority")
	if err != nil {
		return nil, err
	}
	if err := o.require("priority"); err != nil {
		return nil, err
	}
	p, _, err := o.number("priority")
	if err != nil {
		return nil, err
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		res, err := ws.engine.SetPriority(now, taskID, p)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, priorityAnswer{ID: taskID, Priority: p}, nil
	}, nil
}

type suggestAnswer struct {
	Tags     []string           `json:"tags"`
	Priority float64            `json:"priority"`
	Workers  []suggestCandidate `json:"workers"`
}

type suggestCandidate struct {
	WorkerID          string       `json:"workerId"`
	Eligible          bool         `json:"eligible"`
	Score             float64      `json:"score"`
	EffectivePriority float64      `json:"effectivePriority"`
	Reasons           []wireReason `json:"reasons"`
}

// prepSuggestWorkers is POST /tasks/suggest-workers: a dry run that creates nothing.
func prepSuggestWorkers(r *request) (op, *apiError) {
	o, err := parseBody(r.body, "tags", "priority", "vetoedWorkers", "skillThresholds", "limit")
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
	if in.SkillThresholds, _, err = o.numberMap("skillThresholds", 32, 64, 0); err != nil {
		return nil, err
	}
	limit, _, err := o.integer("limit", 1, 100)
	if err != nil {
		return nil, err
	}
	in.Limit = int(limit)
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
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
