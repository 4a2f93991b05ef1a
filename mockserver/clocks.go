package mockserver

import (
	"encoding/json"
	"math"
	"net/http"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// This file serves the task clocks (docs/contract.md, "Task clocks"): the members of sla,
// schedule and escalation the matcher enforces, and the operations around the parked and
// scheduled states: tasks.fail, tasks.ack, tasks.escalate, tasks.unpark, tasks.parked and
// tasks.scheduled.

// decodeClocks reads the members of sla, schedule and escalation the matcher enforces
// (the schema has checked their types, ranges and enums). Nil when the task has none.
func decodeClocks(sla, schedule, escalation json.RawMessage) (*match.Clocks, *apiError) {
	if sla == nil && schedule == nil && escalation == nil {
		return nil, nil // none sent: no Clocks to fill (and none moved to the heap)
	}
	var c match.Clocks
	if sla != nil && !isNull(sla) {
		var b struct {
			ExpireAfterMs   float64 `json:"expireAfterMs"`
			OnExpire        string  `json:"onExpire"`
			MaxRejections   float64 `json:"maxRejections"`
			OnMaxRejections string  `json:"onMaxRejections"`
		}
		if err := decodeBody(sla, &b); err != nil {
			return nil, err
		}
		c.ExpireAfter = time.Duration(b.ExpireAfterMs * float64(time.Millisecond))
		c.OnExpire = match.ClockAction(b.OnExpire)
		// A fractional budget is spent by the first whole rejection that reaches it.
		c.MaxRejections = int(math.Ceil(b.MaxRejections))
		c.OnMaxRejections = match.ClockAction(b.OnMaxRejections)
	}
	if schedule != nil && !isNull(schedule) {
		var b struct {
			NotBefore, NotAfter *float64
			OnMiss              string `json:"onMiss"`
		}
		if err := decodeBody(schedule, &b); err != nil {
			return nil, err
		}
		if b.NotBefore != nil {
			c.NotBefore = time.UnixMilli(int64(*b.NotBefore))
		}
		if b.NotAfter != nil {
			c.NotAfter = time.UnixMilli(int64(*b.NotAfter))
		}
		c.OnMiss = match.ClockAction(b.OnMiss)
	}
	if escalation != nil && !isNull(escalation) {
		var b struct {
			PriorityBoost  float64         `json:"priorityBoost"`
			Tiers          json.RawMessage `json:"tiers"`
			MaxEscalations *float64        `json:"maxEscalations"`
			OnExhausted    string          `json:"onExhausted"`
		}
		if err := decodeBody(escalation, &b); err != nil {
			return nil, err
		}
		if b.MaxEscalations != nil {
			m := int(*b.MaxEscalations)
			c.MaxEscalations = &m
		}
		c.PriorityBoost = b.PriorityBoost
		c.OnExhausted = match.ClockAction(b.OnExhausted)
		// Any member of the ladder makes one; the tiers themselves are stored, not enforced.
		c.Ladder = b.MaxEscalations != nil || b.PriorityBoost != 0 || b.Tiers != nil || b.OnExhausted != ""
	}
	if c == (match.Clocks{}) {
		return nil, nil
	}
	return &c, nil
}

// prepFail is POST /tasks/{id}/fail: the accepting worker gives the task up for good.
func prepFail(r *request) (op, *apiError) {
	var b struct {
		WorkerID string `json:"workerId"`
		Reason   string `json:"reason"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	workerID, reason, taskID := b.WorkerID, b.Reason, r.params[0]
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
	b, err := decodeTaskAction(r)
	if err != nil {
		return nil, err
	}
	workerID, taskID := b.WorkerID, r.params[0]
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
	b, err := decodeTaskAction(r) // the body is optional: absent, workerId is ""
	if err != nil {
		return nil, err
	}
	workerID, taskID := b.WorkerID, r.params[0]
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
	var b struct {
		ResetEscalation bool `json:"resetEscalation"`
		ResetSLA        bool `json:"resetSla"`
		ResetSchedule   bool `json:"resetSchedule"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	opts := match.UnparkOptions{ResetEscalation: b.ResetEscalation, ResetSLA: b.ResetSLA, ResetSchedule: b.ResetSchedule}
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
