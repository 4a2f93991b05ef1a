package mockserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// taskContext is tasks.context.get's answer (TaskContext in api/openapi.json): the task's
// rich data, the same members tasks.create and tasks.update store, seen on their own.
type taskContext struct {
	TaskID      string          `json:"taskId"`
	Title       *string         `json:"title"`
	Description *string         `json:"description"`
	Context     json.RawMessage `json:"context"`
	References  json.RawMessage `json:"references"`
	CreatedAt   *int64          `json:"createdAt"`
	UpdatedAt   *int64          `json:"updatedAt"`
}

// extraOf finds a task's stored members; every task the server creates has them.
func extraOf(ws *workspace, taskID string) (*taskExtra, *apiError) {
	t, err := ws.engine.Task(taskID)
	if err != nil {
		return nil, matchError(err)
	}
	x, ok := t.Extra.(*taskExtra)
	if !ok {
		return nil, errorf(http.StatusInternalServerError, CodeInternalError, "task %s has no stored data", taskID)
	}
	return x, nil
}

func contextAnswer(taskID string, x *taskExtra) taskContext {
	out := taskContext{TaskID: taskID, Title: x.title, Description: x.description,
		Context: rawOrNull(nil), References: json.RawMessage("[]")}
	if v, ok := x.others["context"]; ok {
		out.Context = v
	}
	if v, ok := x.others["references"]; ok {
		out.References = v
	}
	if !x.ctxCreated.IsZero() {
		c, u := x.ctxCreated.UnixMilli(), x.ctxUpdated.UnixMilli()
		out.CreatedAt, out.UpdatedAt = &c, &u
	}
	return out
}

// prepGetContext is GET /tasks/{id}/context.
func prepGetContext(r *request) (op, *apiError) {
	taskID := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		x, err := extraOf(ws, taskID)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, contextAnswer(taskID, x), nil
	}, nil
}

// storedReference is a reference as the context calls keep it: with the id the server gives.
type storedReference struct {
	ID          string `json:"id"`
	URL         string `json:"url"`
	Label       string `json:"label,omitempty"`
	ContentType string `json:"contentType,omitempty"`
}

// prepSetContext is PUT /tasks/{id}/context: a full replace, so a member left out is
// cleared. The schema has already held the body to its limits.
func prepSetContext(r *request) (op, *apiError) {
	var in struct {
		Title       *string           `json:"title"`
		Description *string           `json:"description"`
		Context     json.RawMessage   `json:"context"`
		References  []storedReference `json:"references"`
	}
	if err := json.Unmarshal(r.body, &in); err != nil {
		return nil, invalidBodyf("body is not a JSON object")
	}
	refs := make([]storedReference, len(in.References))
	for i, ref := range in.References {
		ref.ID = "ref_" + strconv.Itoa(i+1)
		refs[i] = ref
	}
	refsJSON, err := json.Marshal(refs)
	if err != nil {
		return nil, invalidBodyf("references could not be stored")
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		x, aerr := extraOf(ws, taskID)
		if aerr != nil {
			return 0, nil, aerr
		}
		x.title, x.description = in.Title, in.Description
		if x.others == nil {
			x.others = map[string]json.RawMessage{}
		}
		delete(x.others, "context")
		if len(in.Context) > 0 && !isNull(in.Context) {
			x.others["context"] = in.Context
		}
		delete(x.others, "references")
		if len(refs) > 0 {
			x.others["references"] = refsJSON
		}
		if x.ctxCreated.IsZero() {
			x.ctxCreated = now
		}
		x.ctxUpdated = now
		return http.StatusOK, contextAnswer(taskID, x), nil
	}, nil
}

// prepClearContext is DELETE /tasks/{id}/context: title, description, context and
// references go; the task itself stays.
func prepClearContext(r *request) (op, *apiError) {
	taskID := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		x, err := extraOf(ws, taskID)
		if err != nil {
			return 0, nil, err
		}
		x.title, x.description = nil, nil
		delete(x.others, "context")
		delete(x.others, "references")
		x.ctxCreated, x.ctxUpdated = time.Time{}, time.Time{}
		return http.StatusNoContent, nil, nil
	}, nil
}
