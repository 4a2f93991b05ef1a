package mockserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// createTaskBody is CreateTaskInput of api/openapi.json. Members read by other files
// (clocks, routing, bookings) and members only stored are kept as raw JSON and echoed as sent
// (compacted).
type createTaskBody struct {
	ID              string             `json:"id"`
	Tags            []string           `json:"tags"`
	Priority        float64            `json:"priority"`
	VetoedWorkers   []string           `json:"vetoedWorkers"`
	SkillThresholds map[string]float64 `json:"skillThresholds"`
	Meta            json.RawMessage    `json:"meta"`
	Title           *string            `json:"title"`
	Description     *string            `json:"description"`
	Escalation      json.RawMessage    `json:"escalation"`
	SLA             json.RawMessage    `json:"sla"`
	Schedule        json.RawMessage    `json:"schedule"`
	Recurrence      json.RawMessage    `json:"recurrence"` // tasks.create only (recurring.go)
	opaqueTaskMembers
}

// opaqueTaskMembers are the platform's optional task members the server stores and echoes
// as sent: context and references, the routing members (routing.go) required skills, geo
// (latitude, longitude, maxDistanceKm, requireGeo), network (allowedCidrs) and teams (teamId,
// preferTeamId), and the slot a booking reserves a worker for (bookings.go reads it).
// api/openapi.json holds their limits.
type opaqueTaskMembers struct {
	Context        json.RawMessage `json:"context"`
	References     json.RawMessage `json:"references"`
	RequiredSkills json.RawMessage `json:"requiredSkills"`
	Latitude       json.RawMessage `json:"latitude"`
	Longitude      json.RawMessage `json:"longitude"`
	MaxDistanceKm  json.RawMessage `json:"maxDistanceKm"`
	RequireGeo     json.RawMessage `json:"requireGeo"`
	AllowedCidrs   json.RawMessage `json:"allowedCidrs"`
	TeamID         json.RawMessage `json:"teamId"`
	PreferTeamID   json.RawMessage `json:"preferTeamId"`
	Slot           json.RawMessage `json:"slot"`
}

// fromTree fills b from the tree the schema check parsed (request.decoded) and, for the
// members kept as sent, from the body's text: the create's body is not parsed a second time.
// It reports false, leaving b partly filled, for anything but a plain object whose members
// are each named once and have the types the schema admits; the caller then decodes the
// body with encoding/json, the same result by a slower road.
func (b *createTaskBody) fromTree(r *request) bool {
	tree, ok := r.decoded.(map[string]any)
	if !ok {
		return false
	}
	members := 0
	read := eachMember(r.body, func(name, raw []byte) bool {
		members++
		v := tree[string(name)]
		var ok bool
		switch string(name) {
		case "id":
			b.ID, ok = v.(string)
		case "title":
			var s string
			s, ok = v.(string)
			b.Title = &s
		case "description":
			var s string
			s, ok = v.(string)
			b.Description = &s
		case "tags":
			b.Tags, ok = treeStrings(v)
		case "vetoedWorkers":
			b.VetoedWorkers, ok = treeStrings(v)
		case "priority":
			b.Priority, ok = treeFloat(v)
		case "skillThresholds":
			m, isObj := v.(map[string]any)
			if !isObj {
				return false
			}
			b.SkillThresholds = make(map[string]float64, len(m))
			for k, x := range m {
				f, isNum := treeFloat(x)
				if !isNum {
					return false
				}
				b.SkillThresholds[k] = f
			}
			ok = true
		default:
			dst := b.rawMember(string(name))
			if dst == nil {
				return false
			}
			// The body's own bytes, never changed once read; capped so an append copies.
			*dst = raw[:len(raw):len(raw)]
			ok = true
		}
		return ok
	})
	// A name sent twice is one entry of the tree, so the counts differ: encoding/json's
	// road then decides which of the two values counts.
	return read && members == len(tree)
}

// rawMember is the field of a member kept as sent, nil for any other name.
func (b *createTaskBody) rawMember(name string) *json.RawMessage {
	m := &b.opaqueTaskMembers
	switch name {
	case "meta":
		return &b.Meta
	case "escalation":
		return &b.Escalation
	case "sla":
		return &b.SLA
	case "schedule":
		return &b.Schedule
	case "recurrence":
		return &b.Recurrence
	case "context":
		return &m.Context
	case "references":
		return &m.References
	case "requiredSkills":
		return &m.RequiredSkills
	case "latitude":
		return &m.Latitude
	case "longitude":
		return &m.Longitude
	case "maxDistanceKm":
		return &m.MaxDistanceKm
	case "requireGeo":
		return &m.RequireGeo
	case "allowedCidrs":
		return &m.AllowedCidrs
	case "teamId":
		return &m.TeamID
	case "preferTeamId":
		return &m.PreferTeamID
	case "slot":
		return &m.Slot
	}
	return nil
}

// treeStrings reads an array of strings from a parsed tree.
func treeStrings(v any) ([]string, bool) {
	items, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(items))
	for i, x := range items {
		if out[i], ok = x.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// treeFloat reads a number from a parsed tree as encoding/json would into a float64.
func treeFloat(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil
}

// sent lists the members that were in the body, by wire name; nil when none was.
func (m *opaqueTaskMembers) sent() map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for _, f := range [...]struct {
		name string
		raw  json.RawMessage
	}{
		{"context", m.Context}, {"references", m.References}, {"requiredSkills", m.RequiredSkills},
		{"latitude", m.Latitude}, {"longitude", m.Longitude}, {"maxDistanceKm", m.MaxDistanceKm},
		{"requireGeo", m.RequireGeo}, {"allowedCidrs", m.AllowedCidrs}, {"teamId", m.TeamID},
		{"preferTeamId", m.PreferTeamID}, {"slot", m.Slot},
	} {
		if f.raw == nil {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[f.name] = compact(f.raw)
	}
	return out
}

// prepCreateTask validates POST /tasks completely before anything runs. With a recurrence the
// create makes a recurring template instead (recurring.go).
func prepCreateTask(r *request) (op, *apiError) {
	var body createTaskBody // on the stack: only the slow road below takes a heap copy
	if !body.fromTree(r) {
		slow := new(createTaskBody)
		if err := decodeBody(r.body, slow); err != nil {
			return nil, err
		}
		body = *slow
	}
	in, err := decodeTaskInput(&body)
	if err != nil {
		return nil, err
	}
	rec, err := decodeRecurrence(body.Recurrence)
	if err != nil {
		return nil, err
	}
	hasPriority := r.sent("priority")
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
		in := in // the routing references resolve against this workspace, per run
		in.Routing = ws.resolveTaskRouting(in.Routing)
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

// appendJSON is json.Marshal's text for r without its reflection: the answer to every
// create. Text json.Marshal would escape takes json.Marshal's road (TestTaskRefJSON).
func (r taskRef) appendJSON(b []byte) []byte {
	if !plainJSONString(r.ID) || !plainJSONString(r.Status) {
		out, _ := json.Marshal(r) // two strings: it cannot fail
		return append(b, out...)
	}
	b = slices.Grow(b, len(`{"id":"","status":""}`)+len(r.ID)+len(r.Status))
	b = append(b, `{"id":"`...)
	b = append(b, r.ID...)
	b = append(b, `","status":"`...)
	b = append(b, r.Status...)
	return append(b, `"}`...)
}

// plainJSONString reports whether json.Marshal writes s between quotes as it is: printable
// ASCII without the quote, the backslash and the HTML characters it escapes (<, >, &).
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

func (ws *workspace) freshTaskID() string {
	for {
		id := ws.newID("task_")
		if _, taken := ws.engine.TaskExtra(id); !taken { // a lookup without Task's copy or error
			return id
		}
	}
}

// decodeTaskInput turns a create body (checked against the schema already) into the
// matcher's input, with the rules across members no schema states.
func decodeTaskInput(b *createTaskBody) (match.TaskInput, *apiError) {
	in := match.TaskInput{
		ID: b.ID, Tags: b.Tags, Priority: b.Priority, VetoedWorkers: b.VetoedWorkers,
		SkillThresholds: b.SkillThresholds,
	}
	for tag := range b.SkillThresholds {
		if !containsString(b.Tags, tag) {
			return in, invalidBodyf("skillThresholds names tag '%s' which is not in tags", tag)
		}
	}
	x := &taskExtra{title: b.Title, description: b.Description, others: b.sent()}
	if b.Meta != nil {
		x.meta = compact(b.Meta)
	}
	var err *apiError
	if in.Escalation, x.escalation, err = decodeEscalation(b.Escalation); err != nil {
		return in, err
	}
	if b.SLA != nil {
		x.sla = compact(b.SLA)
	}
	if x.schedule, err = decodeSchedule(b.Schedule); err != nil {
		return in, err
	}
	if in.Clocks, err = decodeClocks(b.SLA, b.Schedule, b.Escalation); err != nil {
		return in, err
	}
	in.Extra = x
	m := b.opaqueTaskMembers
	if in.Routing, err = decodeTaskRouting(taskRoutingRaw{m.RequiredSkills, m.Latitude, m.Longitude, m.MaxDistanceKm,
		m.RequireGeo, m.AllowedCidrs, m.TeamID, m.PreferTeamID}); err != nil {
		return in, err
	}
	return in, nil
}

// decodeEscalation reads the members the matcher acts on; the object is stored as sent.
func decodeEscalation(raw json.RawMessage) (*match.Escalation, json.RawMessage, *apiError) {
	if raw == nil || isNull(raw) {
		return nil, raw, nil
	}
	var b struct {
		RespondWithinMs float64 `json:"respondWithinMs"`
		OnNoResponse    string  `json:"onNoResponse"`
	}
	if err := decodeBody(raw, &b); err != nil {
		return nil, nil, err
	}
	esc := &match.Escalation{
		RespondWithin: time.Duration(b.RespondWithinMs * float64(time.Millisecond)),
		OnNoResponse:  match.OnNoResponse(b.OnNoResponse),
	}
	return esc, compact(raw), nil
}

// decodeSchedule checks the one rule across the schedule's members; decodeClocks reads the
// members the matcher enforces.
func decodeSchedule(raw json.RawMessage) (json.RawMessage, *apiError) {
	if raw == nil {
		return nil, nil
	}
	var b struct {
		NotBefore, NotAfter *float64
	}
	if err := decodeBody(raw, &b); err != nil {
		return nil, err
	}
	if b.NotBefore != nil && b.NotAfter != nil && *b.NotAfter < *b.NotBefore {
		return nil, invalidBodyf("schedule.notAfter must not be before schedule.notBefore")
	}
	return compact(raw), nil
}

func prepGetTask(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		t, err := ws.engine.Task(id)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, ws.withBooking(taskJSON(t), id), nil
	}, nil
}

type taskList struct {
	Tasks      []json.RawMessage `json:"tasks"`
	NextCursor *string           `json:"nextCursor"`
	HasMore    bool              `json:"hasMore"`
}

func prepListTasks(r *request) (op, *apiError) {
	q := match.TaskQuery{Limit: 50}
	q.Status = match.TaskFilter(r.query.Get("status")) // the schema's enum, or "" for all
	if c := r.query.Get("cursor"); c != "" {
		n, err := strconv.ParseUint(c, 10, 64)
		if err != nil {
			return nil, invalidBodyf("cursor is not one this server issued")
		}
		q.After = n
	}
	if l := r.query.Get("limit"); l != "" {
		n, _ := strconv.ParseFloat(l, 64) // an integer in 1..100: the schema says so
		q.Limit = int(n)
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
