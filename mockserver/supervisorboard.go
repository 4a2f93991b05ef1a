package mockserver

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// The supervisor's board (supervisor.overview) and actions (setPriority, assign,
// setAvailability). The actions run the workspace plane's matcher calls, so they change the
// same state and emit the same events as tasks.setPriority, tasks.assign and
// workers.setAvailability; only the answers and the scope checks are the supervisor plane's.

// maxParkedOnBoard is the platform's cap on the board's parked list.
const maxParkedOnBoard = 50

// statusParked is the platform's status of a task taken out of matching until unparked.
const statusParked = "parked"

type boardCounts struct {
	Queued       int   `json:"queued"`
	Pending      int   `json:"pending"`
	Parked       int   `json:"parked"`
	OldestWaitMs int64 `json:"oldestWaitMs"`
}

type crewMember struct {
	WorkerID  string `json:"workerId"`
	Backlog   int    `json:"backlog"`
	Available bool   `json:"available"`
}

type parkedTask struct {
	ID        string   `json:"id"`
	Tags      []string `json:"tags"`
	Priority  *float64 `json:"priority"`
	CreatedAt *int64   `json:"createdAt"`
}

type overviewAnswer struct {
	TeamKey *string      `json:"teamKey"`
	Counts  boardCounts  `json:"counts"`
	Crew    []crewMember `json:"crew"`
	Parked  []parkedTask `json:"parked"`
}

// prepSupervisorOverview computes the board from the workspace's state at the server's
// clock: counts of queued, pending and parked tasks in scope, the wait of the oldest queued
// one (since it was first queued), the crew busiest first (then by id), and the parked
// tasks oldest first. It walks every task once: board cadence, not per-request cadence.
func prepSupervisorOverview(r *request) (op, *apiError) {
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		sc := scopeOf(ws, r.supervisor)
		out := overviewAnswer{TeamKey: sc.teamKey, Crew: []crewMember{}, Parked: []parkedTask{}}
		var oldest time.Time
		var after uint64
		for {
			page, err := ws.engine.Tasks(match.TaskQuery{Status: match.FilterAll, After: after, Limit: 1000})
			if err != nil {
				return 0, nil, matchError(err)
			}
			for _, t := range page.Tasks {
				after = t.Seq
				if !sc.hasTask(t.Tags, t.Extra) {
					continue
				}
				switch string(t.Status) {
				case string(match.StatusQueued):
					out.Counts.Queued++
					if oldest.IsZero() || t.QueuedAt.Before(oldest) {
						oldest = t.QueuedAt
					}
				case string(match.StatusPending):
					out.Counts.Pending++
				case statusParked:
					out.Counts.Parked++
					if len(out.Parked) < maxParkedOnBoard {
						p, at := t.Priority, t.CreatedAt.UnixMilli()
						out.Parked = append(out.Parked, parkedTask{ID: t.ID, Tags: t.Tags, Priority: &p, CreatedAt: &at})
					}
				}
			}
			if !page.HasMore {
				break
			}
		}
		if !oldest.IsZero() && now.After(oldest) {
			out.Counts.OldestWaitMs = now.Sub(oldest).Milliseconds()
		}
		for _, id := range ws.engine.WorkerIDs() {
			if !sc.hasWorker(id) {
				continue
			}
			w, err := ws.engine.Worker(id)
			if err != nil {
				continue
			}
			// On the board a worker on a break is not available: no new work reaches them.
			out.Crew = append(out.Crew, crewMember{WorkerID: id, Backlog: w.QueueDepth, Available: w.Available && !w.OnBreak})
		}
		slices.SortStableFunc(out.Crew, func(a, b crewMember) int {
			return cmp.Or(cmp.Compare(b.Backlog, a.Backlog), cmp.Compare(a.WorkerID, b.WorkerID))
		})
		return http.StatusOK, out, nil
	}, nil
}

// supervisedTask finds a task for an action: 404 when the workspace has no such task, 403
// when it is outside the supervisor's team.
func supervisedTask(ws *workspace, sc scope, taskID string) *apiError {
	t, err := ws.engine.Task(taskID)
	if err != nil {
		return matchError(err)
	}
	if !sc.hasTask(t.Tags, t.Extra) {
		return forbiddenf("task %s is outside this supervisor's team", taskID)
	}
	return nil
}

func supervisedWorker(ws *workspace, sc scope, workerID string) *apiError {
	if _, err := ws.engine.Worker(workerID); err != nil {
		return matchError(err)
	}
	if !sc.hasWorker(workerID) {
		return forbiddenf("worker %s is outside this supervisor's team", workerID)
	}
	return nil
}

func prepSupervisorPriority(r *request) (op, *apiError) {
	var b struct {
		Priority float64 `json:"priority"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	p := b.Priority
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if aerr := supervisedTask(ws, scopeOf(ws, r.supervisor), taskID); aerr != nil {
			return 0, nil, aerr
		}
		// The workspace plane's tasks.setPriority call, so the same events follow.
		res, err := ws.engine.UpdateTask(now, taskID, match.TaskUpdate{Priority: &p})
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, map[string]any{"id": taskID, "priority": p}, nil
	}, nil
}

// prepSupervisorUnpark is the workspace plane's tasks.unpark within the supervisor's scope:
// the same clock resets, the same answer, the same task.unparked event.
func prepSupervisorUnpark(r *request) (op, *apiError) {
	var b struct {
		ResetEscalation bool `json:"resetEscalation"`
		ResetSLA        bool `json:"resetSla"`
		ResetSchedule   bool `json:"resetSchedule"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	opts := match.UnparkOptions{ResetEscalation: b.ResetEscalation, ResetSLA: b.ResetSLA, ResetSchedule: b.ResetSchedule}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if aerr := supervisedTask(ws, scopeOf(ws, r.supervisor), taskID); aerr != nil {
			return 0, nil, aerr
		}
		return ws.unpark(now, taskID, opts)
	}, nil
}

type supervisorAssignAnswer struct {
	ID       string `json:"id"`
	WorkerID string `json:"workerId"`
	Status   string `json:"status"`
}

func prepSupervisorAssign(r *request) (op, *apiError) {
	var b struct {
		WorkerID string `json:"workerId"`
		Force    bool   `json:"force"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	workerID, force := b.WorkerID, b.Force
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		sc := scopeOf(ws, r.supervisor)
		if aerr := supervisedTask(ws, sc, taskID); aerr != nil {
			return 0, nil, aerr
		}
		if aerr := supervisedWorker(ws, sc, workerID); aerr != nil {
			return 0, nil, aerr
		}
		res, err := ws.engine.Assign(now, taskID, workerID, force)
		ws.publish(res)
		if err != nil {
			return 0, nil, assignError(err)
		}
		return http.StatusOK, supervisorAssignAnswer{ID: taskID, WorkerID: workerID, Status: "pending"}, nil
	}, nil
}

// assignError: on this plane the matcher's refusals of a worker (backlog full, paused,
// vetoed, rejected before) are 400 assign_blocked, where the workspace plane answers 409; a
// task in a state that cannot be assigned stays 409 invalid_state.
func assignError(err error) *apiError {
	var se *match.StateError
	switch {
	case errors.Is(err, match.ErrBacklogFull):
		return errorf(http.StatusBadRequest, CodeAssignBlocked, "the worker's backlog is full; send force to assign anyway")
	case errors.As(err, &se) && se.Reason == match.StateWorkerNotEligible:
		return errorf(http.StatusBadRequest, CodeAssignBlocked, "%s; send force to assign anyway", stateMessage(se))
	}
	return matchError(err)
}

type supervisorAvailabilityAnswer struct {
	WorkerID        string   `json:"workerId"`
	Available       bool     `json:"available"`
	ReleasedTaskIDs []string `json:"releasedTaskIds"`
}

func prepSupervisorAvailability(r *request) (op, *apiError) {
	var b struct {
		Available      bool `json:"available"`
		ReleaseBacklog bool `json:"releaseBacklog"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	available, release := b.Available, b.ReleaseBacklog
	if release && available {
		return nil, invalidBodyf("releaseBacklog can only be sent with available: false")
	}
	workerID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if aerr := supervisedWorker(ws, scopeOf(ws, r.supervisor), workerID); aerr != nil {
			return 0, nil, aerr
		}
		res, err := ws.engine.SetAvailability(now, workerID, available, release)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		ws.observeWorker(now, workerID, sourceSupervisor)
		// Always present: an empty list is how the caller sees the backlog held.
		return http.StatusOK, supervisorAvailabilityAnswer{WorkerID: workerID, Available: available, ReleasedTaskIDs: orEmpty(res.ReleasedTaskIDs)}, nil
	}, nil
}
