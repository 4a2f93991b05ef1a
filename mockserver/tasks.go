package mockserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// taskMembers are the members of CreateTaskInput the server knows; anything else is
// validation_failed.
func taskMembers() []string {
	return append([]string{
		"id", "tags", "priority", "vetoedWorkers", "skillThresholds", "meta", "title", "description",
		"escalation", "sla", "schedule",
	}, opaqueTaskMembers()...)
}

// opaqueTaskMembers are the platform's optional members the server stores and echoes byte
// for byte without acting on them yet: context and references, required skills, geo
// (latitude, longitude, maxDistanceKm, requireGeo), network (allowedCidrs) and teams
// (teamId, preferTeamId). api/openapi.json holds their limits.
func opaqueTaskMembers() []string {
	return []string{
		"context", "references", "requiredSkills", "latitude", "longitude", "maxDistanceKm",
		"requireGeo", "allowedCidrs", "teamId", "preferTeamId", "slot",
	}
}

// prepCreateTask validates POST /tasks completely before anything runs. With a recurrence the
// create makes a recurring template instead (recurring.go).
func prepCreateTask(r *request) (op, *apiError) {
	o, err := parseBody(r.body, append(taskMembers(), "recurrence")...)
	if err != nil {
		return nil, err
	}
	in, err := decodeTaskInput(o)
	if err != nil {
		return nil, err
	}
	rec, err := decodeRecurrence(o)
	if err != nil {
		return nil, err
	}
	_, hasPriority := o.get("priority")
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if rec != nil {
			return ws.createTemplate(in, hasPriority, rec, now)
		}
		if err := ws.taskRateFull(now); err != nil {
			return 0, nil, err
		}
		if lim := ws.limits.QueuedTasks; lim > 0 && ws.openTasks >= lim {
			return 0, nil, planLimit("queued tasks", lim)
		}
		if in.ID == "" {
			in.ID = ws.freshTaskID()
		}
		res, cerr := ws.engine.CreateTask(now, in)
		ws.publish(res)
		if cerr != nil {
			return 0, nil, matchError(cerr)
		}
		ws.countTaskRate()
		ws.openTasks++
		return http.StatusAccepted, taskRef{ID: in.ID, Status: "queued"}, nil
	}, nil
}

type taskRef struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

func (ws *workspace) freshTaskID() string {
	for {
		id := ws.newID("task_")
		if _, err := ws.engine.Task(id); err != nil {
			return id
		}
	}
}

func decodeTaskInput(o *object) (match.TaskInput, *apiError) {
	var in match.TaskInput
	x := &taskExtra{}
	if err := o.require("tags"); err != nil {
		return in, err
	}
	tags, _, err := o.strings("tags", 1, 32, 1, 64, false)
	if err != nil {
		return in, err
	}
	if dup := firstDuplicate(tags); dup >= 0 {
		return in, validationf("body/tags must NOT have duplicate items (item %d repeats an earlier one)", dup)
	}
	in.Tags = tags
	if in.ID, _, err = o.id("id"); err != nil {
		return in, err
	}
	if in.Priority, _, err = o.number("priority"); err != nil {
		return in, err
	}
	if in.VetoedWorkers, _, err = o.strings("vetoedWorkers", 0, 64, 1, 128, true); err != nil {
		return in, err
	}
	if in.SkillThresholds, _, err = o.numberMap("skillThresholds", 32, 64, 0); err != nil {
		return in, err
	}
	for tag := range in.SkillThresholds {
		if !containsString(tags, tag) {
			return in, invalidBodyf("skillThresholds names tag '%s' which is not in tags", tag)
		}
	}
	if x.meta, _, err = o.anyObject("meta", true); err != nil {
		return in, err
	}
	if s, ok, err := o.str("title", 1, 300); err != nil {
		return in, err
	} else if ok {
		x.title = &s
	}
	if s, ok, err := o.str("description", 1, 10000); err != nil {
		return in, err
	} else if ok {
		x.description = &s
	}
	if in.Escalation, x.escalation, err = decodeEscalation(o); err != nil {
		return in, err
	}
	if x.sla, err = decodeSLA(o); err != nil {
		return in, err
	}
	if x.schedule, err = decodeSchedule(o); err != nil {
		return in, err
	}
	for _, name := range opaqueTaskMembers() {
		if v, ok := o.anyValue(name); ok {
			if x.others == nil {
				x.others = map[string]json.RawMessage{}
			}
			x.others[name] = v
		}
	}
	in.Extra = x
	return in, nil
}

func decodeEscalation(o *object) (*match.Escalation, json.RawMessage, *apiError) {
	raw, present, err := o.anyObject("escalation", true)
	if err != nil || !present || isNull(raw) {
		return nil, raw, err
	}
	sub, err := toObject("body/escalation", raw, nil)
	if err != nil {
		return nil, nil, err
	}
	esc := &match.Escalation{}
	ms, ok, err := sub.integer("respondWithinMs", 1000, 86_400_000)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		esc.RespondWithin = time.Duration(ms) * time.Millisecond
	}
	mode, ok, err := sub.str("onNoResponse", 0, 0)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		if mode != "allow" && mode != "block" {
			return nil, nil, enumf("body/escalation/onNoResponse", "allow", "block")
		}
		esc.OnNoResponse = match.OnNoResponse(mode)
	}
	return esc, raw, nil
}

// decodeSLA checks the SLA members the platform defines; the server stores the object but
// does not act on it (see the package documentation).
func decodeSLA(o *object) (json.RawMessage, *apiError) {
	raw, present, err := o.anyObject("sla", true)
	if err != nil || !present || isNull(raw) {
		return raw, err
	}
	sub, err := toObject("body/sla", raw, nil)
	if err != nil {
		return nil, err
	}
	if _, _, err := sub.integer("expireAfterMs", 1, 1<<53); err != nil {
		return nil, err
	}
	if _, _, err := sub.integer("maxRejections", 1, 100); err != nil {
		return nil, err
	}
	if mode, ok, err := sub.str("onMaxRejections", 0, 0); err != nil {
		return nil, err
	} else if ok && mode != "park" && mode != "fail" && mode != "keep" {
		return nil, enumf("body/sla/onMaxRejections", "park", "fail", "keep")
	}
	return raw, nil
}

func decodeSchedule(o *object) (json.RawMessage, *apiError) {
	raw, present, err := o.anyObject("schedule", false)
	if err != nil || !present {
		return raw, err
	}
	sub, err := toObject("body/schedule", raw, nil)
	if err != nil {
		return nil, err
	}
	nb, okB, err := sub.integer("notBefore", 0, 1<<53)
	if err != nil {
		return nil, err
	}
	na, okA, err := sub.integer("notAfter", 0, 1<<53)
	if err != nil {
		return nil, err
	}
	if okA && okB && na < nb {
		return nil, invalidBodyf("schedule.notAfter must not be before schedule.notBefore")
	}
	return raw, nil
}

func firstDuplicate(items []string) int {
	seen := make(map[string]bool, len(items))
	for i, s := range items {
		if seen[s] {
			return i
		}
		seen[s] = true
	}
	return -1
}

func containsString(items []string, s string) bool {
	for _, it := range items {
		if it == s {
			return true
		}
	}
	return false
}

func prepGetTask(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		t, err := ws.engine.Task(id)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, withUnmatched(taskJSON(t), ws.engine, t), nil
	}, nil
}

type taskList struct {
	Tasks      []json.RawMessage `json:"tasks"`
	NextCursor *string           `json:"nextCursor"`
	HasMore    bool              `json:"hasMore"`
}

func prepListTasks(r *request) (op, *apiError) {
	q := match.TaskQuery{Limit: 50}
	switch st := r.query.Get("status"); st {
	case "", "all", "queued", "pending", "accepted":
		q.Status = match.TaskFilter(st)
	default:
		return nil, enumf("querystring/status", "queued", "pending", "accepted", "all")
	}
	if c := r.query.Get("cursor"); c != "" {
		n, err := strconv.ParseUint(c, 10, 64)
		if err != nil {
			return nil, invalidBodyf("cursor is not one this server issued")
		}
		q.After = n
	}
	if l := r.query.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil {
			return nil, validationf("querystring/limit must be integer")
		}
		if n < 1 || n > 100 {
			return nil, validationf("querystring/limit must be >= 1 and <= 100")
		}
		q.Limit = n
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		page, err := ws.engine.Tasks(q)
		if err != nil {
			return 0, nil, matchError(err)
		}
		out := taskList{Tasks: make([]json.RawMessage, 0, len(page.Tasks)), HasMore: page.HasMore}
		for _, t := range page.Tasks {
			out.Tasks = append(out.Tasks, taskJSON(t))
		}
		if page.HasMore && len(page.Tasks) > 0 {
			c := strconv.FormatUint(page.Tasks[len(page.Tasks)-1].Seq, 10)
			out.NextCursor = &c
		}
		return http.StatusOK, out, nil
	}, nil
}

// noQuery rejects query parameters other than allowed.
func noQuery(r *request, allowed []string) *apiError {
	for k := range r.query {
		if !containsString(allowed, k) {
			return validationf("querystring must NOT have additional property '%s'", k)
		}
	}
	return nil
}

func prepCancelTask(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		res, err := ws.engine.CancelTask(now, id)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusNoContent, nil, nil
	}, nil
}
