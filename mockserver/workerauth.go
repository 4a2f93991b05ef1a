package mockserver

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"sync"
	"time"
)

// Worker sign-in for the worker plane: identities (PIN hashes) per workspace, the server's
// token table, and the login, logout and identity operations.

// identity is a worker's sign-in. Only hashes of the PIN and of an open invite's token are
// kept, so a dump of the server's state in a failing test never shows either.
type identity struct {
	id          string
	seq         int // creation order, the order identities.list answers in
	pinHash     [32]byte
	hasPIN      bool
	label       *string
	email       *string
	status      string // "active" or "revoked"
	createdAt   time.Time
	activatedAt time.Time // zero until a PIN is set
	revokedAt   time.Time // zero unless revoked
	// skillsChosen: the worker has set its own skills (PUT /portal/me/skills), which
	// answers skillSetupPending even with an empty set.
	skillsChosen bool
	// An emailed invite still to be accepted (identities.invite); zero hash: none.
	inviteHash    [32]byte
	inviteExpires time.Time
	// pendingApproval: joined by a link that asks for approval; no shift until admitted.
	pendingApproval bool
}

// session is what a worker token stands for. A refresh makes a new token of the same family;
// logout ends the whole family, so a token rotated a moment ago cannot outlive its sign-in.
type session struct {
	ws       *workspace
	workerID string
	family   string
	expires  time.Time
}

// DefaultWorkerSessionTTL is how long a worker token lives when WithWorkerSessionTTL is not
// given (docs/contract.md, "Worker sessions").
const DefaultWorkerSessionTTL = 12 * time.Hour

// refreshGrace is how long the token a refresh replaced keeps working, so a call already in
// flight with it does not fail (docs/contract.md, "Worker sessions").
const refreshGrace = time.Minute

// sessions maps tokens to workers. It has its own lock, always taken after a workspace's,
// never before one.
type sessions struct {
	mu     sync.Mutex
	ttl    time.Duration
	tokens map[string]session
}

// issue makes a token for a new sign-in (family "") or a refresh of family.
func (ss *sessions) issue(ws *workspace, workerID, family string, now time.Time) (token string, expires time.Time) {
	token = "wt_" + rand.Text()
	if family == "" {
		family = "sf_" + rand.Text()
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.tokens == nil {
		ss.tokens = map[string]session{}
	}
	ttl := ss.ttl
	if ttl <= 0 {
		ttl = DefaultWorkerSessionTTL
	}
	expires = now.Add(ttl)
	ss.tokens[token] = session{ws: ws, workerID: workerID, family: family, expires: expires}
	return token, expires
}

// lookup finds a live token; an expired one is dropped.
func (ss *sessions) lookup(token string, now time.Time) (session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.tokens[token]
	if ok && !now.Before(s.expires) {
		delete(ss.tokens, token)
		return session{}, false
	}
	return s, ok
}

// retire lets a token that a refresh replaced live on for the grace period at most.
func (ss *sessions) retire(token string, now time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s, ok := ss.tokens[token]; ok && now.Add(refreshGrace).Before(s.expires) {
		s.expires = now.Add(refreshGrace)
		ss.tokens[token] = s
	}
}

// revoke ends the sign-in token belongs to: the token and every token of its family.
func (ss *sessions) revoke(token string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.tokens[token]
	if !ok {
		return
	}
	for t, o := range ss.tokens {
		if o.family == s.family {
			delete(ss.tokens, t)
		}
	}
}

// revokeWorker ends every session of one worker (its sign-in was removed or revoked), or all
// but the family keep (its PIN was changed from that session).
func (ss *sessions) revokeWorker(ws *workspace, workerID, keep string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for t, s := range ss.tokens {
		if s.ws == ws && s.workerID == workerID && (keep == "" || s.family != keep) {
			delete(ss.tokens, t)
		}
	}
}

func (ss *sessions) reset() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.tokens = nil
}

// family names the sign-in a live token belongs to, "" when none.
func (ss *sessions) family(token string) string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.tokens[token].family
}

func hashPIN(pin string) [32]byte { return sha256.Sum256([]byte("taskrouting-mock-pin\x00" + pin)) }

// prepSetIdentity is POST /workers/{id}/identity (workspace plane).
func prepSetIdentity(r *request) (op, *apiError) {
	var b struct {
		Label string  `json:"label"`
		PIN   string  `json:"pin"`
		Email *string `json:"email"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	label := b.Label
	id := identity{pinHash: hashPIN(b.PIN), label: &label, email: b.Email}
	workerID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if _, err := ws.engine.Worker(workerID); err != nil {
			return 0, nil, matchError(err)
		}
		if ws.identities == nil {
			ws.identities = map[string]*identity{}
		}
		id.id, id.createdAt, id.activatedAt, id.status, id.hasPIN = ws.newID("wid_"), now, now, "active", true
		ws.identitySeq++
		id.seq = ws.identitySeq
		ws.identities[workerID] = &id
		return http.StatusOK, identityAnswer{Identity: identityJSON(workerID, &id)}, nil
	}, nil
}

type identityAnswer struct {
	Identity wireIdentity `json:"identity"`
}

// wireIdentity is the platform's worker identity. A PIN sign-in is active from the moment it
// is set, so activatedAt equals createdAt; revokedAt stays null until removal.
type wireIdentity struct {
	ID          string  `json:"id"`
	WorkerID    string  `json:"workerId"`
	Label       string  `json:"label"`
	Status      string  `json:"status"`
	Email       *string `json:"email"`
	HasPIN      bool    `json:"hasPin"`
	ActivatedAt *string `json:"activatedAt"`
	CreatedAt   string  `json:"createdAt"`
	RevokedAt   *string `json:"revokedAt"`
}

// prepRemoveIdentity is DELETE /workers/{id}/identity: the sign-in and every session made with
// it end; the worker stays routable.
func prepRemoveIdentity(r *request) (op, *apiError) {
	workerID := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		if _, ok := ws.identities[workerID]; !ok {
			return 0, nil, notFoundf("worker %s has no sign-in", workerID)
		}
		delete(ws.identities, workerID)
		ws.sessions.revokeWorker(ws, workerID, "")
		return http.StatusNoContent, nil, nil
	}, nil
}

func prepLogin(r *request) (op, *apiError) {
	var b struct {
		WorkspaceID string `json:"workspaceId"`
		WorkerID    string `json:"workerId"`
		PIN         string `json:"pin"`
	}
	if err := decodeBody(r.body, &b); err != nil {
		return nil, err
	}
	r.loginWorkspace = b.WorkspaceID
	workerID, pin := b.WorkerID, b.PIN
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		id, ok := ws.identities[workerID]
		h := hashPIN(pin)
		// One answer for every failure (no sign-in, no PIN yet, revoked, wrong PIN), so the
		// endpoint does not tell which part was wrong.
		if !ok || !id.hasPIN || id.status != "active" || subtle.ConstantTimeCompare(h[:], id.pinHash[:]) != 1 {
			return 0, nil, errorf(http.StatusUnauthorized, CodeInvalidCredentials, "invalid workspace, worker or PIN")
		}
		return http.StatusOK, newSessionAnswer(ws, workerID, "", now), nil
	}, nil
}

func prepLogout(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		ws.sessions.revoke(r.token)
		return http.StatusNoContent, nil, nil
	}, nil
}
