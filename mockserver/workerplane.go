package mockserver

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// The worker plane (docs/contract.md section 8): one worker acting for itself with a session token (wt_...)
// from POST /worker-auth/login. Its answers carry no quota headers and its POSTs no
// idempotency keys; a token reaches one worker of one workspace and nothing else.

// Codes of the worker plane.
const (
	CodeInvalidCredentials = "invalid_credentials"
	CodeBreakAlreadyOpen   = "break_already_open"
)

// WorkspaceID returns the id of the sandbox workspace, which worker sign-ins name.
func (s *Server) WorkspaceID() string { return s.workspaceIDs[0] }

func newWorkerRoutes() []route {
	return []route{
		bind("worker.login", prepLogin),
		bind("worker.logout", prepLogout),
		bind("worker.refresh", prepRefresh),
		bind("worker.join", prepJoin),
		bind("worker.acceptInvite", prepAcceptInvite),
		bind("worker.setLocale", prepSetPreferences),
		bind("worker.changePin", prepChangePIN),
		bind("worker.skillCatalog", prepSkillCatalog),
		bind("worker.setSkills", prepSetMySkills),
		bind("worker.updateLocation", prepUpdateLocation),
		bind("worker.me", prepMe),
		bind("worker.setAvailability", prepMyAvailability),
		bind("worker.queue", prepMyQueue),
		bind("worker.taskDetail", prepMyTask),
		bind("worker.accept", prepMyAnswer("accept")),
		bind("worker.reject", prepMyAnswer("reject")),
		bind("worker.complete", prepMyAnswer("complete")),
		bind("worker.startBreak", prepStartBreak),
		bind("worker.endBreak", prepEndBreak),
		bind("worker.comments", onMyTask(prepListComments)),
		bind("worker.addComment", onMyTask(prepMyComment)),
		bind("worker.attachments.create", onMyTask(prepMyAttachment)),
		bind("worker.attachments.confirm", onMyTask(prepConfirmAttachment)),
		bind("worker.attachments.list", onMyTask(prepListAttachments)),
		bind("worker.attachments.download", onMyTask(prepDownloadAttachment)),
		bind("worker.breaksToday", prepMyBreaksToday),
		bind("worker.metricsToday", prepMyMetricsToday),
		bind("worker.metricsWindow", prepMyMetricsWindow),
		bind("worker.timeEntries", prepMyTimeEntries),
		bind("worker.teamPresence", prepMyTeamPresence),
	}
}

func isWorkerPlane(path string) bool {
	return strings.HasPrefix(path, BasePath+"/portal/") || strings.HasPrefix(path, BasePath+"/worker-auth/")
}

func unauthorized(msg string) *apiError {
	return errorf(http.StatusUnauthorized, CodeUnauthorized, "%s", msg)
}

// handleWorkerPlane is handle for worker-plane paths: the token decides the workspace and the
// worker, and every operation runs as that worker.
func (s *Server) handleWorkerPlane(r *http.Request) (response, []byte) {
	rt, params, rerr := findRoute(&s.workerRoutes, r.Method, r.URL)
	req := &request{method: r.Method, path: r.URL.Path, params: params, query: r.URL.Query(), workerPlane: true, host: r.Host}
	var ws *workspace
	if rerr == nil && !signsIn(rt.pattern) {
		token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sess, ok := s.sessions.lookup(token, s.clock.Now())
		if !ok {
			rerr = unauthorized("missing, invalid or revoked worker token")
		}
		ws, req.worker, req.token = sess.ws, sess.workerID, token
	}
	if rerr == nil && rt.hasBody {
		req.body, rerr = readBody(r)
		if rerr == nil && len(req.body) == 0 && rt.pattern == "/portal/breaks/start" {
			req.body = []byte("{}") // the reason is optional, and so is the whole body
		}
	}
	if rerr == nil {
		rerr = s.checkRequest(rt, req)
	}
	var run op
	if rerr == nil {
		run, rerr = rt.prepare(req)
	}
	if rerr == nil && ws == nil {
		if req.linkToken != "" {
			// Join and accept-invite: the link's or the invite's token names the workspace.
			ws, rerr = s.workspaceByToken(req.linkToken)
		} else {
			// Login: the body names the workspace.
			ws, rerr = s.workspaceByID(req.loginWorkspace)
		}
	}
	if rerr != nil {
		resp := errResponse(rerr)
		if rt.allow != "" {
			resp.header.Set("Allow", rt.allow)
		}
		return resp, req.body
	}
	return s.exec(ws, req, run), req.body
}

func (s *Server) workspaceByID(id string) (*workspace, *apiError) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i, wid := range s.workspaceIDs {
		if subtle.ConstantTimeCompare([]byte(wid), []byte(id)) == 1 {
			return s.workspaces[s.keys[i]], nil
		}
	}
	return nil, errorf(http.StatusUnauthorized, CodeInvalidCredentials, "invalid workspace, worker or PIN")
}

// me checks that the session's worker still exists; a removed worker's token is dead.
func me(ws *workspace, r *request) (match.WorkerDetail, *apiError) {
	w, err := ws.engine.Worker(r.worker)
	if err != nil {
		return w, unauthorized("the signed-in worker no longer exists")
	}
	return w, nil
}

// profileAnswer is the platform's worker profile (worker.me). label is the sign-in's label;
// pendingApproval is set for a worker who joined by a link that asks for approval.
type profileAnswer struct {
	WorkerID        string      `json:"workerId"`
	Label           *string     `json:"label"`
	Available       bool        `json:"available"`
	PendingApproval bool        `json:"pendingApproval"`
	OnBreak         bool        `json:"onBreak"`
	BreakStartedAt  *string     `json:"breakStartedAt"`
	Skills          []wireSkill `json:"skills"`
	Locale          *string     `json:"locale"`
	EmailNotices    bool        `json:"emailNotices"`
	// SkillSetupPending asks the worker to choose skills: true while the workspace has a
	// skill catalogue, the worker holds no skill and has not yet answered with
	// PUT /portal/me/skills (docs/contract.md, "Worker plane").
	SkillSetupPending bool `json:"skillSetupPending"`
}

func prepMe(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		w, aerr := me(ws, r)
		if aerr != nil {
			return 0, nil, aerr
		}
		out := profileAnswer{
			WorkerID: w.ID, Available: w.Available,
			OnBreak: w.OnBreak, Skills: workerSkills(w, &ws.skillCat),
		}
		out.Locale, out.EmailNotices = preferences(w)
		chosen := false
		if id := ws.identities[w.ID]; id != nil {
			out.Label, out.PendingApproval, chosen = id.label, id.pendingApproval, id.skillsChosen
		}
		out.SkillSetupPending = !chosen && len(out.Skills) == 0 && len(ws.skillCat.skills) > 0
		if w.OnBreak {
			since := isoTime(w.BreakSince)
			out.BreakStartedAt = &since
		}
		return http.StatusOK, out, nil
	}, nil
}

func prepMyAvailability(r *request) (op, *apiError) {
	// staleAfterMs (the platform's liveness contract for unattended workers) is checked
	// against the file and accepted, but the mock server never clocks a silent worker out:
	// docs/contract.md, "Known gaps".
	var b struct {
		Available bool `json:"available"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	available := b.Available
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		if id := ws.identities[r.worker]; available && id != nil && id.pendingApproval {
			return 0, nil, errorf(http.StatusForbidden, CodeApprovalPending, "an operator has still to admit this worker")
		}
		res, err := ws.engine.SetAvailability(now, r.worker, available, false)
		ws.publish(res)
		if err != nil {
			return 0, nil, matchError(err)
		}
		ws.observeWorker(now, r.worker, sourcePortal)
		return http.StatusOK, map[string]any{"workerId": r.worker, "available": available}, nil
	}, nil
}

func prepMyQueue(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		if r.params[0] != r.worker {
			return 0, nil, notFoundf("worker %s not found", r.params[0])
		}
		ids, err := ws.engine.WorkerQueue(r.worker)
		if err != nil {
			return 0, nil, matchError(err)
		}
		return http.StatusOK, queueAnswer{WorkerID: r.worker, TaskIDs: orEmpty(ids)}, nil
	}, nil
}

// myTask returns the task when it is this worker's (offered to, accepted or completed by it);
// any other task, of this workspace or not, is not found.
func myTask(ws *workspace, r *request, taskID string) (match.Task, *apiError) {
	t, err := ws.engine.Task(taskID)
	if err != nil || t.WorkerID != r.worker {
		return t, notFoundf("task %s not found", taskID)
	}
	return t, nil
}

func prepMyTask(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		t, aerr := myTask(ws, r, r.params[0])
		if aerr != nil {
			return 0, nil, aerr
		}
		return http.StatusOK, portalTaskJSON(t), nil
	}, nil
}

// prepMyAnswer is POST /portal/tasks/{id}/accept|reject|complete: the workspace plane's
// operation, for this worker's own tasks only.
func prepMyAnswer(verb string) func(*request) (op, *apiError) {
	return func(r *request) (op, *apiError) {
		b, err := decodeTaskAction(r)
		if err != nil {
			return nil, err
		}
		if b.WorkerID != r.worker {
			return nil, invalidBodyf("workerId must be the signed-in worker")
		}
		taskID := r.params[0]
		return func(ws *workspace, now time.Time) (int, any, *apiError) {
			if _, aerr := me(ws, r); aerr != nil {
				return 0, nil, aerr
			}
			if _, aerr := myTask(ws, r, taskID); aerr != nil {
				return 0, nil, aerr
			}
			var res match.Result
			var err error
			status := "queued"
			switch verb {
			case "accept":
				res, err = ws.engine.Accept(now, taskID, r.worker)
				status = "accepted"
			case "reject":
				res, err = ws.engine.Reject(now, taskID, r.worker)
			default:
				res, err = ws.engine.Complete(now, taskID, r.worker, b.storedResult())
				status = "completed"
			}
			ws.publish(res)
			if err != nil {
				return 0, nil, matchError(err)
			}
			return http.StatusOK, taskRef{ID: taskID, Status: status}, nil
		}, nil
	}
}

// breakAnswer is the answer of worker.startBreak (since) and worker.endBreak (endedAt); both
// times are ISO-8601 strings, as the platform sends them.
type breakAnswer struct {
	WorkerID string  `json:"workerId"`
	OnBreak  bool    `json:"onBreak"`
	Since    *string `json:"since,omitempty"`
	EndedAt  *string `json:"endedAt,omitempty"`
}

func prepStartBreak(r *request) (op, *apiError) {
	var b struct {
		Reason string `json:"reason"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	reason := b.Reason
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		res, err := ws.engine.StartBreak(now, r.worker, reason)
		ws.publish(res)
		if errors.Is(err, match.ErrBreakAlreadyOpen) {
			return 0, nil, conflictf(CodeBreakAlreadyOpen, "a break is already open")
		}
		if err != nil {
			return 0, nil, matchError(err)
		}
		since := isoTime(ws.engine.Now())
		return http.StatusOK, breakAnswer{WorkerID: r.worker, OnBreak: true, Since: &since}, nil
	}, nil
}

func prepEndBreak(r *request) (op, *apiError) {
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, aerr := me(ws, r); aerr != nil {
			return 0, nil, aerr
		}
		res, err := ws.engine.EndBreak(now, r.worker)
		ws.publish(res)
		if errors.Is(err, match.ErrNoOpenBreak) {
			return http.StatusNoContent, nil, nil
		}
		if err != nil {
			return 0, nil, matchError(err)
		}
		ended := isoTime(ws.engine.Now())
		return http.StatusOK, breakAnswer{WorkerID: r.worker, OnBreak: false, EndedAt: &ended}, nil
	}, nil
}
