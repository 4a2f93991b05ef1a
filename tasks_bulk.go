package taskrouting

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// MaxBulkTasks is the most tasks one CreateMany call takes (the platform's
// limit on POST /tasks/bulk).
const MaxBulkTasks = 200

// BulkTaskReport is the answer of CreateMany. A successful call does not
// mean every task was created: read Failed and each result's Error.
type BulkTaskReport struct {
	Created int              `json:"created"`
	Failed  int              `json:"failed"`
	Results []BulkTaskResult `json:"results"`
}

// BulkTaskResult is one entry of a bulk create. Index is the entry's
// position in the request; exactly one of ID and Error is set.
type BulkTaskResult struct {
	Index  int            `json:"index"`
	ID     string         `json:"id,omitempty"`
	Status TaskStatus     `json:"status,omitempty"`
	Error  *BulkTaskError `json:"error,omitempty"`
}

// BulkTaskError is why one entry of a bulk create failed, in the error
// envelope's terms (Code is e.g. CodeTaskExists or CodeValidationFailed).
type BulkTaskError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// OK reports whether the entry was created.
func (r BulkTaskResult) OK() bool { return r.Error == nil }

type createManyBody struct {
	Tasks []CreateTaskParams `json:"tasks"`
}

// CreateMany creates up to MaxBulkTasks tasks in one call. Entries fail one
// by one on the server (a duplicate id answers task_exists for that entry
// alone), so check the report; the call itself fails only when the request
// as a whole is refused. Every entry is checked before sending: one bad
// entry is a *ParamError naming its index and nothing is sent. For more
// tasks than one call takes, or to retry failed entries, use CreateAll.
//
// Which to pick: CreateMany is one request, the platform's own operation,
// and leaves every failed entry to you (a transient failure of one entry
// is not retried). CreateAll takes any number of tasks, splits them into
// CreateMany calls run a few at a time, gives each entry an id so a retry
// can never create it twice, and retries the entries that failed for a
// transient reason. Use CreateAll unless you need the one request.
//
// API: tasks.createMany, POST /tasks/bulk
func (s *TasksService) CreateMany(ctx context.Context, tasks []CreateTaskParams, opts ...RequestOption) (*BulkTaskReport, error) {
	if len(tasks) < 1 || len(tasks) > MaxBulkTasks {
		return nil, &ParamError{Param: "tasks", Problem: "must hold 1 to " + strconv.Itoa(MaxBulkTasks) + " entries"}
	}
	for i, p := range tasks {
		if err := s.c.admit(p.validate(), opts); err != nil {
			return nil, entryParamError(i, err)
		}
	}
	out := new(BulkTaskReport)
	if err := s.c.call(ctx, "POST", "/tasks/bulk", nil, createManyBody{Tasks: tasks}, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// entryParamError names the failing entry's index in a CreateTaskParams
// check's error, e.g. "tasks[3].Tags".
func entryParamError(i int, err error) error {
	var pe *ParamError
	if !errors.As(err, &pe) {
		return err
	}
	field := strings.TrimPrefix(pe.Param, "CreateTaskParams")
	return &ParamError{Param: "tasks[" + strconv.Itoa(i) + "]" + field, Problem: pe.Problem}
}
