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

// identity is a worker's sign-in. Only a hash of the PIN is kept, so a dump of the server's
// state in a failing test never shows it.
type identity struct {
	id        string
	pinHash   [32]byte
	label     *string
	email     *string
	createdAt time.Time
}

// session is what a worker token stands for.
type session struct {
	ws       *workspace
	workerID string
}

// sessions maps tokens to workers. It has its own lock, always taken after a workspace's,
// never before one.
type sessions struct {
	mu     sync.Mutex
	tokens map[string]session
}

func (ss *sessions) issue(ws *workspace, workerID string) string {
	token := "wt_" + rand.Text()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.tokens == nil {
		ss.tokens = map[string]session{}
	}
	ss.tokens[token] = session{ws: ws, workerID: workerID}
	return token
}

func (ss *sessions) lookup(token string) (session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.tokens[token]
	return s, ok
}

func (ss *sessions) revoke(token string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.tokens, token)
}

// revokeWorker ends every session of one worker, when its sign-in is removed.
func (ss *sessions) revokeWorker(ws *workspace, workerID string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for t, s := range ss.tokens {
		if s.ws == ws && s.workerID == workerID {
			delete(ss.tokens, t)
		}
	}
}

func (ss *sessions) reset() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.tokens = nil
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
			ws.identities = map[string]identity{}
		}
		id.id, id.createdAt = ws.newID("wid_"), now
		ws.identities[workerID] = id
		created := isoTime(now)
		return http.StatusOK, identityAnswer{Identity: wireIdentity{
			ID: id.id, WorkerID: workerID, Label: label, Status: "active", Email: id.email,
			HasPIN: true, ActivatedAt: &created, CreatedAt: created,
		}}, nil
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
		ws.sessions.revokeWorker(ws, workerID)
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
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		id, ok := ws.identities[workerID]
		h := hashPIN(pin)
		// One answer for every failure, so the endpoint does not tell which part was wrong.
		if !ok || subtle.ConstantTimeCompare(h[:], id.pinHash[:]) != 1 {
			return 0, nil, errorf(http.StatusUnauthorized, CodeInvalidCredentials, "invalid workspace, worker or PIN")
		}
		return http.StatusOK, map[string]string{"token": ws.sessions.issue(ws, workerID)}, nil
	}, nil
}

func prepLogout(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		ws.sessions.revoke(r.token)
		return http.StatusNoContent, nil, nil
	}, nil
}
