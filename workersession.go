package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"time"
)

// A worker session is a wt_ token with an expiry. Login, Join and
// AcceptInvite start one; Refresh rotates it; a WorkerClient refreshes it on
// its own once less than a fifth of its lifetime is left, before the next
// call that uses it; Resume adopts one saved earlier.

// WorkerSession is the session a WorkerClient holds. Its token is reachable
// only through Token, and never printed: String, GoString, LogValue and
// every fmt verb leave it out. Save it as you would a password.
type WorkerSession struct {
	WorkerID  string
	ExpiresAt time.Time // zero when the server did not say
	// token is a function, which fmt prints as an address, so a session in
	// a caller's unexported field (where Format is not reached) still
	// prints no secret.
	token func() string
}

// Token returns the session's bearer token, to save for Resume; "" when
// signed out.
func (s WorkerSession) Token() string {
	if s.token == nil {
		return ""
	}
	return s.token()
}

func sessionOfToken(workerID, token string, expiresAt time.Time) WorkerSession {
	if token == "" {
		return WorkerSession{}
	}
	return WorkerSession{WorkerID: workerID, ExpiresAt: expiresAt, token: func() string { return token }}
}

// String describes the session without its token.
func (s WorkerSession) String() string {
	return fmt.Sprintf("{WorkerID:%q ExpiresAt:%s Token:[redacted]}", s.WorkerID, s.ExpiresAt.Format(time.RFC3339))
}

// GoString describes the session for %#v without its token.
func (s WorkerSession) GoString() string { return "taskrouting.WorkerSession" + s.String() }

// LogValue lets the session be logged with slog without its token.
func (s WorkerSession) LogValue() slog.Value {
	return slog.GroupValue(slog.String("workerId", s.WorkerID), slog.Time("expiresAt", s.ExpiresAt), slog.String("token", "[redacted]"))
}

// Format prints the session without its token, whatever the verb.
func (s WorkerSession) Format(f fmt.State, verb rune) { formatSafe(f, verb, s.String(), s.GoString()) }

// WithClock sets the clock a WorkerClient reads to tell when its session
// is due for a refresh; client only. The default is time.Now. Tests against
// the mock server pass its manual clock's Now. Nothing else reads it:
// timeouts, retry waits and Retry-After run on real time, and NewClient and
// NewSupervisorClient accept it without using it.
//
// Three packages have a WithClock, each for its own clock: this one is a
// worker client's session clock; webhook.WithClock is the clock a Verifier
// checks a delivery's signature age against; mockserver.WithClock is the
// mock server's own clock, which matching, expiries and the signatures of
// its deliveries run on. A test on a manual clock usually sets all three to
// it.
func WithClock(now func() time.Time) RequestOption {
	return func(o *config) error {
		if err := o.clientOnly("WithClock"); err != nil {
			return err
		}
		if now == nil {
			return &ParamError{Param: "WithClock", Problem: "must not be nil"}
		}
		o.now = now
		return nil
	}
}

func (w *WorkerClient) now() time.Time {
	if w.c.cfg.now != nil {
		return w.c.cfg.now()
	}
	return time.Now()
}

// sessionWire is the platform's WorkerSessionToken, and the session part
// of the join and accept-invite answers.
type sessionWire struct {
	Token     string   `json:"token"`
	ExpiresAt wireTime `json:"expiresAt"`
}

// usableToken refuses a token that cannot go into a header (empty, or with
// spaces or control characters), without echoing it.
func usableToken(token string) bool {
	return token != "" && !strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

// adopt makes the session the client's own.
func (w *WorkerClient) adopt(token, workerID string, expiresAt time.Time) *WorkerSession {
	cr := w.c.creds
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.secret = func() string { return token }
	cr.workerID, cr.issuedAt, cr.expiresAt = workerID, w.now(), expiresAt
	s := sessionOfToken(workerID, token, expiresAt)
	return &s
}

// Session returns the session the client holds; the zero value when signed
// out.
func (w *WorkerClient) Session() WorkerSession {
	cr := w.c.creds
	cr.mu.RLock()
	defer cr.mu.RUnlock()
	return sessionOfToken(cr.workerID, cr.current(), cr.expiresAt)
}

// Resume adopts a session saved from an earlier client (Session, then
// Token), without a request. expiresAt may be zero when unknown; the client
// then does not refresh on its own. A token the server no longer accepts
// shows as ErrUnauthorized on the next call.
func (w *WorkerClient) Resume(workerID, token string, expiresAt time.Time) error {
	if err := checkID("workerID", workerID); err != nil {
		return err
	}
	if !usableToken(token) {
		return &ParamError{Param: "token", Problem: "must be a non-empty token without spaces"}
	}
	w.adopt(token, workerID, expiresAt)
	return nil
}

// Refresh rotates the session token: the server answers a new token with a
// new expiry, which the client adopts. It reports false, with a nil error,
// when there is nothing to refresh (signed out) or when the server answers
// 4xx: the session is over and the worker must sign in again (the old token
// stays in place until then). Any other failure (429 after the client's
// retries, 5xx, network) is returned and leaves the current token usable
// for the caller's own retry.
//
// API: worker.refresh, POST /worker-auth/refresh
func (w *WorkerClient) Refresh(ctx context.Context, opts ...RequestOption) (bool, error) {
	token, workerID := w.c.creds.session()
	if token == "" {
		return false, nil
	}
	var out sessionWire
	if err := w.c.call(ctx, "POST", "/worker-auth/refresh", nil, nil, &out, withOwn(opts, withBearer(token))); err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 && apiErr.StatusCode != http.StatusTooManyRequests {
			return false, nil
		}
		return false, err
	}
	if !usableToken(out.Token) {
		return false, errors.New("taskrouting: POST /worker-auth/refresh: the answer carried no usable token")
	}
	cr := w.c.creds
	cr.mu.Lock()
	defer cr.mu.Unlock()
	// A Login or Logout meanwhile wins over the rotation of the old session.
	if cr.current() == token && cr.workerID == workerID {
		cr.secret = func() string { return out.Token }
		cr.issuedAt, cr.expiresAt = w.now(), out.ExpiresAt.t
	}
	return true, nil
}

// refreshIfDue refreshes the session, once, when less than a fifth of its
// lifetime is left and it has not yet expired. Failures are left to the
// call that follows: a dead session shows there as ErrUnauthorized, and a
// server error leaves the current token in use.
func (w *WorkerClient) refreshIfDue(ctx context.Context) {
	w.refreshMu.Lock()
	defer w.refreshMu.Unlock()
	cr := w.c.creds
	cr.mu.RLock()
	token, issued, expires := cr.current(), cr.issuedAt, cr.expiresAt
	cr.mu.RUnlock()
	if token == "" || expires.IsZero() || !expires.After(issued) {
		return
	}
	now := w.now()
	if now.Before(expires.Add(-expires.Sub(issued)/5)) || !now.Before(expires) {
		return
	}
	_, _ = w.Refresh(ctx)
}

// JoinParams is the body of POST /worker-auth/join: the token of a join
// link (LinkToken reads it from the link's URL), the name the worker is
// shown by, their new PIN and an optional email. The token and the PIN are
// Secrets: they never appear in an error, a printed or logged value or JSON.
type JoinParams struct {
	Token Secret `json:"token"`
	Name  string `json:"name"`
	PIN   Secret `json:"pin"`             // 4-256 characters
	Email string `json:"email,omitempty"` // a bare address
}

// String describes the parameters without the token and the PIN.
func (p JoinParams) String() string {
	return fmt.Sprintf("{Token:[redacted] Name:%q PIN:[redacted] Email:%q}", p.Name, p.Email)
}

// GoString describes the parameters for %#v without the token and the PIN.
func (p JoinParams) GoString() string { return "taskrouting.JoinParams" + p.String() }

// LogValue lets the parameters be logged with slog without the secrets.
func (p JoinParams) LogValue() slog.Value {
	return slog.GroupValue(slog.String("token", "[redacted]"), slog.String("name", p.Name), slog.String("pin", "[redacted]"), slog.String("email", p.Email))
}

// Format prints the parameters without the secrets, whatever the verb.
func (p JoinParams) Format(f fmt.State, verb rune) { formatSafe(f, verb, p.String(), p.GoString()) }

// AcceptInviteParams is the body of POST /worker-auth/accept-invite: the
// emailed invite's token (LinkToken reads it from the invite URL) and the
// worker's new PIN, both Secrets. Neither is ever printed.
type AcceptInviteParams struct {
	Token Secret `json:"token"`
	PIN   Secret `json:"pin"` // 4-256 characters
}

// String describes the parameters without the token and the PIN.
func (p AcceptInviteParams) String() string { return "{Token:[redacted] PIN:[redacted]}" }

// GoString describes the parameters for %#v without the token and the PIN.
func (p AcceptInviteParams) GoString() string { return "taskrouting.AcceptInviteParams" + p.String() }

// LogValue lets the parameters be logged with slog without the secrets.
func (p AcceptInviteParams) LogValue() slog.Value {
	return slog.GroupValue(slog.String("token", "[redacted]"), slog.String("pin", "[redacted]"))
}

// Format prints the parameters without the secrets, whatever the verb.
func (p AcceptInviteParams) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, p.String(), p.GoString())
}

// JoinedWorker is the answer of Join and AcceptInvite, without the session
// token (the client has adopted it; see Session).
type JoinedWorker struct {
	WorkspaceID string
	// WorkerID is the worker's id, made by the server on Join: show it to
	// the worker, it is what they sign in with next time.
	WorkerID string
	Label    string
	// PendingApproval is true when the join link asks an operator to admit
	// the worker first; until then SetAvailability(true) is ErrApprovalPending.
	PendingApproval bool
	PortalURL       string
	ExpiresAt       time.Time // the session's expiry; zero when the server did not say
}

type joinedWire struct {
	sessionWire
	WorkspaceID     string `json:"workspaceId"`
	WorkerID        string `json:"workerId"`
	Label           string `json:"label"`
	PendingApproval bool   `json:"pendingApproval"`
	PortalURL       string `json:"portalUrl"`
}

// Join joins a workspace with a join link as a new worker, and signs in:
// the client adopts the session and the server-made worker id. It is sent
// without a token. A link that is unknown, revoked, expired or used up is a
// 400 matching ErrInvalidToken.
//
// API: worker.join, POST /worker-auth/join
func (w *WorkerClient) Join(ctx context.Context, p JoinParams, opts ...RequestOption) (*JoinedWorker, error) {
	if err := firstError(
		checkLen("JoinParams.Token", p.Token.Reveal(), 1, math.MaxInt), // no limit is published
		checkLen("JoinParams.Name", p.Name, 1, math.MaxInt),
		checkLen("JoinParams.PIN", p.PIN.Reveal(), 4, 256),
		checkEmail("JoinParams.Email", p.Email),
	); err != nil {
		return nil, err
	}
	return w.signInWith(ctx, "/worker-auth/join", p, withOwn(opts, withBearer(""), redacting(p.PIN.Reveal()), redacting(p.Token.Reveal())))
}

// AcceptInvite sets the PIN of an invited worker with the invite's token,
// which works once, and signs them in: the client adopts the session. It is
// sent without a token. A used, expired or unknown token is a 400 matching
// ErrInvalidToken.
//
// API: worker.acceptInvite, POST /worker-auth/accept-invite
func (w *WorkerClient) AcceptInvite(ctx context.Context, p AcceptInviteParams, opts ...RequestOption) (*JoinedWorker, error) {
	if err := firstError(
		checkLen("AcceptInviteParams.Token", p.Token.Reveal(), 1, 256),
		checkLen("AcceptInviteParams.PIN", p.PIN.Reveal(), 4, 256),
	); err != nil {
		return nil, err
	}
	return w.signInWith(ctx, "/worker-auth/accept-invite", p, withOwn(opts, withBearer(""), redacting(p.PIN.Reveal()), redacting(p.Token.Reveal())))
}

func (w *WorkerClient) signInWith(ctx context.Context, path string, in any, opts []RequestOption) (*JoinedWorker, error) {
	var out joinedWire
	if err := w.c.call(ctx, http.MethodPost, path, nil, in, &out, opts); err != nil {
		return nil, err
	}
	if !usableToken(out.Token) || checkID("workerId", out.WorkerID) != nil {
		return nil, fmt.Errorf("taskrouting: POST %s: the answer carried no usable token or worker id", path)
	}
	w.adopt(out.Token, out.WorkerID, out.ExpiresAt.t)
	return &JoinedWorker{
		WorkspaceID: out.WorkspaceID, WorkerID: out.WorkerID, Label: out.Label,
		PendingApproval: out.PendingApproval, PortalURL: out.PortalURL, ExpiresAt: out.ExpiresAt.t,
	}, nil
}
