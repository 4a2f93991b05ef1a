package mockserver

import (
	"encoding/json"
	"net/http"
	"time"
)

// The worker plane's comments and attachments (docs/contract.md, "Worker-plane comments and
// attachments") run the workspace plane's operations on the same stores, so a comment or a
// file added by a worker is the one the workspace reads back. The differences: only the
// session's own tasks are reachable, the author or uploader is the session's worker, and
// nothing can be removed.

// onMyTask guards a workspace-plane operation so that it runs only for a signed-in worker
// who still exists and only on a task offered to or held by that worker; any other task,
// another worker's or another workspace's, is 404 as worker.taskDetail answers.
func onMyTask(prepare func(*request) (op, *apiError)) func(*request) (op, *apiError) {
	return func(r *request) (op, *apiError) {
		run, err := prepare(r)
		if err != nil {
			return nil, err
		}
		return func(ws *workspace, now time.Time) (int, any, *apiError) {
			if _, err := me(ws, r); err != nil {
				return 0, nil, err
			}
			if _, err := myTask(ws, r, r.params[0]); err != nil {
				return 0, nil, err
			}
			return run(ws, now)
		}, nil
	}
}

// prepMyComment is POST /portal/tasks/{id}/comments: a comment whose author is the session's
// worker, labelled as on the workspace plane (workerAuthor).
func prepMyComment(r *request) (op, *apiError) {
	var in struct {
		Body string `json:"body"`
	}
	if err := json.Unmarshal(r.body, &in); err != nil {
		return nil, invalidBodyf("body is not a JSON object")
	}
	worker, taskID := r.worker, r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		c, err := addComment(ws, now, taskID, in.Body, workerAuthor(ws, worker))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, commentAnswer{Comment: c}, nil
	}, nil
}

// prepMyAttachment is POST /portal/tasks/{id}/attachments: the uploader is the session's
// worker, and the platform answers 200 here where the workspace plane answers 201.
func prepMyAttachment(r *request) (op, *apiError) {
	return createAttachment(r, http.StatusOK)
}
