package mockserver

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// This file serves the task clocks (docs/contract.md, "Task clocks"): the members of sla,
// schedule and escalation the matcher enforces, and the operations around the parked and
// scheduled states: tasks.fail, tasks.ack, tasks.escalate, tasks.unpark, tasks.parked and
// tasks.scheduled.

// decodeClocks reads the enforced members of the stored sla, schedule and escalation
// objects (already checked by decodeSLA, decodeSchedule and decodeEscalation) and checks
// the ones those leave alone. Nil when the task has none.
func decodeClocks(x *taskExtra) (*match.Clocks, *apiError) {
	var c match.Clocks
	if len(x.sla) > 0 && !isNull(x.sla) {
		sub, err := toObject("body/sla", x.sla, nil)
		if err != nil {
			return nil, err
		}
		if ms, ok, err := sub.integer("expireAfterMs", 1, 1<<53); err != nil {
			return nil, err
		} else if ok {
			c.ExpireAfter = time.Duration(ms) * time.Millisecond
		}
		if c.OnExpire, err = action(sub, "onExpire", "body/sla/onExpire", match.ActionDrop, match.ActionPark); err != nil {
			return nil, err
		}
		if n, ok, err := sub.integer("maxRejections", 1, 100); err != nil {
			return nil, err
		} else if ok {
			c.MaxRejections = int(n)
		}
		if c.OnMaxRejections, err = action(sub, "onMaxRejections", "body/sla/onMaxRejections", match.ActionPark, match.ActionFail, match.ActionKeep); err != nil {
			return nil, err
		}
	}
	if len(x.schedule) > 0 && !isNull(x.schedule) {
		sub, err := toObject("body/schedule", x.schedule, nil)
		if err != nil {
			return nil, err
		}
		if ms, ok, err := sub.integer("notBefore", 0, 1<<53); err != nil {
			return nil, err
		} else if ok {
			c.NotBefore = time.UnixMilli(ms)
		}
		if ms, ok, err := sub.integer("notAfter", 0, 1<<53); err != nil {
			return nil, err
		} else if ok {
			c.NotAfter = time.UnixMilli(ms)
		}
		if c.OnMiss, err = action(sub, "onMiss", "body/schedule/onMiss", match.ActionDrop, match.ActionPark); err != nil {
			return nil, err
		}
	}
	if len(x.escalation) > 0 && !isNull(x.escalation) {
		sub, err := toObject("body/escalation", x.escalation, nil)
		if err != nil {
			return nil, err
		}
		if n, ok, err := sub.integer("maxEscalations", 0, 8); err != nil {
			return nil, err
		} else if ok {
			m := int(n)
			c.MaxEscalations = &m
			c.Ladder = true
		}
		if c.OnExhausted, err = action(sub, "onExhausted", "body/escalation/onExhausted", match.ActionQueue, match.ActionPark); err != nil {
			return nil, err
		}
		if boost, ok, err := sub.number("priorityBoost"); err != nil {
			return nil, err
		} else if ok {
			c.PriorityBoost = boost
			c.Ladder = true
		}
		if _, ok := sub.get("tiers"); ok {
			c.Ladder = true // the tiers themselves are stored, not enforced
		}
		if c.OnExhausted != "" {
			c.Ladder = true
		}
	}
	if c == (match.Clocks{}) {
		return nil, nil
	}
	return &c, nil
}

// action reads an optional enum member naming a clock action.
func action(o *object, name, path string, allowed ...match.ClockAction) (match.ClockAction, *apiError) {
	s, ok, err := o.str(name, 0, 0)
	if err != nil || !ok {
		return "", err
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		if s == string(a) {
			return a, nil
		}
		names[i] = string(a)
	}
	return "", enumf(path, names...)
}

// prepFail is POST /tasks/{id}/fail: the accepting worker gives the task up for good.
func prepFail(r *request) (op, *apiError) {
	o, workerID, err := workerIDBody(r, "reason")
	if err != nil {
		return nil, err
	}
	reason, _, err := o.str("reason", 0, 0)
	if err != nil {
		return nil, err
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		res, err := ws.engine.Fail(now, taskID, workerID, reason)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, taskRef{ID: taskID, Status: string(match.StatusFailed)}, nil
	}, nil
}

// prepAck is POST /tasks/{id}/ack: the offered worker stops the response clock; the task is
// accepted, as the platform's answer says.
func prepAck(r *request) (op, *apiError) {
	_, workerID, err := workerIDBody(r)
	if err != nil {
		return nil, err
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		res, err := ws.engine.Ack(now, taskID, workerID)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, taskRef{ID: taskID, Status: string(match.StatusAccepted)}, nil
	}, nil
}

type escalateAnswer struct {
	ID              string `json:"id"`
	Escalated       bool   `json:"escalated"`
	Parked          bool   `json:"parked"`
	EscalationLevel int    `json:"escalationLevel"`
}

// prepEscalate is POST /tasks/{id}/escalate with an optional {workerId}: one step up the
// task's ladder; past the last step the task parks (escalated false, parked true).
func prepEscalate(r *request) (op, *apiError) {
	var workerID string
	if len(r.body) > 0 {
		o, err := parseBody(r.body, "workerId")
		if err != nil {
			return nil, err
		}
		if workerID, _, err = o.id("workerId"); err != nil {
			return nil, err
		}
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		er, err := ws.engine.Escalate(now, taskID, workerID)
		ws.publish(er.Result)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, escalateAnswer{ID: taskID, Escalated: er.Escalated, Parked: er.Parked, EscalationLevel: er.Level}, nil
	}, nil
}

// prepUnpark is POST /tasks/{id}/unpark with the clock resets.
func prepUnpark(r *request) (op, *apiError) {
	o, err := parseBody(r.body, "resetEscalation", "resetSla", "resetSchedule")
	if err != nil {
		return nil, err
	}
	var opts match.UnparkOptions
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"resetEscalation", &opts.ResetEscalation}, {"resetSla", &opts.ResetSLA}, {"resetSchedule", &opts.ResetSchedule}} {
		if *f.dst, _, err = o.boolean(f.name); err != nil {
			return nil, err
		}
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		return ws.unpark(now, taskID, opts)
	}, nil
}

// unpark queues a parked task again with the given clock resets and answers as
// tasks.unpark does (a task already matched again still answers queued). It is the one way back from parked, for every route that offers one.
// The caller holds ws.mu.
func (ws *workspace) unpark(now time.Time, taskID string, opts match.UnparkOptions) (int, any, *apiError) {
	res, err := ws.engine.Unpark(now, taskID, opts)
	ws.publish(res)
	if err != nil {
		return 0, nil, matchError(err)
	}
	// Usually queued (the platform's answer); a clock that was not reset and is already
	// over parks or drops the task again at once, and the answer says so.
	status := match.StatusQueued
	if t, _ := ws.engine.Task(taskID); t.Status == match.StatusParked || t.Status.Terminal() {
		status = t.Status
	}
	return http.StatusOK, taskRef{ID: taskID, Status: string(status)}, nil
}

type taskSet struct {
	Tasks []json.RawMessage `json:"tasks"`
	Count int               `json:"count"`
}

// prepTasksWithStatus serves GET /tasks/parked and GET /tasks/scheduled.
func prepTasksWithStatus(s match.Status) func(*request) (op, *apiError) {
	return func(*request) (op, *apiError) {
		return func(ws *workspace, _ time.Time) (int, any, *apiError) {
			tasks := ws.engine.TasksWithStatus(s)
			out := taskSet{Tasks: make([]json.RawMessage, 0, len(tasks)), Count: len(tasks)}
			for _, t := range tasks {
				out.Tasks = append(out.Tasks, taskJSON(t))
			}
			return http.StatusOK, out, nil
		}, nil
	}
}
