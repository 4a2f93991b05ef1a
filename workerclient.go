package taskrouting

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// WorkerClient calls the worker plane of the API: the calls a single worker
// (an agent's desktop, a kiosk, a bot) makes for itself with a session
// token from Login. It is a separate type from Client so a worker token can
// never reach a workspace operation. It shares Client's request path,
// retries, options and error types, but tracks no quota and sends no
// Idempotency-Key (the worker plane has neither). It is safe for concurrent
// use; Login and Logout swap the session under a lock.
//
// The worker plane's POSTs carry no idempotency key, so a repeat of one
// that was applied answers as a repeat does: a second StartBreak is
// ErrBreakAlreadyOpen, a second Accept or Complete is ErrInvalidState. The
// client therefore retries them only when an attempt cannot have been
// applied (see the package documentation); after a lost answer the error
// matches ErrOutcomeUnknown. EnsureAccepted, EnsureCompleted,
// EnsureRejected, EnsureBreakStarted and EnsureBreakEnded read the state
// back and count a write already made as done.
type WorkerClient struct {
	// c carries the session in c.creds. Behind a pointer, so %v of a
	// WorkerClient value prints an address, never the token.
	c *Client

	// Attachments is worker.attachments.*: files on the worker's own tasks.
	Attachments *WorkerAttachmentsService

	// refreshMu makes one refresh at a time (workersession.go). Behind a
	// pointer so WorkerClient's value methods (Format) copy no lock.
	refreshMu *sync.Mutex
}

// NewWorkerClient returns a signed-out worker client for the API rooted at
// baseURL (as for NewClient). Call Login before anything else.
func NewWorkerClient(baseURL string, opts ...RequestOption) (*WorkerClient, error) {
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	c, err := newClient(base, &credentials{}, opts)
	if err != nil {
		return nil, err
	}
	w := &WorkerClient{c: c, Attachments: &WorkerAttachmentsService{c: c}, refreshMu: &sync.Mutex{}}
	c.beforeCall = w.refreshIfDue
	return w, nil
}

// WorkerLoginParams is the body of POST /worker-auth/login. The PIN is the
// one given with Workers.SetIdentity (PIN: NewSecret("4921")); as a Secret
// it never appears in an error, a printed or logged value or JSON.
type WorkerLoginParams struct {
	WorkspaceID string `json:"workspaceId"`
	WorkerID    string `json:"workerId"`
	PIN         Secret `json:"pin"`
}

// String describes the parameters without the PIN.
func (p WorkerLoginParams) String() string {
	return fmt.Sprintf("{WorkspaceID:%q WorkerID:%q PIN:[redacted]}", p.WorkspaceID, p.WorkerID)
}

// GoString describes the parameters for %#v without the PIN.
func (p WorkerLoginParams) GoString() string { return "taskrouting.WorkerLoginParams" + p.String() }

// LogValue lets the parameters be logged with slog without the PIN.
func (p WorkerLoginParams) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("workspaceId", p.WorkspaceID),
		slog.String("workerId", p.WorkerID),
		slog.String("pin", "[redacted]"),
	)
}

// WorkerProfile is the answer of GET /portal/me: the signed-in worker.
type WorkerProfile struct {
	WorkerID  string `json:"workerId"`
	Label     string `json:"label,omitempty"` // the sign-in's label, e.g. "desk 4"
	Available bool   `json:"available"`
	// PendingApproval is true while an operator has still to admit a worker
	// who joined by themselves; no work reaches them until then.
	PendingApproval bool `json:"pendingApproval,omitempty"`
	OnBreak         bool `json:"onBreak"`
	// BreakStartedAt is when the open break started (wire breakStartedAt,
	// ISO-8601); zero when not on a break.
	BreakStartedAt time.Time     `json:"-"`
	Skills         []WorkerSkill `json:"skills,omitempty"`
	// SkillSetupPending is true while the worker has still to choose their
	// own skills.
	SkillSetupPending bool   `json:"skillSetupPending,omitempty"`
	Locale            string `json:"locale,omitempty"` // the worker's language; "" for the workspace default
	EmailNotices      bool   `json:"emailNotices,omitempty"`
	// PushCategories says which kinds of push the worker still wants, by
	// category id; nil when the server sends none.
	PushCategories map[string]bool `json:"pushCategories,omitempty"`
	// Raw is the profile's JSON, for the members this version of the client
	// does not model. When the profile is a call's whole answer (WorkerClient.Me)
	// it is the response body exactly as received; elsewhere (in a list,
	// or decoded with json.Unmarshal) it is the object's own bytes,
	// without the whitespace around it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the wire form and keeps it in Raw.
func (p *WorkerProfile) UnmarshalJSON(b []byte) error {
	type plain WorkerProfile
	w := struct {
		*plain
		BreakStartedAt wireTime `json:"breakStartedAt"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p.BreakStartedAt = w.BreakStartedAt.t
	p.Raw = cloneRaw(b)
	return nil
}

// WorkerAvailability is the answer of POST /portal/me/availability.
type WorkerAvailability struct {
	WorkerID  string `json:"workerId"`
	Available bool   `json:"available"`
}

// StartBreakParams is the body of POST /portal/breaks/start.
type StartBreakParams struct {
	Reason string `json:"reason,omitempty"` // optional, e.g. "lunch"; at most 100 characters
}

// maxBreakReason is the platform's limit on StartBreakParams.Reason, in characters.
const maxBreakReason = 100

// validate holds the reason to the platform's limit (worker.startBreak).
func (p StartBreakParams) validate() error {
	return checkLen("StartBreakParams.Reason", p.Reason, 0, maxBreakReason)
}

// BreakState is the answer of POST /portal/breaks/start (OnBreak true,
// Since set) and of POST /portal/breaks/end (OnBreak false, EndedAt set).
type BreakState struct {
	WorkerID string
	OnBreak  bool
	Since    time.Time // wire since, ISO-8601; when the break started
	EndedAt  time.Time // wire endedAt, ISO-8601; when the break ended
}

type breakStateWire struct {
	WorkerID string   `json:"workerId"`
	OnBreak  bool     `json:"onBreak"`
	Since    wireTime `json:"since,omitzero"`
	EndedAt  wireTime `json:"endedAt,omitzero"`
}

// UnmarshalJSON decodes the wire form. Either time form is accepted.
func (s *BreakState) UnmarshalJSON(b []byte) error {
	var w breakStateWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = BreakState{w.WorkerID, w.OnBreak, w.Since.t, w.EndedAt.t}
	return nil
}

// MarshalJSON writes the wire form (ISO-8601 times; zero times left out).
func (s BreakState) MarshalJSON() ([]byte, error) {
	return json.Marshal(breakStateWire{s.WorkerID, s.OnBreak, isoOf(s.Since), isoOf(s.EndedAt)})
}

// Login signs in as a worker and adopts the session token and the worker
// id for every later call; it returns the session, whose ExpiresAt says
// when it lapses (the client refreshes it before then on its own). It is
// sent without a token. A wrong PIN (or an unknown worker or workspace) is
// a 401 that matches ErrInvalidCredentials and ErrUnauthorized. A Login
// while signed in replaces the session without revoking the old token;
// Logout first to revoke it.
//
// API: worker.login, POST /worker-auth/login
func (w *WorkerClient) Login(ctx context.Context, p WorkerLoginParams, opts ...RequestOption) (*WorkerSession, error) {
	if err := firstError(
		checkLen("WorkerLoginParams.WorkspaceID", p.WorkspaceID, 1, 64),
		checkID("WorkerLoginParams.WorkerID", p.WorkerID),
		checkLen("WorkerLoginParams.WorkerID", p.WorkerID, 1, 128),
		checkLen("WorkerLoginParams.PIN", p.PIN.Reveal(), 1, 256),
	); err != nil {
		return nil, err
	}
	var out sessionWire
	opts = withOwn(opts, withBearer(""), redacting(p.PIN.Reveal()))
	if err := w.c.call(ctx, "POST", "/worker-auth/login", nil, p, &out, opts); err != nil {
		return nil, err
	}
	// The token goes into a header on every call; one that cannot is
	// refused here, and not echoed.
	if !usableToken(out.Token) {
		return nil, errors.New("taskrouting: POST /worker-auth/login: the answer carried no usable token")
	}
	return w.adopt(out.Token, p.WorkerID, out.ExpiresAt.t), nil
}

// Logout ends the session and forgets the token.
// The token is also forgotten when the server answers 401 (it was already
// revoked); the error is still returned. Signed out, Logout does nothing
// and returns nil.
//
// API: worker.logout, POST /worker-auth/logout
func (w *WorkerClient) Logout(ctx context.Context, opts ...RequestOption) error {
	token := w.c.creds.bearer()
	if token == "" {
		return nil
	}
	err := w.c.call(ctx, "POST", "/worker-auth/logout", nil, nil, nil, withOwn(opts, withBearer(token)))
	if err == nil || errors.Is(err, ErrUnauthorized) {
		w.c.creds.forget(token)
	}
	return err
}

// Me returns the signed-in worker.
//
// API: worker.me, GET /portal/me
func (w *WorkerClient) Me(ctx context.Context, opts ...RequestOption) (*WorkerProfile, error) {
	out := new(WorkerProfile)
	if err := w.c.call(ctx, "GET", "/portal/me", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SetAvailability puts the signed-in worker on or off shift.
//
// API: worker.setAvailability, POST /portal/me/availability
func (w *WorkerClient) SetAvailability(ctx context.Context, available bool, opts ...RequestOption) (*WorkerAvailability, error) {
	in := struct {
		Available bool `json:"available"`
	}{available}
	out := new(WorkerAvailability)
	if err := w.c.call(ctx, "POST", "/portal/me/availability", nil, in, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// StayAvailable puts an unattended signed-in worker (a bot, an agent
// process) on shift with a liveness contract: after staleAfter without a
// call from it, the platform clocks it out and pauses its routing, so a
// crashed process does not read as available forever. staleAfter is 1
// minute to 24 hours. A person's client must use SetAvailability instead:
// someone away from the screen is not a crashed process. The mock server
// accepts the contract but does not clock workers out (docs/contract.md,
// "Known gaps").
//
// API: worker.setAvailability, POST /portal/me/availability
func (w *WorkerClient) StayAvailable(ctx context.Context, staleAfter time.Duration, opts ...RequestOption) (*WorkerAvailability, error) {
	ms := staleAfter.Milliseconds()
	if err := w.c.admit(checkRange("staleAfter", float64(ms), 60_000, 86_400_000), opts); err != nil {
		return nil, err
	}
	in := struct {
		Available    bool  `json:"available"`
		StaleAfterMs int64 `json:"staleAfterMs"`
	}{true, ms}
	out := new(WorkerAvailability)
	if err := w.c.call(ctx, "POST", "/portal/me/availability", nil, in, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Queue returns the tasks offered to a worker and not yet accepted. An
// empty workerID means the signed-in worker.
//
// API: worker.queue, GET /portal/workers/{id}/queue
func (w *WorkerClient) Queue(ctx context.Context, workerID string, opts ...RequestOption) (*WorkerQueue, error) {
	if workerID == "" {
		w.refreshIfDue(ctx)
		token, me := w.c.creds.session()
		if me == "" {
			return nil, &ParamError{Param: "workerID", Problem: "must be given when no worker is signed in"}
		}
		// The id and the token come from the same session.
		workerID, opts = me, withOwn(opts, withBearer(token))
	}
	if err := w.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	out := new(WorkerQueue)
	if err := w.c.call(ctx, "GET", escapePath("/portal/workers/", workerID, "/queue"), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Task returns a task offered to or held by the signed-in worker.
// Another worker's task is a 404.
//
// API: worker.taskDetail, GET /portal/tasks/{id}
func (w *WorkerClient) Task(ctx context.Context, taskID string, opts ...RequestOption) (*Task, error) {
	if err := w.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	out := new(Task)
	if err := w.c.call(ctx, "GET", escapePath("/portal/tasks/", taskID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Accept accepts a task offered to the signed-in worker.
//
// API: worker.accept, POST /portal/tasks/{id}/accept
func (w *WorkerClient) Accept(ctx context.Context, taskID string, opts ...RequestOption) (*TaskRef, error) {
	return w.answer(ctx, taskID, "/accept", nil, opts)
}

// EnsureAccepted accepts a task offered to the signed-in worker and,
// unlike Accept, treats an accept that was already made as done: when the
// platform answers 409 invalid_state, it reads the task, and if the worker
// holds it (accepted, or since completed) it returns the task's state with
// a nil error. It is Decisions.EnsureAccepted for the worker plane, with
// the same rule and the same code.
//
// The worker plane needs it more than the workspace plane: its POSTs carry
// no idempotency key, so a retried attempt whose first attempt went
// through, or a push or poll that offers the same task twice, meets the
// 409 with no key to replay. Any other answer is returned as it came. An
// offer that moved on (cancelled, expired, now another worker's) is
// mostly ErrNotFound here, since this plane shows a worker only its own
// tasks; a task the worker held and that ended otherwise (failed) keeps
// the accept's ErrInvalidState. A read that fails leaves the accept's 409,
// as a *ReadBackError that carries the read's failure too.
//
//	ref, err := w.EnsureAccepted(ctx, taskID)
//	if errors.Is(err, taskrouting.ErrNotFound) || errors.Is(err, taskrouting.ErrInvalidState) {
//		return nil // the offer moved on; another try cannot help
//	}
//
// It sends worker.accept (POST /portal/tasks/{id}/accept) and, after a
// 409, worker.taskDetail (GET /portal/tasks/{id}); opts apply to both,
// except WithJSONSet and WithResponseInto, which apply to the accept alone
// (the Response is the accept's, its 409 included).
func (w *WorkerClient) EnsureAccepted(ctx context.Context, taskID string, opts ...RequestOption) (*TaskRef, error) {
	return acceptOnce(
		func() (*TaskRef, error) { return w.Accept(ctx, taskID, opts...) },
		func() (*Task, error) { return w.Task(ctx, taskID, withOwn(opts, dropCallOnly)...) },
		// worker.taskDetail answers 404 for any task not the signed-in
		// worker's, so a task it returns is this worker's.
		func(*Task) bool { return true },
	)
}

// Reject turns down a task offered to the signed-in worker, who never gets
// it again.
//
// API: worker.reject, POST /portal/tasks/{id}/reject
func (w *WorkerClient) Reject(ctx context.Context, taskID string, opts ...RequestOption) (*TaskRef, error) {
	return w.answer(ctx, taskID, "/reject", nil, opts)
}

// Complete completes a task the signed-in worker accepted. result, when
// not nil, must encode as a JSON object; it is passed on in the
// task.completed event.
//
// API: worker.complete, POST /portal/tasks/{id}/complete
func (w *WorkerClient) Complete(ctx context.Context, taskID string, result any, opts ...RequestOption) (*TaskRef, error) {
	return w.answer(ctx, taskID, "/complete", result, opts)
}

// answer names the signed-in worker in the body, as the wire asks, with
// the token of the same session, and shares the rest with the workspace
// plane's Decisions.
func (w *WorkerClient) answer(ctx context.Context, taskID, verb string, result any, opts []RequestOption) (*TaskRef, error) {
	w.refreshIfDue(ctx)
	token, workerID := w.c.creds.session()
	if token == "" {
		return nil, ErrNotSignedIn
	}
	return w.c.answerTask(ctx, "/portal/tasks/", taskID, verb, workerID, result, withOwn(opts, withBearer(token)))
}

// StartBreak opens a break for the signed-in worker, who gets no new offers
// during it and keeps the tasks already held.
// With a break already open it is a 409 matching ErrBreakAlreadyOpen.
//
// API: worker.startBreak, POST /portal/breaks/start
func (w *WorkerClient) StartBreak(ctx context.Context, p StartBreakParams, opts ...RequestOption) (*BreakState, error) {
	if err := w.c.admit(p.validate(), opts); err != nil {
		return nil, err
	}
	out := new(BreakState)
	if err := w.c.call(ctx, "POST", "/portal/breaks/start", nil, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// EndBreak closes the signed-in worker's open break.
// With no break open the server answers 204 and EndBreak returns nil, nil.
//
// API: worker.endBreak, POST /portal/breaks/end
func (w *WorkerClient) EndBreak(ctx context.Context, opts ...RequestOption) (*BreakState, error) {
	// A 204 leaves out untouched, so nil says "no break was open".
	var out *BreakState
	if err := w.c.call(ctx, "POST", "/portal/breaks/end", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// WorkerID returns the signed-in worker's id, or "" when signed out.
func (w *WorkerClient) WorkerID() string {
	_, id := w.c.creds.session()
	return id
}

// SignedIn reports whether the client holds a session token.
func (w *WorkerClient) SignedIn() bool { return w.c.creds.bearer() != "" }

// BaseURL returns the API root the client sends requests to, without a
// trailing slash.
func (w *WorkerClient) BaseURL() string { return w.c.baseURL }

// String describes the client without its token.
func (w *WorkerClient) String() string {
	token, id := w.c.creds.session()
	return fmt.Sprintf("taskrouting.WorkerClient{baseURL: %q, workerID: %q, signedIn: %t, token: [redacted]}", w.c.baseURL, id, token != "")
}

// GoString describes the client for %#v without its token.
func (w *WorkerClient) GoString() string { return w.String() }

// LogValue lets the client be logged with slog without its token.
func (w *WorkerClient) LogValue() slog.Value {
	token, id := w.c.creds.session()
	return slog.GroupValue(
		slog.String("baseURL", w.c.baseURL),
		slog.String("workerId", id),
		slog.Bool("signedIn", token != ""),
		slog.String("token", "[redacted]"),
	)
}

// withBearer pins the call's bearer to one session's token, or to none
// for the sign-in itself.
func withBearer(token string) RequestOption {
	return func(o *config) error {
		o.bearerSet, o.bearer = true, token
		return nil
	}
}

// redacting scrubs a secret sent in the body (a PIN) from an *APIError.
func redacting(secret string) RequestOption {
	return func(o *config) error {
		o.redact = append(o.redact, secret)
		return nil
	}
}

// withOwn appends the package's own options after the caller's, copying so
// the caller's slice is never written to.
func withOwn(opts []RequestOption, own ...RequestOption) []RequestOption {
	return append(opts[:len(opts):len(opts)], own...)
}
