package mockserver

import (
	"slices"
	"strings"
)

// A task that finished (completed, cancelled, failed or expired) stays readable for a while:
// GET /tasks/{id}, the lists, tasks.history, its comments and attachments. Without a bound
// every task a load test ever created would stay in memory. WithFinishedTasks bounds them
// as WithRetention bounds the records (retention.go): once a workspace holds 2 × n finished
// tasks, the oldest finished are dropped until n are left, each with everything kept for it
// (the matcher's task, its attachments and booking, the idempotency answers that name it,
// its first-match time). A dropped task is unknown from then on: GET answers 404 not_found
// as for an id never created, and the id may be used again. docs/contract.md, "Finished
// tasks".

// DefaultFinishedTasks is how many finished tasks each workspace keeps readable by default.
const DefaultFinishedTasks = 10_000

// WithFinishedTasks bounds how many finished tasks (completed, cancelled, failed, expired)
// each workspace keeps: once it holds 2n of them, the oldest finished are forgotten until n
// are left, and a forgotten task answers 404 not_found as an unknown one does. So the newest
// n finished tasks are always readable, and at most 2n are in memory. Default
// DefaultFinishedTasks; n <= 0 keeps every finished task. See docs/contract.md, "Finished
// tasks", and docs/reliability.md, "Memory".
func WithFinishedTasks(n int) Option {
	return func(cfg *config) { cfg.finishedTasks = max(n, 0) }
}

// forgetFinished drops the oldest finished tasks once the workspace holds 2 × its bound of
// them, down to the bound. It runs after a command and after a clock's visit, never within
// one, so an operation can always read back the task it has just finished.
func (ws *workspace) forgetFinished() {
	a := &ws.archive
	n := a.limit
	if n <= 0 || len(a.finished) < 2*n {
		return
	}
	old := a.finished[:len(a.finished)-n]
	ids := make([]string, len(old))
	for i, f := range old {
		ids[i] = f.taskID
		ws.forgetTask(f.taskID)
	}
	ws.engine.Forget(ids)
	a.dropped += len(old)
	// A fresh array, so the dropped entries' memory is released (as keepNewest does).
	a.finished = append(make([]finishedTask, 0, 2*n), a.finished[len(old):]...)
}

// forgetTask drops what the stores beside the matcher keep for a finished task about to be
// forgotten; the matcher's own part goes with Engine.Forget.
func (ws *workspace) forgetTask(id string) {
	if extra, ok := ws.engine.TaskExtra(id); ok {
		if x, _ := extra.(*taskExtra); x != nil {
			for _, key := range x.idemKeys {
				if e := ws.idem.entries[key]; e != nil && e.taskID == id {
					delete(ws.idem.entries, key)
				}
			}
		}
	}
	delete(ws.archive.matchedAt, id)
	delete(ws.attachments.byTask, id)
	delete(ws.bookings.byTask, id)
	delete(ws.flows.byTask, id)
}

// noteIdempotent ties a stored idempotency answer to the task the request named, so the
// answer leaves with the task (forgetTask). A request that names no task keeps its answer
// for IdempotencyWindow.
func (ws *workspace) noteIdempotent(key string, e *idemEntry, req *request, v any) {
	id := ""
	switch {
	case len(req.params) > 0 && strings.HasPrefix(req.path, BasePath+"/tasks/"):
		id = req.params[0]
	default:
		if ref, ok := v.(taskRef); ok {
			id = ref.ID
		}
	}
	if id == "" {
		return
	}
	extra, _ := ws.engine.TaskExtra(id)
	if x, _ := extra.(*taskExtra); x != nil {
		e.taskID = id
		if !slices.Contains(x.idemKeys, key) {
			x.idemKeys = append(x.idemKeys, key)
		}
	}
}
