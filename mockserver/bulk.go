package mockserver

import (
	"net/http"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// MaxBulkTasks is the most entries one tasks.createMany call takes (the platform's maxItems
// on POST /tasks/bulk in api/openapi.json).
const MaxBulkTasks = 200

// bulkResult is one entry of a bulk report: an id and status, or an error, never both. Index
// maps the entry back to its position in the request.
type bulkResult struct {
	Index  int        `json:"index"`
	ID     string     `json:"id,omitempty"`
	Status string     `json:"status,omitempty"`
	Error  *bulkError `json:"error,omitempty"`
}

type bulkError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// bulkReport is the platform's BulkTaskReport: a 200 with counts and one result per entry.
type bulkReport struct {
	Created int          `json:"created"`
	Failed  int          `json:"failed"`
	Results []bulkResult `json:"results"`
}

// bulkEntry is an entry that passed validation (in) or the error it failed with (err).
type bulkEntry struct {
	in  match.TaskInput
	err *apiError
}

// prepCreateMany is POST /tasks/bulk. A body the schema refuses (any entry included) refuses
// the whole call; an entry that breaks a rule across its members, or is refused when it
// runs (task_exists, a quota), fails alone, so the report always holds one result per entry.
func prepCreateMany(r *request) (op, *apiError) {
	var b struct {
		Tasks []createTaskBody `json:"tasks"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	entries := make([]bulkEntry, len(b.Tasks))
	for i := range b.Tasks {
		entries[i].in, entries[i].err = decodeTaskInput(&b.Tasks[i])
		if b.Tasks[i].Recurrence != nil && entries[i].err == nil {
			entries[i].err = invalidBodyf("recurrence makes a template and is taken by tasks.create only")
		}
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		rep := bulkReport{Results: make([]bulkResult, len(entries))}
		for i, e := range entries {
			ref, err := e.in.ID, e.err
			if err == nil {
				ref, err = ws.createTask(now, e.in)
			}
			if err != nil {
				rep.Failed++
				rep.Results[i] = bulkResult{Index: i, Error: &bulkError{Code: err.code, Message: err.message}}
				continue
			}
			rep.Created++
			rep.Results[i] = bulkResult{Index: i, ID: ref, Status: "queued"}
		}
		return http.StatusOK, rep, nil
	}, nil
}

// createTask runs one create under the workspace lock, with the same quota checks as
// tasks.create: each created task counts against the task rate, and a refused one does not.
func (ws *workspace) createTask(now time.Time, in match.TaskInput) (string, *apiError) {
	if err := ws.taskRateFull(now); err != nil {
		return "", err
	}
	if lim := ws.limits.QueuedTasks; lim > 0 && ws.openTasks >= lim {
		return "", planLimit("queued tasks", lim)
	}
	if in.ID == "" {
		in.ID = ws.freshTaskID()
	}
	res, err := ws.engine.CreateTask(now, in)
	ws.publish(res)
	if err != nil {
		return "", matchError(err)
	}
	ws.countTaskRate()
	ws.openTasks++
	return in.ID, nil
}
