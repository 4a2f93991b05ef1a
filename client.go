package taskrouting

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Version is the version of this module, sent in the User-Agent.
const Version = "0.1.0"

// Client calls the task-routing API. Create it with NewClient; it is safe
// for concurrent use. Its fields are the API's resource groups.
type Client struct {
	Tasks         *TasksService
	Workers       *WorkersService
	Decisions     *DecisionsService
	Notifications *NotificationsService
	Learning      *LearningService
	Stats         *StatsService
	Teams         *TeamsService
	Skills        *SkillsService
	Workflows     *WorkflowsService
	Runs          *RunsService
	JoinLinks     *JoinLinksService

	baseURL   string // no trailing slash
	userAgent string
	// creds is shared by copies of the Client value. Client's Format keeps
	// the key out of every fmt verb; where fmt cannot reach Format (a
	// Client in a caller's unexported field), credentials holds the key in
	// a function, which fmt prints as an address.
	creds *credentials
	// cfg is the client's settings; every call starts from a copy.
	cfg config
	// quota sits behind a pointer so a copied Client value shares it. It is
	// nil on the worker plane (WorkerClient), whose answers carry no quota.
	quota *quotaTracker
	// idempotencyKeys is true on the workspace plane, where every POST
	// carries an Idempotency-Key; the worker plane takes none.
	idempotencyKeys bool
	// beforeCall, set on the worker plane, refreshes a session close to
	// its expiry before a call that uses the client's own token.
	beforeCall func(ctx context.Context)

	// retryAfterUnit is what one second of Retry-After means. It is always
	// time.Second except in this package's tests, which shrink it so the
	// honoured waits take milliseconds.
	retryAfterUnit time.Duration
}

// credentials is the bearer secret of a client: the workspace plane's API
// key, fixed for the client's life, or the worker plane's session token and
// the worker it belongs to, which Login and Logout replace while other calls
// are in flight, hence the lock.
type credentials struct {
	mu sync.RWMutex
	// secret returns the API key or worker token, "" when signed out. It
	// is a function rather than a string because fmt prints a function as
	// an address under every verb: a Client inside a caller's struct, where
	// fmt cannot reach its Format method, still prints no secret
	// (TestSecretsInEveryVerb).
	secret   func() string
	workerID string // worker plane only
	// The worker session's lifetime (workersession.go); zero when unknown.
	issuedAt, expiresAt time.Time
}

func newCredentials(secret string) *credentials {
	cr := &credentials{}
	cr.set(secret, "")
	return cr
}

// current reads the secret; the caller holds the lock.
func (cr *credentials) current() string {
	if cr.secret == nil {
		return ""
	}
	return cr.secret()
}

func (cr *credentials) bearer() string {
	cr.mu.RLock()
	defer cr.mu.RUnlock()
	return cr.current()
}

func (cr *credentials) session() (token, workerID string) {
	cr.mu.RLock()
	defer cr.mu.RUnlock()
	return cr.current(), cr.workerID
}

func (cr *credentials) set(secret, workerID string) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.secret = func() string { return secret }
	cr.workerID = workerID
	cr.issuedAt, cr.expiresAt = time.Time{}, time.Time{}
}

// forget signs out, unless a newer session has replaced secret meanwhile.
func (cr *credentials) forget(secret string) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.current() == secret {
		cr.secret, cr.workerID = nil, ""
	}
}

// NewClient returns a client for the API rooted at baseURL (for example
// "https://api.example.com/v1"; trailing slashes are ignored) that
// authenticates with apiKey as a bearer token. Keys normally start with
// sk_live_ or sk_test_ (see Sandbox); other keys are sent as given.
func NewClient(baseURL, apiKey string, opts ...RequestOption) (*Client, error) {
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if apiKey == "" {
		return nil, &ParamError{Param: "apiKey", Problem: "must not be empty"}
	}
	if strings.ContainsAny(apiKey, "\r\n \t") {
		// Said without echoing the key.
		return nil, &ParamError{Param: "apiKey", Problem: "must not contain whitespace"}
	}
	c, err := newClient(base, newCredentials(apiKey), opts)
	if err != nil {
		return nil, err
	}
	c.quota = &quotaTracker{}
	c.idempotencyKeys = true
	c.Tasks = &TasksService{c: c, Attachments: &AttachmentsService{c: c}, Context: &TaskContextService{c: c}, Comments: &TaskCommentsService{c: c},
		Booking: &BookingService{c: c}, Recurring: &RecurringService{c: c}}
	c.Workers = &WorkersService{c: c}
	c.Skills = &SkillsService{c: c}
	c.Decisions = &DecisionsService{c: c}
	c.Notifications = &NotificationsService{Channels: &NotificationChannelsService{c: c}, Sequences: &NotificationSequencesService{c: c}}
	c.Learning = &LearningService{c: c}
	c.Stats = &StatsService{c: c}
	c.Teams = &TeamsService{c: c}
	c.Workflows = &WorkflowsService{c: c}
	c.Runs = &RunsService{c: c}
	c.JoinLinks = &JoinLinksService{c: c}
	return c, nil
}

// newClient builds the request path both planes share (options, transport,
// retries, User-Agent) around creds. The caller adds what its plane has on
// top: NewClient the quota tracker, idempotency keys and services.
func newClient(base string, creds *credentials, opts []RequestOption) (*Client, error) {
	cfg := config{
		maxRetries:    defaultMaxRetries,
		retryWaitMin:  defaultRetryWaitMin,
		retryWaitMax:  defaultRetryWaitMax,
		maxRetryAfter: defaultMaxRetryAfter,
	}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	cfg.httpClient = ownHTTPClient(cfg.httpClient)
	cfg.httpClient.CheckRedirect = sameOriginOnly(cfg.httpClient.CheckRedirect)
	if cfg.timeoutSet {
		cfg.httpClient.Timeout = cfg.timeout
	}
	cfg.timeout, cfg.timeoutSet = cfg.httpClient.Timeout, false
	if cfg.pacingWindow > 0 {
		cfg.httpClient = newQuotaPacer(cfg.pacingWindow, cfg.maxRetryAfter).wrap(cfg.httpClient)
	}
	ua := "taskrouting-go/" + Version + " go/" + runtime.Version()
	if cfg.userAgent != "" {
		ua = cfg.userAgent + " " + ua
	}
	return &Client{
		baseURL:        base,
		userAgent:      ua,
		creds:          creds,
		cfg:            cfg,
		retryAfterUnit: time.Second,
	}, nil
}

// ownHTTPClient returns the client's own copy of the caller's http.Client,
// or a new one, so that what the client sets on it never reaches a value
// the caller still holds.
func ownHTTPClient(given *http.Client) *http.Client {
	if given == nil {
		// A transport of our own: retryablehttp closes idle connections of
		// the client's transport after a failed call, which must not reach
		// into http.DefaultTransport shared by the whole program.
		return &http.Client{
			Transport: http.DefaultTransport.(*http.Transport).Clone(),
			Timeout:   defaultTimeout,
		}
	}
	own := *given
	return &own
}

func parseBaseURL(raw string) (string, error) {
	trimmed := strings.TrimRight(strings.TrimSpace(raw), "/")
	if trimmed == "" {
		return "", &ParamError{Param: "baseURL", Problem: "must not be empty"}
	}
	u, err := url.Parse(trimmed)
	if err != nil {
		return "", &ParamError{Param: "baseURL", Problem: "is not a URL"}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", &ParamError{Param: "baseURL", Problem: "needs an http or https scheme"}
	}
	if u.Host == "" {
		return "", &ParamError{Param: "baseURL", Problem: "needs a host"}
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", &ParamError{Param: "baseURL", Problem: "must not carry a query, fragment or user info"}
	}
	return trimmed, nil
}

// Sandbox reports whether the client's key is a sandbox key (sk_test_),
// which only ever reaches the account's sandbox workspace.
func (c *Client) Sandbox() bool { return strings.HasPrefix(c.creds.bearer(), "sk_test_") }

// Quota returns the latest quota snapshot reported by the server. It is safe
// to call at any time, concurrently with requests.
func (c *Client) Quota() Quota { return c.quota.get() }

// BaseURL returns the API root the client sends requests to, without a
// trailing slash.
func (c *Client) BaseURL() string { return c.baseURL }

// String describes the client without its key.
func (c *Client) String() string {
	return fmt.Sprintf("taskrouting.Client{baseURL: %q, sandbox: %t, apiKey: [redacted]}", c.baseURL, c.Sandbox())
}

// GoString describes the client for %#v without its key.
func (c *Client) GoString() string { return c.String() }

// LogValue lets the client be logged with slog without its key.
func (c *Client) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("baseURL", c.baseURL),
		slog.Bool("sandbox", c.Sandbox()),
		slog.String("apiKey", "[redacted]"),
	)
}
