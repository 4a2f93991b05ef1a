package mockserver

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The supervisor plane (docs/contract.md, "Supervisor plane"): a crew lead who watches the
// board and unblocks work with a session token (sv_...). A session starts only by redeeming a
// single-use link; the platform's owner makes those links in its console, and the mock server
// makes them with Server.InviteSupervisor or POST /_mock/supervisor-links. A supervisor acts
// within one workspace, and within one team of it when the link names a team.

// Codes of the supervisor plane.
const (
	CodeForbidden     = "forbidden"      // 403: the task or worker is outside the supervisor's team
	CodeAssignBlocked = "assign_blocked" // 400: the matcher refuses the assignment; force overrides
	CodeVoiceDisabled = "voice_disabled" // 404: the deployment has no voice (no ICE servers)
)

const (
	// supervisorLinkTTL is how long an unredeemed link stays good (decided here).
	supervisorLinkTTL = 7 * 24 * time.Hour
	// supervisorSessionTTL is how long a session lasts; there is no refresh (decided here).
	supervisorSessionTTL = 12 * time.Hour
)

// SupervisorInvite describes a supervisor link, as a workspace owner would create it in the
// platform's console.
type SupervisorInvite struct {
	// WorkspaceID is the workspace the supervisor acts in; "" means the sandbox workspace
	// (Server.WorkspaceID).
	WorkspaceID string `json:"workspaceId,omitempty"`
	// Label names the supervisor on the board, e.g. "Dana"; "" means "Supervisor".
	Label string `json:"label,omitempty"`
	// Email is stored and answered by supervisor.me; nothing is sent to it.
	Email string `json:"email,omitempty"`
	// TeamID scopes the supervisor to one team (an id from teams.create); "" means the
	// whole workspace.
	TeamID string `json:"teamId,omitempty"`
}

// SupervisorLink is one link made by InviteSupervisor, as SupervisorLinks records it.
// Token is what supervisor.acceptInvite redeems; String and GoString leave it out, so %v of a
// link does not print it.
type SupervisorLink struct {
	Token        string    `json:"token"`
	SupervisorID string    `json:"supervisorId"`
	WorkspaceID  string    `json:"workspaceId"`
	Label        string    `json:"label"`
	Email        string    `json:"email,omitempty"`
	TeamID       string    `json:"teamId,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	ExpiresAt    time.Time `json:"expiresAt"`
	// RedeemedAt is when supervisor.acceptInvite used the link; zero while unused.
	RedeemedAt time.Time `json:"redeemedAt,omitzero"`
}

// String describes the link without its token.
func (l SupervisorLink) String() string {
	return "mockserver.SupervisorLink{SupervisorID: " + l.SupervisorID + ", WorkspaceID: " + l.WorkspaceID + ", TeamID: " + l.TeamID + ", Token: [redacted]}"
}

// GoString describes the link for %#v without its token.
func (l SupervisorLink) GoString() string { return l.String() }

// supervisor is who a link or a session stands for.
type supervisor struct {
	id, label string
	email     *string
	ws        *workspace
	wsID      string
	teamID    string // "" for the whole workspace
}

type supervisorSession struct {
	sup       *supervisor
	expiresAt time.Time
}

// supervisorStore holds links, sessions and the supervisors' push subscriptions. Its lock is
// taken after a workspace's, never before one.
type supervisorStore struct {
	mu       sync.Mutex
	links    []*SupervisorLink      // in creation order, as SupervisorLinks lists them
	byToken  map[string]*supervisor // link token -> supervisor, while the link is unused
	sessions map[string]supervisorSession
	made     int // links made, for supervisor ids that leave the workspaces' id sequence alone
}

func (st *supervisorStore) reset() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.links, st.byToken, st.sessions = nil, nil, nil // made goes on, so ids after a Reset differ from ids before
}

// InviteSupervisor makes a single-use supervisor link and records it (SupervisorLinks). The
// link is good for 7 days on the server's clock; redeeming it starts a 12-hour session. An
// unknown workspace or team is an error.
func (s *Server) InviteSupervisor(in SupervisorInvite) (SupervisorLink, error) {
	link, aerr := s.inviteSupervisor(in)
	if aerr != nil {
		return SupervisorLink{}, errors.New("mockserver: " + aerr.message)
	}
	return link, nil
}

func (s *Server) inviteSupervisor(in SupervisorInvite) (SupervisorLink, *apiError) {
	wsID := in.WorkspaceID
	if wsID == "" {
		wsID = s.WorkspaceID()
	}
	ws, aerr := s.workspaceByID(wsID)
	if aerr != nil {
		return SupervisorLink{}, notFoundf("workspace %s not found", wsID)
	}
	label := in.Label
	if label == "" {
		label = "Supervisor"
	}
	if len(label) > 128 || len(in.Email) > 256 {
		return SupervisorLink{}, validationf("label must have at most 128 characters and email at most 256")
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if in.TeamID != "" && ws.teams.find(in.TeamID) == nil {
		return SupervisorLink{}, notFoundf("team %s not found", in.TeamID)
	}
	now := s.clock.Now()
	st := &s.supervisors
	st.mu.Lock()
	defer st.mu.Unlock()
	st.made++
	sup := &supervisor{id: "sup_" + strconv.Itoa(st.made), label: label, ws: ws, wsID: wsID, teamID: in.TeamID}
	if in.Email != "" {
		email := in.Email
		sup.email = &email
	}
	link := &SupervisorLink{
		Token: "svl_" + rand.Text(), SupervisorID: sup.id, WorkspaceID: wsID, Label: label,
		Email: in.Email, TeamID: in.TeamID, CreatedAt: now, ExpiresAt: now.Add(supervisorLinkTTL),
	}
	if st.byToken == nil {
		st.byToken = map[string]*supervisor{}
	}
	st.byToken[link.Token] = sup
	st.links = append(st.links, link)
	return *link, nil
}

// SupervisorLinks returns every supervisor link made so far, oldest first, with RedeemedAt
// set on those used.
func (s *Server) SupervisorLinks() []SupervisorLink {
	st := &s.supervisors
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]SupervisorLink, len(st.links))
	for i, l := range st.links {
		out[i] = *l
	}
	return out
}

// redeem spends a link and opens a session. Every failure is the same answer, so a guesser
// learns nothing from it.
func (st *supervisorStore) redeem(token string, now time.Time) (string, supervisorSession, *apiError) {
	st.mu.Lock()
	defer st.mu.Unlock()
	spent := errorf(http.StatusBadRequest, CodeInvalidToken, "the link is invalid, used or expired; ask for a new one")
	sup, ok := st.byToken[token]
	if !ok {
		return "", supervisorSession{}, spent
	}
	i := slices.IndexFunc(st.links, func(l *SupervisorLink) bool { return l.Token == token })
	if i < 0 || !now.Before(st.links[i].ExpiresAt) {
		return "", supervisorSession{}, spent
	}
	delete(st.byToken, token)
	st.links[i].RedeemedAt = now
	sess := supervisorSession{sup: sup, expiresAt: now.Add(supervisorSessionTTL)}
	tok := "sv_" + rand.Text()
	if st.sessions == nil {
		st.sessions = map[string]supervisorSession{}
	}
	st.sessions[tok] = sess
	return tok, sess, nil
}

func (st *supervisorStore) lookup(token string, now time.Time) (supervisorSession, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	sess, ok := st.sessions[token]
	if ok && !now.Before(sess.expiresAt) {
		delete(st.sessions, token)
		return supervisorSession{}, false
	}
	return sess, ok
}

func (st *supervisorStore) logout(token string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.sessions, token)
}

func isSupervisorPlane(path string) bool {
	return strings.HasPrefix(path, BasePath+"/supervisor/") || strings.HasPrefix(path, BasePath+"/supervisor-auth/")
}

// newSupervisorRoutes binds the supervisor plane's operations to s; s is nil when only the
// table is wanted (Operations).
func newSupervisorRoutes(s *Server) []route {
	return []route{
		bind("supervisor.entry", prepSupervisorEntry),
		bind("supervisor.acceptInvite", s.prepAcceptSupervisorInvite),
		bind("supervisor.logout", s.prepSupervisorLogout),
		bind("supervisor.me", prepSupervisorMe),
		bind("supervisor.overview", prepSupervisorOverview),
		bind("supervisor.setPriority", prepSupervisorPriority),
		bind("supervisor.unpark", prepSupervisorUnpark),
		bind("supervisor.assign", prepSupervisorAssign),
		bind("supervisor.setAvailability", prepSupervisorAvailability),
		bind("supervisor.voiceIce", s.prepVoiceICE),
		bind("supervisor.pushConfig", s.prepPushConfig),
		bind("supervisor.pushSubscribe", s.prepSupervisorSubscribe),
		bind("supervisor.pushUnsubscribe", s.prepSupervisorUnsubscribe),
	}
}

// handleSupervisorPlane is handle for supervisor-plane paths: the session decides the
// workspace, and every operation runs as that supervisor. Entry and accept need no token.
// An API key or a worker token is not a supervisor token: 401, as any unknown token.
func (s *Server) handleSupervisorPlane(r *http.Request) (response, []byte) {
	rt, params, rerr := findRoute(&s.supervisorRoutes, r.Method, r.URL)
	req := &request{method: r.Method, path: r.URL.Path, params: params, query: r.URL.Query(), workerPlane: true, host: r.Host}
	var ws *workspace
	anonymous := rt.pattern == "/supervisor-auth/entry" || rt.pattern == "/supervisor-auth/accept"
	if rerr == nil && !anonymous {
		token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sess, ok := s.supervisors.lookup(token, s.clock.Now())
		if !ok {
			rerr = unauthorized("missing, invalid, expired or revoked supervisor token")
		} else {
			ws, req.supervisor, req.token = sess.sup.ws, sess.sup, token
		}
	}
	if rerr == nil && rt.hasBody {
		req.body, rerr = readBody(r)
	}
	if rerr == nil {
		rerr = s.checkRequest(rt, req)
	}
	var run op
	if rerr == nil {
		run, rerr = rt.prepare(req)
	}
	if rerr == nil && ws == nil {
		// Entry and accept run outside any workspace: the sandbox's lock serialises them
		// with nothing that matters, and accept finds the workspace in the link.
		ws = s.sandbox()
		if req.supervisor != nil {
			ws = req.supervisor.ws
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

func (s *Server) sandbox() *workspace {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.workspaces[s.keys[0]]
}

func prepSupervisorEntry(*request) (op, *apiError) {
	return func(*workspace, time.Time) (int, any, *apiError) {
		// The platform points at its console; the mock has none, which the platform
		// answers as null.
		return http.StatusOK, map[string]any{"consoleUrl": nil}, nil
	}, nil
}

// supervisorSessionAnswer is the platform's SupervisorSession; expiresAt is epoch milliseconds, unlike
// the worker plane's ISO strings.
type supervisorSessionAnswer struct {
	Token       string           `json:"token"`
	ExpiresAt   int64            `json:"expiresAt"`
	Supervisor  supervisorAnswer `json:"supervisor"`
	WorkspaceID string           `json:"workspaceId"`
}

type supervisorAnswer struct {
	ID     string  `json:"id"`
	Label  string  `json:"label"`
	Email  *string `json:"email"`
	TeamID *string `json:"teamId"`
}

func (s *Server) prepAcceptSupervisorInvite(r *request) (op, *apiError) {
	var b struct {
		Token string `json:"token"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	token := b.Token
	// The link names the workspace; exec must lock that one, so it is resolved here.
	now := s.clock.Now()
	tok, sess, aerr := s.supervisors.redeem(token, now)
	if aerr != nil {
		return nil, aerr
	}
	r.supervisor = sess.sup
	return func(*workspace, time.Time) (int, any, *apiError) {
		sup := sess.sup
		out := supervisorSessionAnswer{Token: tok, ExpiresAt: sess.expiresAt.UnixMilli(), WorkspaceID: sup.wsID,
			Supervisor: supervisorAnswer{ID: sup.id, Label: sup.label, Email: sup.email}}
		if sup.teamID != "" {
			id := sup.teamID
			out.Supervisor.TeamID = &id
		}
		return http.StatusOK, out, nil
	}, nil
}

func (s *Server) prepSupervisorLogout(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		// The supervisor's push subscriptions end with the session, as on the platform: a
		// phone handed over must stop receiving this crew's alerts.
		s.supervisors.logout(r.token)
		s.push.removeOwner(ws, "supervisor", r.supervisor.id)
		return http.StatusNoContent, nil, nil
	}, nil
}

// scope is what a supervisor may see and act on: the whole workspace, or one team's
// members and the tasks addressed to that team.
type scope struct {
	whole   bool
	teamKey *string
	members map[string]bool
	teamTag string
	teamID  string
}

// scopeOf reads the supervisor's team under the workspace lock. A team removed since the
// link was made leaves an empty scope: nothing is in it.
func scopeOf(ws *workspace, sup *supervisor) scope {
	if sup.teamID == "" {
		return scope{whole: true}
	}
	sc := scope{members: map[string]bool{}, teamID: sup.teamID}
	if t := ws.teams.find(sup.teamID); t != nil {
		key := t.key
		sc.teamKey, sc.teamTag = &key, teamTagPrefix+t.key
		for _, m := range t.members {
			sc.members[m.workerID] = true
		}
	}
	return sc
}

func (sc scope) hasWorker(id string) bool { return sc.whole || sc.members[id] }

// hasTask: a task is a team's when it carries the team's routing tag or names the team in
// teamId.
func (sc scope) hasTask(tags []string, extra any) bool {
	if sc.whole {
		return true
	}
	if sc.teamTag != "" && slices.Contains(tags, sc.teamTag) {
		return true
	}
	if x, ok := extra.(*taskExtra); ok && sc.teamKey != nil {
		// Compared decoded: "team\u005fx" names team_x, as it did when the task was routed.
		var id string
		if raw, ok := x.others["teamId"]; ok && json.Unmarshal(raw, &id) == nil && id == sc.teamID {
			return true
		}
	}
	return false
}

func forbiddenf(format string, args ...any) *apiError {
	return errorf(http.StatusForbidden, CodeForbidden, format, args...)
}

type supervisorMeAnswer struct {
	SupervisorID string  `json:"supervisorId"`
	Label        string  `json:"label"`
	Email        *string `json:"email"`
	WorkspaceID  string  `json:"workspaceId"`
	TeamKey      *string `json:"teamKey"`
}

func prepSupervisorMe(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		sup := r.supervisor
		return http.StatusOK, supervisorMeAnswer{
			SupervisorID: sup.id, Label: sup.label, Email: sup.email, WorkspaceID: sup.wsID,
			TeamKey: scopeOf(ws, sup).teamKey,
		}, nil
	}, nil
}

// adminInviteSupervisor is POST /_mock/supervisor-links: InviteSupervisor for tests in any
// language. The body is a SupervisorInvite ({} for a whole-workspace supervisor of the
// sandbox); the answer is the SupervisorLink, token included.
func (s *Server) adminInviteSupervisor(r *http.Request) (any, *apiError) {
	var in SupervisorInvite
	if aerr := decodeAdmin(r, &in); aerr != nil {
		return nil, aerr
	}
	link, aerr := s.inviteSupervisor(in)
	if aerr != nil {
		return nil, aerr
	}
	return link, nil
}
