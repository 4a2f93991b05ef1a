package mockserver

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// A recurring template is made by tasks.create with a recurrence member. It is never a task
// itself (tasks.list, the queue and the quota never see it): on the server's clock it cuts
// occurrences, ordinary tasks with the template's members and server-made ids, the first one
// when the template is created and then one every everyMs. Its deadline (the soonest nextAt)
// is kept here, beside the matcher's, and workspace.nextDeadline reports the earlier of the
// two.

// maxCatchUp bounds the occurrences one template cuts in one step with catchUp "all", so a
// clock moved years ahead cannot stall the server.
const maxCatchUp = 1000

type recurrence struct {
	every   time.Duration
	window  *int64  // windowMs as sent; stored, not enforced
	onMiss  *string // stored, not enforced
	catchUp *string // "all" cuts every missed occurrence; "skip" (the default) only one
}

type template struct {
	id          string
	in          match.TaskInput // what each occurrence is created with (its id replaced)
	hasPriority bool
	rec         recurrence
	nextAt      time.Time
	occurrences int
	cut         []string // ids of the occurrences cut, oldest first
}

// recurringStore is a workspace's templates. Its zero value is empty and usable.
type recurringStore struct {
	templates []*template // in creation order
	moved     bool        // a deadline was added since the server last looked (takeMoved)
}

func (st *recurringStore) find(id string) *template {
	for _, t := range st.templates {
		if t.id == id {
			return t
		}
	}
	return nil
}

// next is the soonest nextAt of any template.
func (st *recurringStore) next() (time.Time, bool) {
	var best time.Time
	for _, t := range st.templates {
		if best.IsZero() || t.nextAt.Before(best) {
			best = t.nextAt
		}
	}
	return best, !best.IsZero()
}

// takeMoved reports (once) that a template was added, so a real-clock timer re-reads the
// deadlines.
func (st *recurringStore) takeMoved() bool {
	m := st.moved
	st.moved = false
	return m
}

// decodeRecurrence reads the recurrence member of a create; api/openapi.json has already
// checked its shape, limits and enums. Nil when absent.
func decodeRecurrence(raw json.RawMessage) (*recurrence, *apiError) {
	if raw == nil {
		return nil, nil
	}
	var b struct {
		EveryMs  float64  `json:"everyMs"`
		WindowMs *float64 `json:"windowMs"`
		OnMiss   *string  `json:"onMiss"`
		CatchUp  *string  `json:"catchUp"`
	}
	if err := decodeBody(raw, &b); err != nil {
		return nil, err
	}
	r := &recurrence{every: time.Duration(b.EveryMs) * time.Millisecond, onMiss: b.OnMiss, catchUp: b.CatchUp}
	if b.WindowMs != nil {
		w := int64(*b.WindowMs)
		r.window = &w
	}
	return r, nil
}

// createTemplate stores a template and cuts its first occurrence at now. The answer names the
// template, with status "scheduled": nothing is queued under its id.
func (ws *workspace) createTemplate(in match.TaskInput, hasPriority bool, rec *recurrence, now time.Time) (int, any, *apiError) {
	if in.ID == "" {
		in.ID = ws.newID("rec_")
	}
	if ws.recurring.find(in.ID) != nil {
		return 0, nil, conflictf(CodeTaskExists, "a recurring template with this id already exists")
	}
	t := &template{id: in.ID, in: in, hasPriority: hasPriority, rec: *rec, nextAt: now}
	ws.recurring.templates = append(ws.recurring.templates, t)
	ws.recurring.moved = true
	ws.fireRecurring(now)
	return http.StatusAccepted, taskRef{ID: t.id, Status: "scheduled"}, nil
}

// fireRecurring cuts every occurrence due by now, in the order of the templates' nextAt.
func (ws *workspace) fireRecurring(now time.Time) {
	var caughtUp map[*template]int
	for {
		t := ws.dueTemplate(now)
		if t == nil {
			return
		}
		at := t.nextAt
		if t.rec.catchUp != nil && *t.rec.catchUp == "all" {
			// all: one occurrence per missed boundary, each at its own time.
			if caughtUp == nil {
				caughtUp = map[*template]int{}
			}
			caughtUp[t]++
			ws.cutOccurrence(t, at)
			t.nextAt = at.Add(t.rec.every)
			if caughtUp[t] >= maxCatchUp {
				t.nextAt = laterBoundary(t.nextAt, t.rec.every, now)
			}
			continue
		}
		// skip: missed boundaries are not made up; one occurrence, at the latest boundary.
		last := at.Add(now.Sub(at) / t.rec.every * t.rec.every)
		ws.cutOccurrence(t, last)
		t.nextAt = last.Add(t.rec.every)
	}
}

// laterBoundary is the first boundary after now on the template's grid through next.
func laterBoundary(next time.Time, every time.Duration, now time.Time) time.Time {
	if next.After(now) {
		return next
	}
	return next.Add((now.Sub(next)/every + 1) * every)
}

func (ws *workspace) dueTemplate(now time.Time) *template {
	var due *template
	for _, t := range ws.recurring.templates {
		if !t.nextAt.After(now) && (due == nil || t.nextAt.Before(due.nextAt)) {
			due = t
		}
	}
	return due
}

// cutOccurrence creates one occurrence of t at at. Over the plan's queued-task limit the
// occurrence is skipped (the template goes on), as a create would be refused.
func (ws *workspace) cutOccurrence(t *template, at time.Time) {
	t.occurrences++
	if lim := ws.limits.QueuedTasks; lim > 0 && ws.openTasks >= lim {
		return
	}
	in := t.in
	in.ID = ws.freshTaskID()
	in.Tags = slices.Clone(t.in.Tags)
	if x, _ := t.in.Extra.(*taskExtra); x != nil {
		cp := *x
		cp.others = maps.Clone(x.others)
		cp.comments = nil
		in.Extra = &cp
	}
	res, err := ws.engine.CreateTask(at, in)
	ws.publish(res)
	if err != nil {
		return
	}
	ws.openTasks++
	t.cut = append(t.cut, in.ID)
}

type recurrenceJSON struct {
	EveryMs  int64   `json:"everyMs"`
	WindowMs *int64  `json:"windowMs"`
	OnMiss   *string `json:"onMiss"`
	CatchUp  *string `json:"catchUp"`
}

type templateJSON struct {
	ID          string         `json:"id"`
	Tags        []string       `json:"tags"`
	Priority    *float64       `json:"priority"`
	Title       *string        `json:"title"`
	Recurrence  recurrenceJSON `json:"recurrence"`
	NextAt      int64          `json:"nextAt"`
	Occurrences int            `json:"occurrences"`
}

func (t *template) json() templateJSON {
	out := templateJSON{ID: t.id, Tags: orEmpty(t.in.Tags), NextAt: t.nextAt.UnixMilli(), Occurrences: t.occurrences,
		Recurrence: recurrenceJSON{EveryMs: t.rec.every.Milliseconds(), WindowMs: t.rec.window, OnMiss: t.rec.onMiss, CatchUp: t.rec.catchUp}}
	if t.hasPriority {
		p := t.in.Priority
		out.Priority = &p
	}
	if x, _ := t.in.Extra.(*taskExtra); x != nil {
		out.Title = x.title
	}
	return out
}

// prepListRecurring answers the templates, the soonest nextAt first (then by id).
func prepListRecurring(*request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		ts := slices.Clone(ws.recurring.templates)
		slices.SortStableFunc(ts, func(a, b *template) int {
			if c := a.nextAt.Compare(b.nextAt); c != 0 {
				return c
			}
			return strings.Compare(a.id, b.id)
		})
		out := struct {
			Recurring []templateJSON `json:"recurring"`
			Count     int            `json:"count"`
		}{Recurring: []templateJSON{}, Count: len(ts)}
		for _, t := range ts {
			out.Recurring = append(out.Recurring, t.json())
		}
		return http.StatusOK, out, nil
	}, nil
}

// prepRemoveRecurring stops a template; with dropScheduled=true it also cancels the
// occurrences it cut that are not finished. An unknown id is 404, also the second time.
func prepRemoveRecurring(r *request) (op, *apiError) {
	id := r.params[0]
	drop := r.query.Get("dropScheduled") == "true"
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		t := ws.recurring.find(id)
		if t == nil {
			return 0, nil, notFoundf("recurring task %s not found", id)
		}
		ws.recurring.templates = slices.DeleteFunc(ws.recurring.templates, func(x *template) bool { return x == t })
		if drop {
			for _, taskID := range t.cut {
				if task, err := ws.engine.Task(taskID); err == nil && !task.Status.Terminal() {
					res, _ := ws.engine.CancelTask(now, taskID)
					ws.publish(res)
				}
			}
		}
		return http.StatusNoContent, nil, nil
	}, nil
}
