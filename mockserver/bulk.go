package mockserver

import (
	"encoding/json"
	"fmt"
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

// prepCreateMany is POST /tasks/bulk. A malformed envelope refuses the whole call; a bad
// entry fails alone, so the report always holds one result per entry.
func prepCreateMany(r *request) (op, *apiError) {
	o, err := parseBody(r.body, "tasks")
	if err != nil {
		return nil, err
	}
	if err := o.require("tasks"); err != nil {
		return nil, err
	}
	objs, err := bulkObjects(o.raw["tasks"])
	if err != nil {
		return nil, err
	}
	allowed := taskMembers()
	entries := make([]bulkEntry, len(objs))
	for i, eo := range objs {
		if eo.raw == nil {
			entries[i].err = validationf("%s must be object", eo.path)
			continue
		}
		if _, err := checkMembers(eo, allowed); err != nil {
			entries[i].err = err
			continue
		}
		entries[i].in, entries[i].err = decodeTaskInput(eo)
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

// bulkObjects splits the tasks array into one object per entry, decoding it once; an entry
// that is not an object has a nil raw and fails alone.
func bulkObjects(raw json.RawMessage) ([]*object, *apiError) {
	var maps []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &maps); err != nil {
		// Only a malformed batch pays for the second, entry-by-entry pass.
		var raws []json.RawMessage
		if json.Unmarshal(raw, &raws) != nil {
			return nil, validationf("body/tasks must be array")
		}
		maps = make([]map[string]json.RawMessage, len(raws))
		for i, r := range raws {
			_ = json.Unmarshal(r, &maps[i]) // leaves nil for a non-object
		}
	}
	if len(maps) < 1 || len(maps) > MaxBulkTasks {
		return nil, validationf("body/tasks must NOT have fewer than 1 or more than %d items", MaxBulkTasks)
	}
	objs := make([]*object, len(maps))
	for i, m := range maps {
		objs[i] = &object{path: fmt.Sprintf("body/tasks/%d", i), raw: m}
	}
	return objs, nil
}
