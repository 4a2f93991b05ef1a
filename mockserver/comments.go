package mockserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// comment is one note on a task, kept with the task (taskExtra.comments) in posting order.
type comment struct {
	ID        string        `json:"id"`
	TaskID    string        `json:"taskId"`
	Author    commentAuthor `json:"author"`
	Body      string        `json:"body"`
	CreatedAt int64         `json:"createdAt"`
}

// commentAuthor says who wrote a comment: "worker" when the call names a worker, "api"
// otherwise (the API key's caller).
type commentAuthor struct {
	Type  string  `json:"type"`
	ID    *string `json:"id"`
	Label *string `json:"label"`
}

type commentAnswer struct {
	Comment comment `json:"comment"`
}

type commentPage struct {
	Comments   []comment `json:"comments"`
	NextCursor *string   `json:"nextCursor"`
	HasMore    bool      `json:"hasMore"`
}

// prepAddComment is POST /tasks/{id}/comments. The named worker is stored as the author
// without checking that it exists (stored, not enforced).
func prepAddComment(r *request) (op, *apiError) {
	var in struct {
		Body        string  `json:"body"`
		WorkerID    *string `json:"workerId"`
		AuthorLabel *string `json:"authorLabel"`
	}
	if err := json.Unmarshal(r.body, &in); err != nil {
		return nil, invalidBodyf("body is not a JSON object")
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		author := commentAuthor{Type: "api", Label: in.AuthorLabel}
		if in.WorkerID != nil {
			author = workerAuthor(ws, *in.WorkerID)
			if in.AuthorLabel != nil {
				author.Label = in.AuthorLabel
			}
		}
		c, err := addComment(ws, now, taskID, in.Body, author)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, commentAnswer{Comment: c}, nil
	}, nil
}

// workerAuthor is a worker as a comment's author: labelled with its identity's label when it
// has one, as the platform labels it.
func workerAuthor(ws *workspace, workerID string) commentAuthor {
	a := commentAuthor{Type: "worker", ID: &workerID}
	if id := ws.identities[workerID]; id != nil && id.label != nil {
		label := *id.label
		a.Label = &label
	}
	return a
}

// addComment appends a comment to a task's thread; both planes add through it.
func addComment(ws *workspace, now time.Time, taskID, body string, author commentAuthor) (comment, *apiError) {
	x, err := extraOf(ws, taskID)
	if err != nil {
		return comment{}, err
	}
	x.commentSeq++
	c := comment{ID: "cmt_" + strconv.Itoa(x.commentSeq), TaskID: taskID, Author: author,
		Body: body, CreatedAt: now.UnixMilli()}
	x.comments = append(x.comments, c)
	return c, nil
}

// prepListComments is GET /tasks/{id}/comments, oldest first. The cursor is the position
// after the last comment of the previous page.
func prepListComments(r *request) (op, *apiError) {
	limit, start := 50, 0
	if l := r.query.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil {
			return nil, validationf("querystring/limit must be integer")
		}
		limit = n
	}
	if c := r.query.Get("cursor"); c != "" {
		n, err := strconv.Atoi(c)
		if err != nil || n < 0 {
			return nil, invalidBodyf("cursor is not one this server issued")
		}
		start = n
	}
	taskID := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		x, err := extraOf(ws, taskID)
		if err != nil {
			return 0, nil, err
		}
		from := min(start, len(x.comments))
		to := min(from+limit, len(x.comments))
		out := commentPage{Comments: slices.Clone(x.comments[from:to]), HasMore: to < len(x.comments)}
		if out.Comments == nil {
			out.Comments = []comment{}
		}
		if out.HasMore {
			next := strconv.Itoa(to)
			out.NextCursor = &next
		}
		return http.StatusOK, out, nil
	}, nil
}

// prepRemoveComment is DELETE /tasks/{id}/comments/{commentId}.
func prepRemoveComment(r *request) (op, *apiError) {
	taskID, commentID := r.params[0], r.params[1]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		x, err := extraOf(ws, taskID)
		if err != nil {
			return 0, nil, err
		}
		i := slices.IndexFunc(x.comments, func(c comment) bool { return c.ID == commentID })
		if i < 0 {
			return 0, nil, notFoundf("comment %s not found on task %s", commentID, taskID)
		}
		x.comments = slices.Delete(x.comments, i, i+1)
		return http.StatusNoContent, nil, nil
	}, nil
}
