package mockserver

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// Onboarding (docs/contract.md, "Onboarding"): identities listed, invited and updated from the
// workspace plane, the invite accepted and the join link used from the worker plane. Invite and
// link tokens are kept only as hashes; the invites the server "sends" are kept in the outbox
// (Server.Outbox) so a test can read the token a worker would receive by email.

// Codes of onboarding.
const (
	CodeApprovalPending   = "approval_pending"
	CodeInvalidToken      = "invalid_token"
	CodeInvalidCurrentPIN = "invalid_current_pin"
	CodeIdentityExists    = "identity_exists"
)

// inviteTTL is how long an emailed invite can be accepted; defaultJoinLinkTTL how long a join
// link works when created without expiresInMs (both decided here: docs/contract.md).
const (
	inviteTTL          = 7 * 24 * time.Hour
	defaultJoinLinkTTL = 30 * 24 * time.Hour
)

// Mail is an invite the server sent, as a test reads it from Server.Outbox instead of a
// mailbox: Token is what the worker passes to POST /worker-auth/accept-invite.
type Mail struct {
	Kind     string // "invite"
	To       string // the address
	WorkerID string
	Token    string
	URL      string // the link in the mail, carrying Token
	At       time.Time
}

// onboardingStore is a workspace's onboarding state. Guarded by the workspace's lock; the zero
// value is empty and usable.
type onboardingStore struct {
	outbox     []Mail
	links      []*joinLink          // creation order, the order joinLinks.list answers in
	lastFix    map[string]time.Time // worker -> last location update, for the rate limit
	linkTokens map[[32]byte]*joinLink
}

func hashToken(t string) [32]byte { return sha256.Sum256([]byte("taskrouting-mock-token\x00" + t)) }

// Outbox returns the invites sent by every workspace, oldest first per workspace.
func (s *Server) Outbox() []Mail {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Mail
	for _, k := range s.keys {
		ws := s.workspaces[k]
		ws.mu.Lock()
		out = append(out, ws.onboard.outbox...)
		ws.mu.Unlock()
	}
	return out
}

// adminOutbox is GET /_mock/outbox: the invites sent, for tests in any language.
func (s *Server) adminOutbox() any {
	type mail struct {
		Kind     string `json:"kind"`
		To       string `json:"to"`
		WorkerID string `json:"workerId"`
		Token    string `json:"token"`
		URL      string `json:"url"`
		At       int64  `json:"at"`
	}
	out := []mail{}
	for _, m := range s.Outbox() {
		out = append(out, mail{m.Kind, m.To, m.WorkerID, m.Token, m.URL, m.At.UnixMilli()})
	}
	return map[string]any{"mail": out}
}

// signsIn reports the worker-plane paths called without a token.
func signsIn(pattern string) bool {
	switch pattern {
	case "/worker-auth/login", "/worker-auth/join", "/worker-auth/accept-invite":
		return true
	}
	return false
}

// workspaceByToken finds the workspace holding an invite or a join link token. Every miss is
// the same 400 invalid_token, as for a used or expired token.
func (s *Server) workspaceByToken(token string) (*workspace, *apiError) {
	h := hashToken(token)
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, k := range s.keys {
		ws := s.workspaces[k]
		ws.mu.Lock()
		held := ws.onboard.linkTokens[h] != nil || slices.ContainsFunc(mapValues(ws.identities), func(id *identity) bool { return id.inviteHash == h })
		ws.mu.Unlock()
		if held {
			return ws, nil
		}
	}
	return nil, invalidToken()
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func invalidToken() *apiError {
	return errorf(http.StatusBadRequest, CodeInvalidToken, "the token is unknown, used, expired or revoked")
}

// sessionAnswer is WorkerSessionToken, and with the other members set JoinWorkspaceResult and
// AcceptWorkerInviteResult.
type sessionAnswer struct {
	Token           string  `json:"token"`
	ExpiresAt       string  `json:"expiresAt"`
	WorkspaceID     string  `json:"workspaceId,omitempty"`
	WorkerID        string  `json:"workerId,omitempty"`
	Label           *string `json:"label,omitempty"`
	PendingApproval *bool   `json:"pendingApproval,omitempty"`
	PortalURL       string  `json:"portalUrl,omitempty"`
}

func newSessionAnswer(ws *workspace, workerID, family string, now time.Time) sessionAnswer {
	token, expires := ws.sessions.issue(ws, workerID, family, now)
	return sessionAnswer{Token: token, ExpiresAt: isoTime(expires)}
}

func portalURL(origin string, ws *workspace) string {
	return origin + "/portal/" + url.PathEscape(ws.id) + "/"
}

// identityJSON is PublicWorkerIdentity: never the PIN, only whether one is set.
func identityJSON(workerID string, id *identity) wireIdentity {
	out := wireIdentity{
		ID: id.id, WorkerID: workerID, Status: id.status, Email: id.email,
		HasPIN: id.hasPIN, CreatedAt: isoTime(id.createdAt),
	}
	if id.label != nil {
		out.Label = *id.label
	}
	if !id.activatedAt.IsZero() {
		t := isoTime(id.activatedAt)
		out.ActivatedAt = &t
	}
	if !id.revokedAt.IsZero() {
		t := isoTime(id.revokedAt)
		out.RevokedAt = &t
	}
	return out
}

// sortedIdentities lists a workspace's sign-ins in creation order.
func (ws *workspace) sortedIdentities() []wireIdentity {
	type entry struct {
		worker string
		id     *identity
	}
	var all []entry
	for w, id := range ws.identities {
		all = append(all, entry{w, id})
	}
	slices.SortFunc(all, func(a, b entry) int { return a.id.seq - b.id.seq })
	out := make([]wireIdentity, 0, len(all))
	for _, e := range all {
		out = append(out, identityJSON(e.worker, e.id))
	}
	return out
}

func prepListIdentities(*request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		return http.StatusOK, map[string]any{"identities": ws.sortedIdentities()}, nil
	}, nil
}

type inviteAnswer struct {
	Identity      wireIdentity `json:"identity"`
	WorkerCreated bool         `json:"workerCreated"`
	EmailStatus   string       `json:"emailStatus"`
	InviteURL     string       `json:"inviteUrl"`
}

// sendInvite gives the identity a fresh invite token (any earlier one stops working), records
// the mail and returns the answer.
func (ws *workspace) sendInvite(r *request, workerID string, id *identity, created bool, now time.Time) inviteAnswer {
	token := "inv_" + rand.Text()
	id.inviteHash, id.inviteExpires = hashToken(token), now.Add(inviteTTL)
	link := r.origin() + BasePath + "/worker-auth/invite?token=" + url.QueryEscape(token)
	ws.onboard.outbox = append(ws.onboard.outbox, Mail{Kind: "invite", To: *id.email, WorkerID: workerID, Token: token, URL: link, At: now})
	// The platform hands the link back too: with no mailer it is the only way to deliver it.
	return inviteAnswer{Identity: identityJSON(workerID, id), WorkerCreated: created, EmailStatus: "sent", InviteURL: link}
}

// prepInvite is POST /worker-identities/invite: a sign-in without a PIN, for a worker created
// here when it does not exist, and an invite mailed to the address.
func prepInvite(r *request) (op, *apiError) {
	var in struct {
		Email    string          `json:"email"`
		WorkerID string          `json:"workerId"`
		Label    string          `json:"label"`
		Tags     []string        `json:"tags"`
		Skills   json.RawMessage `json:"skills"`
		TeamIDs  []string        `json:"teamIds"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	if in.WorkerID != "" {
		if err := checkID("body/workerId", in.WorkerID); err != nil {
			return nil, err
		}
	}
	if in.Label == "" {
		in.Label = in.Email
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		for w, other := range ws.identities {
			if w != in.WorkerID && other.email != nil && *other.email == in.Email {
				return 0, nil, conflictf(CodeIdentityExists, "another worker's sign-in has this email")
			}
		}
		if in.WorkerID == "" {
			in.WorkerID = ws.newID("w_")
		}
		if old := ws.identities[in.WorkerID]; old != nil && old.hasPIN {
			return 0, nil, conflictf(CodeIdentityExists, "worker %s already has a sign-in with a PIN", in.WorkerID)
		}
		_, lookErr := ws.engine.Worker(in.WorkerID)
		created := lookErr != nil
		if aerr := ws.applyJoinProfile(now, in.WorkerID, !created, in.Tags, in.Skills, in.TeamIDs); aerr != nil {
			return 0, nil, aerr
		}
		id := &identity{id: ws.newID("wid_"), label: &in.Label, email: &in.Email, status: "active", createdAt: now}
		if old := ws.identities[in.WorkerID]; old != nil {
			id.id, id.seq, id.createdAt = old.id, old.seq, old.createdAt // a re-invite keeps the sign-in
		} else {
			ws.identitySeq++
			id.seq = ws.identitySeq
		}
		if ws.identities == nil {
			ws.identities = map[string]*identity{}
		}
		ws.identities[in.WorkerID] = id
		return http.StatusOK, ws.sendInvite(r, in.WorkerID, id, created, now), nil
	}, nil
}

// applyJoinProfile creates the worker, or patches one that exists, with what an invite or a
// join link carries; nothing given leaves an existing worker as it is.
func (ws *workspace) applyJoinProfile(now time.Time, workerID string, exists bool, tags []string, skills json.RawMessage, teamIDs []string) *apiError {
	x := &workerExtra{teamIDs: teamIDs}
	if len(skills) > 0 && !isNull(skills) {
		x.skills = compact(skills)
	}
	if exists && tags == nil && x.skills == nil && teamIDs == nil {
		return nil
	}
	in := match.WorkerInput{ID: workerID, Tags: tags, Extra: x}
	_, _, aerr := ws.writeWorker(now, in, exists)
	return aerr
}

// prepResendInvite is POST /worker-identities/{workerId}/invite/resend: a new token for a
// sign-in still waiting for its PIN; the old token stops working.
func prepResendInvite(r *request) (op, *apiError) {
	workerID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		id := ws.identities[workerID]
		if id == nil {
			return 0, nil, notFoundf("worker %s has no sign-in", workerID)
		}
		if id.hasPIN || id.email == nil || id.status != "active" {
			return 0, nil, conflictf(CodeInvalidState, "worker %s has no invite waiting to be accepted", workerID)
		}
		return http.StatusOK, ws.sendInvite(r, workerID, id, false, now), nil
	}, nil
}

// prepUpdateIdentity is PATCH /workers/{workerId}/identity. Revoking ends every session of the
// worker; a new PIN leaves them alone, as identities.create does.
func prepUpdateIdentity(r *request) (op, *apiError) {
	var in struct {
		Label  *string         `json:"label"`
		Email  json.RawMessage `json:"email"` // absent: keep; null: erase
		PIN    *string         `json:"pin"`
		Status *string         `json:"status"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	emailGiven := in.Email != nil
	var email *string
	if emailGiven && !isNull(in.Email) {
		var e string
		_ = json.Unmarshal(in.Email, &e) // a string: the schema says so
		email = &e
	}
	workerID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		id := ws.identities[workerID]
		if id == nil {
			return 0, nil, notFoundf("worker %s has no sign-in", workerID)
		}
		if in.Label != nil {
			id.label = in.Label
		}
		if emailGiven {
			id.email = email
		}
		if in.PIN != nil {
			id.pinHash, id.inviteHash = hashPIN(*in.PIN), [32]byte{}
			if !id.hasPIN {
				id.hasPIN, id.activatedAt = true, now
			}
		}
		if in.Status != nil && *in.Status != id.status {
			id.status = *in.Status
			if id.status == "revoked" {
				id.revokedAt, id.inviteHash = now, [32]byte{}
				ws.sessions.revokeWorker(ws, workerID, "")
			} else {
				id.revokedAt = time.Time{}
			}
		}
		return http.StatusOK, identityAnswer{Identity: identityJSON(workerID, id)}, nil
	}, nil
}

// prepAcceptInvite is POST /worker-auth/accept-invite: the invite's token (single use) and the
// worker's new PIN; the answer signs them in.
func prepAcceptInvite(r *request) (op, *apiError) {
	var in struct {
		Token string `json:"token"`
		PIN   string `json:"pin"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	r.linkToken = in.Token
	h := hashToken(in.Token)
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		for workerID, id := range ws.identities {
			if id.inviteHash != h {
				continue
			}
			if !now.Before(id.inviteExpires) || id.status != "active" {
				return 0, nil, invalidToken()
			}
			id.inviteHash, id.pinHash, id.hasPIN, id.activatedAt = [32]byte{}, hashPIN(in.PIN), true, now
			out := newSessionAnswer(ws, workerID, "", now)
			out.WorkspaceID, out.WorkerID, out.Label, out.PortalURL = ws.id, workerID, id.label, portalURL(r.origin(), ws)
			return http.StatusOK, out, nil
		}
		return 0, nil, invalidToken()
	}, nil
}

// prepPortal is GET /portal. The mock publishes no portal bundle, which the platform answers
// as exists: false, a normal state.
func prepPortal(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		return http.StatusOK, map[string]any{
			"portalEnabled": true, "portalUrl": portalURL(r.origin(), ws), "exists": false,
			"version": nil, "template": nil, "publishedAt": nil,
		}, nil
	}, nil
}
