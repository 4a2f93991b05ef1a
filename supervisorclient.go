package taskrouting

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"
)

// SupervisorClient calls the supervisor plane of the API: the calls of a
// crew lead who watches the board and unblocks work (reprioritise, hand a
// task to a worker, pause a worker) with a session token (sv_...). It is a
// separate type from Client and WorkerClient, so a supervisor token never
// reaches another plane. A session starts only by redeeming a single-use
// link (AcceptInvite) and ends when it expires or on Logout; there is no
// refresh, so an expired session (a 401) means asking for a new link.
//
// It shares Client's request path, options and error types, but tracks no
// quota and sends no Idempotency-Key. Reads (GET) are retried as on the
// other planes; actions (POST, DELETE), which carry no key, are retried only
// when the attempt cannot have been applied (no connection made, 429, or
// 503 with Retry-After; see the package documentation): a blind repeat of
// an applied assignment could move a task twice. After any other failure
// the error matches ErrOutcomeUnknown when the server may have acted. It
// is safe for concurrent use.
type SupervisorClient struct {
	// c carries the session in c.creds. Behind a pointer, so %v of a
	// SupervisorClient value prints an address, never the token.
	c *Client
	// expiry is behind a pointer so the value has no lock to copy (Format
	// takes a value).
	expiry *sessionExpiry
}

// sessionExpiry is when the session lapses; zero when signed out.
type sessionExpiry struct {
	mu sync.Mutex
	at time.Time
}

// NewSupervisorClient returns a signed-out supervisor client for the API
// rooted at baseURL (as for NewClient). Call AcceptInvite (or SetSession)
// before anything but Entry.
func NewSupervisorClient(baseURL string, opts ...RequestOption) (*SupervisorClient, error) {
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	c, err := newClient(base, &credentials{}, opts)
	if err != nil {
		return nil, err
	}
	return &SupervisorClient{c: c, expiry: &sessionExpiry{}}, nil
}

// SupervisorEntry is the answer of GET /supervisor-auth/entry.
type SupervisorEntry struct {
	// ConsoleURL is where a supervisor signs in; "" when the deployment has
	// no console (the wire's null).
	ConsoleURL string `json:"consoleUrl"`
}

// SupervisorIdentity is the supervisor a session stands for.
type SupervisorIdentity struct {
	ID     string `json:"id"`
	Label  string `json:"label,omitempty"`
	Email  string `json:"email,omitempty"`  // "" for none (the wire's null)
	TeamID string `json:"teamId,omitempty"` // "" when the supervisor has the whole workspace
}

// SupervisorSession is the answer of POST /supervisor-auth/accept. The
// token itself is kept by the client and not returned.
type SupervisorSession struct {
	Supervisor  SupervisorIdentity `json:"supervisor"`
	WorkspaceID string             `json:"workspaceId"`
	// ExpiresAt is when the session lapses (wire expiresAt, epoch
	// milliseconds, where the worker plane sends ISO strings).
	ExpiresAt time.Time `json:"-"`
}

// UnmarshalJSON reads the wire form; the token is the client's to keep.
func (s *SupervisorSession) UnmarshalJSON(b []byte) error {
	type plain SupervisorSession
	in := struct {
		*plain
		ExpiresAt wireTime `json:"expiresAt"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	s.ExpiresAt = in.ExpiresAt.t
	return nil
}

// SupervisorProfile is the answer of GET /supervisor/me.
type SupervisorProfile struct {
	SupervisorID string `json:"supervisorId"`
	Label        string `json:"label,omitempty"`
	Email        string `json:"email,omitempty"`
	WorkspaceID  string `json:"workspaceId,omitempty"`
	// TeamKey is the key of the supervisor's team; "" (the wire's null)
	// means the whole workspace.
	TeamKey string `json:"teamKey"`
}

// SupervisorBoard is the answer of GET /supervisor/overview: the whole
// board in one request.
type SupervisorBoard struct {
	TeamKey string // "" for the whole workspace
	Counts  BoardCounts
	// Crew is the workers in scope, busiest first.
	Crew []CrewMember
	// Parked is the tasks taken out of matching, at most 50.
	Parked []ParkedTask
	// Raw is the board's JSON, for members this version of the client does
	// not model.
	Raw json.RawMessage
}

// BoardCounts is the board's headline numbers.
type BoardCounts struct {
	Queued  int `json:"queued"`
	Pending int `json:"pending"`
	Parked  int `json:"parked"`
	// OldestWait is how long the oldest queued task has waited (wire
	// oldestWaitMs); zero with nothing queued.
	OldestWait time.Duration `json:"-"`
}

// CrewMember is one worker's load on the board.
type CrewMember struct {
	WorkerID  string `json:"workerId"`
	Backlog   int    `json:"backlog"`   // offers held, not yet accepted
	Available bool   `json:"available"` // receives new work now
}

// ParkedTask is a task on the board's parked list.
type ParkedTask struct {
	ID        string
	Tags      []string
	Priority  *float64  // nil when the wire says null
	CreatedAt time.Time // zero when the wire says null
}

// UnmarshalJSON decodes the wire form and keeps it in Raw.
func (b *SupervisorBoard) UnmarshalJSON(data []byte) error {
	var w struct {
		TeamKey *string `json:"teamKey"`
		Counts  struct {
			BoardCounts
			OldestWaitMs int64 `json:"oldestWaitMs"`
		} `json:"counts"`
		Crew   []CrewMember `json:"crew"`
		Parked []struct {
			ID        string   `json:"id"`
			Tags      []string `json:"tags"`
			Priority  *float64 `json:"priority"`
			CreatedAt wireTime `json:"createdAt"`
		} `json:"parked"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*b = SupervisorBoard{Counts: w.Counts.BoardCounts, Crew: w.Crew, Raw: cloneRaw(data)}
	if w.TeamKey != nil {
		b.TeamKey = *w.TeamKey
	}
	b.Counts.OldestWait = time.Duration(w.Counts.OldestWaitMs) * time.Millisecond
	for _, p := range w.Parked {
		b.Parked = append(b.Parked, ParkedTask{ID: p.ID, Tags: p.Tags, Priority: p.Priority, CreatedAt: p.CreatedAt.t})
	}
	return nil
}

// SupervisorAssignment is the answer of POST /supervisor/tasks/{id}/assign.
type SupervisorAssignment struct {
	ID       string `json:"id"`
	WorkerID string `json:"workerId"`
	Status   string `json:"status"` // "pending": offered to the worker
}

// SupervisorAssignParams is the optional part of an assignment.
type SupervisorAssignParams struct {
	// Force assigns past the matcher's refusals: a paused worker, a full
	// backlog, a veto and an earlier rejection. The worker must still exist
	// and be in scope.
	Force bool
}

// SupervisorAvailabilityParams is the body of POST
// /supervisor/workers/{workerId}/availability.
type SupervisorAvailabilityParams struct {
	Available bool
	// ReleaseBacklog, with Available false, puts the worker's offers not yet
	// accepted back in the queue; accepted work stays with the worker.
	ReleaseBacklog bool
}

// SupervisorAvailability is the answer of a supervisor's SetAvailability.
type SupervisorAvailability struct {
	WorkerID  string `json:"workerId"`
	Available bool   `json:"available"`
	// ReleasedTaskIDs is what ReleaseBacklog put back in the queue; empty
	// when the backlog was kept.
	ReleasedTaskIDs []string `json:"releasedTaskIds"`
}

// Entry returns where supervisors sign in. It is sent without a token.
//
// API: supervisor.entry, GET /supervisor-auth/entry
func (s *SupervisorClient) Entry(ctx context.Context, opts ...RequestOption) (*SupervisorEntry, error) {
	var out struct {
		ConsoleURL *string `json:"consoleUrl"`
	}
	if err := s.c.call(ctx, "GET", "/supervisor-auth/entry", nil, nil, &out, withOwn(opts, withBearer(""))); err != nil {
		return nil, err
	}
	e := &SupervisorEntry{}
	if out.ConsoleURL != nil {
		e.ConsoleURL = *out.ConsoleURL
	}
	return e, nil
}

// AcceptInvite redeems a supervisor link's token and adopts the session
// for every later call. It is sent without a session token and, as every
// action, retried only when the attempt cannot have been applied (the link
// is single-use, so a blind repeat would end in ErrInvalidToken). An unknown, used, revoked or expired
// link is one answer, 400 invalid_token (ErrInvalidToken). The link token
// never appears in an error.
//
// API: supervisor.acceptInvite, POST /supervisor-auth/accept
func (s *SupervisorClient) AcceptInvite(ctx context.Context, linkToken string, opts ...RequestOption) (*SupervisorSession, error) {
	if err := s.c.admit(checkLen("linkToken", linkToken, 1, math.MaxInt), opts); err != nil {
		return nil, err
	}
	in := struct {
		Token string `json:"token"`
	}{linkToken}
	var raw json.RawMessage
	opts = withOwn(opts, withBearer(""), redacting(linkToken))
	if err := s.c.call(ctx, "POST", "/supervisor-auth/accept", nil, in, &raw, opts); err != nil {
		return nil, err
	}
	var token struct {
		Token string `json:"token"`
	}
	out := new(SupervisorSession)
	if json.Unmarshal(raw, &token) != nil || json.Unmarshal(raw, out) != nil || s.SetSession(token.Token, out.ExpiresAt) != nil {
		return nil, errors.New("taskrouting: POST /supervisor-auth/accept: the answer carried no usable token")
	}
	return out, nil
}

// SetSession adopts a supervisor session token obtained elsewhere (an
// earlier AcceptInvite of another process) and its expiry (zero if
// unknown). The token must start with "sv_".
func (s *SupervisorClient) SetSession(token string, expiresAt time.Time) error {
	// The token goes into a header on every call; one that cannot (spaces,
	// control characters) is refused here, and not echoed.
	if !strings.HasPrefix(token, "sv_") || strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return &ParamError{Param: "token", Problem: `must be a supervisor session token ("sv_...")`}
	}
	s.expiry.mu.Lock()
	defer s.expiry.mu.Unlock()
	s.c.creds.set(token, "")
	s.expiry.at = expiresAt
	return nil
}

// Logout ends the session and forgets the token. The server also drops
// this supervisor's push subscriptions. The token is forgotten as well when
// the server answers 401 (it had already lapsed); the error is still
// returned. Signed out, Logout does nothing and returns nil.
//
// API: supervisor.logout, POST /supervisor-auth/logout
func (s *SupervisorClient) Logout(ctx context.Context, opts ...RequestOption) error {
	token := s.c.creds.bearer()
	if token == "" {
		return nil
	}
	err := s.c.call(ctx, "POST", "/supervisor-auth/logout", nil, nil, nil, withOwn(opts, withBearer(token)))
	if err == nil || errors.Is(err, ErrUnauthorized) {
		s.expiry.mu.Lock()
		if s.c.creds.bearer() == token {
			s.expiry.at = time.Time{}
		}
		s.c.creds.forget(token)
		s.expiry.mu.Unlock()
	}
	return err
}

// Me returns the signed-in supervisor and their scope.
//
// API: supervisor.me, GET /supervisor/me
func (s *SupervisorClient) Me(ctx context.Context, opts ...RequestOption) (*SupervisorProfile, error) {
	var out struct {
		SupervisorProfile
		Email   *string `json:"email"`
		TeamKey *string `json:"teamKey"`
	}
	if err := s.c.call(ctx, "GET", "/supervisor/me", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	p := out.SupervisorProfile
	if out.Email != nil {
		p.Email = *out.Email
	}
	if out.TeamKey != nil {
		p.TeamKey = *out.TeamKey
	}
	return &p, nil
}

// Overview returns the board: counts, the crew (busiest first) and the
// parked tasks, in one request.
//
// API: supervisor.overview, GET /supervisor/overview
func (s *SupervisorClient) Overview(ctx context.Context, opts ...RequestOption) (*SupervisorBoard, error) {
	out := new(SupervisorBoard)
	if err := s.c.call(ctx, "GET", "/supervisor/overview", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SetPriority changes a task's priority; a queued task moves to its new
// place in the queue. A task outside the supervisor's team is a 403
// (ErrForbidden).
//
// API: supervisor.setPriority, POST /supervisor/tasks/{id}/priority
func (s *SupervisorClient) SetPriority(ctx context.Context, taskID string, priority float64, opts ...RequestOption) (*TaskPriority, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	if math.IsNaN(priority) || math.IsInf(priority, 0) {
		return nil, &ParamError{Param: "priority", Problem: "must be a finite number"}
	}
	in := struct {
		Priority float64 `json:"priority"`
	}{priority}
	out := new(TaskPriority)
	if err := s.action(ctx, escapePath("/supervisor/tasks/", taskID, "/priority"), in, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Unpark brings a parked task back into matching, with the same clock
// resets as Tasks.Unpark, and answers the same way (usually queued; parked
// or expired when a clock that was not reset is already over). A task
// outside the supervisor's team is a 403 (ErrForbidden); a task that is not
// parked is a 409 (ErrInvalidState).
//
// API: supervisor.unpark, POST /supervisor/tasks/{id}/unpark
func (s *SupervisorClient) Unpark(ctx context.Context, taskID string, p UnparkTaskParams, opts ...RequestOption) (*TaskRef, error) {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return nil, err
	}
	out := new(TaskRef)
	if err := s.action(ctx, escapePath("/supervisor/tasks/", taskID, "/unpark"), p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Assign offers a task to one worker. Both must be in the supervisor's
// scope (else 403, ErrForbidden). A refusal by the matcher (the worker is
// paused, its backlog is full, it is vetoed or rejected the task) is 400
// assign_blocked (ErrAssignBlocked); see SupervisorAssignParams.Force.
//
// API: supervisor.assign, POST /supervisor/tasks/{id}/assign
func (s *SupervisorClient) Assign(ctx context.Context, taskID, workerID string, p SupervisorAssignParams, opts ...RequestOption) (*SupervisorAssignment, error) {
	if err := s.c.admit(firstError(checkID("taskID", taskID), checkID("workerID", workerID), checkLen("workerID", workerID, 1, 128)), opts); err != nil {
		return nil, err
	}
	in := struct {
		WorkerID string `json:"workerId"`
		Force    bool   `json:"force,omitempty"`
	}{workerID, p.Force}
	out := new(SupervisorAssignment)
	if err := s.action(ctx, escapePath("/supervisor/tasks/", taskID, "/assign"), in, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SetAvailability pauses or resumes a worker in the supervisor's scope.
// Pausing keeps the worker's offers unless p.ReleaseBacklog is set, which
// is only valid with Available false.
//
// API: supervisor.setAvailability, POST /supervisor/workers/{workerId}/availability
func (s *SupervisorClient) SetAvailability(ctx context.Context, workerID string, p SupervisorAvailabilityParams, opts ...RequestOption) (*SupervisorAvailability, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	if p.ReleaseBacklog && p.Available {
		return nil, &ParamError{Param: "SupervisorAvailabilityParams.ReleaseBacklog", Problem: "is only valid with Available false"}
	}
	// releaseBacklog goes on the wire only when true, as the platform asks.
	in := struct {
		Available      bool `json:"available"`
		ReleaseBacklog bool `json:"releaseBacklog,omitempty"`
	}{p.Available, p.ReleaseBacklog}
	out := new(SupervisorAvailability)
	if err := s.action(ctx, escapePath("/supervisor/workers/", workerID, "/availability"), in, out, opts); err != nil {
		return nil, err
	}
	if out.ReleasedTaskIDs == nil {
		out.ReleasedTaskIDs = []string{}
	}
	return out, nil
}

// VoiceICE returns the ICE servers for the supervisor's voice connection.
// A deployment without voice answers 404 voice_disabled (ErrVoiceDisabled).
//
// API: supervisor.voiceIce, GET /supervisor/voice/ice
func (s *SupervisorClient) VoiceICE(ctx context.Context, opts ...RequestOption) (*VoiceICE, error) {
	return voiceICE(ctx, s.c, "/supervisor/voice/ice", opts)
}

// PushConfig reports whether web push is on and its VAPID public key. Read
// it before asking the browser for permission: Enabled false is a fact of
// the deployment, not an error.
//
// API: supervisor.pushConfig, GET /supervisor/push/config
func (s *SupervisorClient) PushConfig(ctx context.Context, opts ...RequestOption) (*PushConfig, error) {
	return pushConfig(ctx, s.c, "/supervisor/push/config", opts)
}

// PushSubscribe registers a browser push subscription for this supervisor.
// The server answers a bare acknowledgement.
//
// API: supervisor.pushSubscribe, POST /supervisor/push/subscriptions
func (s *SupervisorClient) PushSubscribe(ctx context.Context, p PushSubscriptionParams, opts ...RequestOption) error {
	if err := s.c.admit(p.validate(), opts); err != nil {
		return err
	}
	var ack struct {
		OK bool `json:"ok"`
	}
	if err := s.action(ctx, "/supervisor/push/subscriptions", p, &ack, opts); err != nil {
		return err
	}
	if !ack.OK {
		return errors.New("taskrouting: POST /supervisor/push/subscriptions: the answer did not acknowledge the subscription")
	}
	return nil
}

// PushUnsubscribe removes a browser push subscription by its endpoint
// alone (a browser has discarded the keys by the time it reports a change).
//
// API: supervisor.pushUnsubscribe, DELETE /supervisor/push/subscriptions
func (s *SupervisorClient) PushUnsubscribe(ctx context.Context, endpoint string, opts ...RequestOption) error {
	if err := s.c.admit(checkLen("endpoint", endpoint, 1, math.MaxInt), opts); err != nil {
		return err
	}
	in := struct {
		Endpoint string `json:"endpoint"`
	}{endpoint}
	return s.c.call(ctx, "DELETE", "/supervisor/push/subscriptions", nil, in, nil, opts)
}

// action is a supervisor POST. It carries no key, so the chokepoint retries
// it only when an attempt cannot have been applied (writeretry.go).
func (s *SupervisorClient) action(ctx context.Context, path string, in, out any, opts []RequestOption) error {
	return s.c.call(ctx, "POST", path, nil, in, out, opts)
}

// SignedIn reports whether the client holds a session token. An expired
// session still counts until a call answers 401.
func (s *SupervisorClient) SignedIn() bool { return s.c.creds.bearer() != "" }

// ExpiresAt returns when the current session lapses; zero when signed out
// or unknown.
func (s *SupervisorClient) ExpiresAt() time.Time {
	s.expiry.mu.Lock()
	defer s.expiry.mu.Unlock()
	return s.expiry.at
}

// BaseURL returns the API root the client sends requests to, without a
// trailing slash.
func (s *SupervisorClient) BaseURL() string { return s.c.baseURL }

// String describes the client without its token.
func (s *SupervisorClient) String() string {
	return fmt.Sprintf("taskrouting.SupervisorClient{baseURL: %q, signedIn: %t, token: [redacted]}", s.c.baseURL, s.SignedIn())
}

// GoString describes the client for %#v without its token.
func (s *SupervisorClient) GoString() string { return s.String() }

// LogValue lets the client be logged with slog without its token.
func (s *SupervisorClient) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("baseURL", s.c.baseURL),
		slog.Bool("signedIn", s.SignedIn()),
		slog.String("token", "[redacted]"),
	)
}
