package taskrouting

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Version is the version of this module, sent in the User-Agent.
const Version = "0.1.0"

// Client calls the task-routing API. Create it with NewClient; it is safe
// for concurrent use. Its fields are the API's resource groups.
type Client struct {
	Tasks     *TasksService
	Workers   *WorkersService
	Decisions *DecisionsService
	Learning  *LearningService

	baseURL   string // no trailing slash
	userAgent string
	// creds sits behind a pointer so that printing a Client value with
	// fmt's %v or %+v shows an address, never the key: fmt does not call
	// String on unexported fields.
	creds  *credentials
	retry  *retryablehttp.Client
	logger *slog.Logger
	// quota sits behind a pointer so a copied Client value shares it. It is
	// nil on the worker plane (WorkerClient), whose answers carry no quota.
	quota *quotaTracker
	// idempotencyKeys is true on the workspace plane, where every POST
	// carries an Idempotency-Key; the worker plane takes none.
	idempotencyKeys bool

	maxRetryAfter time.Duration
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
	mu       sync.RWMutex
	secret   string // API key or worker token; "" when signed out
	workerID string // worker plane only
}

func (cr *credentials) bearer() string {
	cr.mu.RLock()
	defer cr.mu.RUnlock()
	return cr.secret
}

func (cr *credentials) session() (token, workerID string) {
	cr.mu.RLock()
	defer cr.mu.RUnlock()
	return cr.secret, cr.workerID
}

func (cr *credentials) set(secret, workerID string) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.secret, cr.workerID = secret, workerID
}

// forget signs out, unless a newer session has replaced secret meanwhile.
func (cr *credentials) forget(secret string) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.secret == secret {
		cr.secret, cr.workerID = "", ""
	}
}

// NewClient returns a client for the API rooted at baseURL (for example
// "https://api.example.com/v1"; trailing slashes are ignored) that
// authenticates with apiKey as a bearer token. Keys normally start with
// sk_live_ or sk_test_ (see Sandbox); other keys are sent as given.
func NewClient(baseURL, apiKey string, opts ...Option) (*Client, error) {
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
	c, err := newClient(base, &credentials{secret: apiKey}, opts)
	if err != nil {
		return nil, err
	}
	c.quota = &quotaTracker{}
	c.idempotencyKeys = true
	c.Tasks = &TasksService{c: c}
	c.Workers = &WorkersService{c: c}
	c.Decisions = &DecisionsService{c: c}
	c.Learning = &LearningService{c: c}
	return c, nil
}

// newClient builds the request path both planes share (options, transport,
// retries, User-Agent) around creds. The caller adds what its plane has on
// top: NewClient the quota tracker, idempotency keys and services.
func newClient(base string, creds *credentials, opts []Option) (*Client, error) {
	s := settings{
		maxRetries:    defaultMaxRetries,
		retryWaitMin:  defaultRetryWaitMin,
		retryWaitMax:  defaultRetryWaitMax,
		maxRetryAfter: defaultMaxRetryAfter,
	}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&s); err != nil {
			return nil, err
		}
	}
	if s.httpClient == nil {
		// A transport of our own: retryablehttp closes idle connections of
		// the client's transport after a failed call, which must not reach
		// into http.DefaultTransport shared by the whole program.
		s.httpClient = &http.Client{
			Transport: http.DefaultTransport.(*http.Transport).Clone(),
			Timeout:   defaultTimeout,
		}
	}
	ua := "taskrouting-go/" + Version + " go/" + runtime.Version()
	if s.userAgent != "" {
		ua = s.userAgent + " " + ua
	}
	c := &Client{
		baseURL:        base,
		userAgent:      ua,
		creds:          creds,
		logger:         s.logger,
		maxRetryAfter:  s.maxRetryAfter,
		retryAfterUnit: time.Second,
	}
	c.retry = c.newRetryClient(s)
	return c, nil
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
