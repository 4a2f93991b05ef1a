package taskrouting

import (
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// RequestOption configures a client, when given to NewClient or
// NewWorkerClient, or a single call, when given as a method's last
// arguments. It is one type for both places so that a setting reads the
// same wherever it is made, and a call's option simply overrides the
// client's setting for that call alone (the client is never changed).
//
// A few options only have a meaning in one place and are refused with a
// *ParamError in the other: WithHTTPClient, WithLogger and WithUserAgent
// shape the client; WithIdempotencyKey, WithResponseInto and WithJSONSet
// belong to one call. A nil option is ignored.
type RequestOption func(*config) error

// Option is another name for RequestOption.
//
// Deprecated: use RequestOption, the one option type of the clients and
// their calls. Option is the same type, kept so code written with it
// compiles unchanged.
type Option = RequestOption

// config is what the options set. The client keeps one, resolved once in
// NewClient; each call starts from a copy of it and applies its own
// options on top.
type config struct {
	perCall bool // the options being applied are a single call's

	httpClient    *http.Client
	timeout       time.Duration // per attempt; 0 means none
	timeoutSet    bool
	maxRetries    int
	retryWaitMin  time.Duration
	retryWaitMax  time.Duration
	maxRetryAfter time.Duration
	logger        *slog.Logger
	userAgent     string
	header        http.Header
	pacingWindow  time.Duration    // 0: no quota pacing
	now           func() time.Time // the worker client's clock for session expiry; nil: time.Now

	middleware []Middleware // the client's first, then the call's

	idempotencyKey string
	response       *Response
	jsonSet        []jsonSet // WithJSONSet, applied in order to the encoded body
	skipLimits     bool      // WithoutLimitChecks: send values over the platform's limits

	// Set only by this package's own calls, never by a caller:
	bearerSet bool     // send bearer instead of the client's credential
	bearer    string   // "" sends no Authorization (the worker plane's sign-in)
	redact    []string // secrets of the request body to scrub from an *APIError
}

const (
	defaultMaxRetries    = 2
	defaultRetryWaitMin  = 250 * time.Millisecond
	defaultRetryWaitMax  = 5 * time.Second
	defaultMaxRetryAfter = 60 * time.Second
	defaultTimeout       = 60 * time.Second
)

// clientOnly refuses an option that has no meaning for a single call.
func (o *config) clientOnly(name string) error {
	if o.perCall {
		return &ParamError{Param: name, Problem: "applies to a client, not to a single call"}
	}
	return nil
}

// callOnly refuses an option that has no meaning for a whole client.
func (o *config) callOnly(name string) error {
	if !o.perCall {
		return &ParamError{Param: name, Problem: "applies to a single call, not to a client"}
	}
	return nil
}

// WithHTTPClient sets the HTTP client whose transport carries every
// attempt; client only. The client is copied, never changed: the copy gets
// the redirect rule (see the package documentation) in front of hc's own
// CheckRedirect, and WithTimeout, when given, replaces hc.Timeout.
func WithHTTPClient(hc *http.Client) RequestOption {
	return func(o *config) error {
		if hc == nil {
			return &ParamError{Param: "WithHTTPClient", Problem: "must not be nil"}
		}
		if err := o.clientOnly("WithHTTPClient"); err != nil {
			return err
		}
		o.httpClient = hc
		return nil
	}
}

// WithTimeout bounds each attempt (connecting, sending, reading the whole
// answer) to d, at the client (default 60s, or the Timeout of the client
// given to WithHTTPClient) or for one call. Zero means no bound. It bounds
// attempts, not the call, so a slow attempt can still be retried; the
// call's context bounds the whole call, waits between attempts included.
func WithTimeout(d time.Duration) RequestOption {
	return func(o *config) error {
		if d < 0 {
			return &ParamError{Param: "WithTimeout", Problem: "must not be negative"}
		}
		o.timeout, o.timeoutSet = d, true
		return nil
	}
}

// WithMaxRetries sets how many times a failed attempt is retried (default
// 2), at the client or for one call. Zero turns retries off.
func WithMaxRetries(n int) RequestOption {
	return func(o *config) error {
		if n < 0 {
			return &ParamError{Param: "WithMaxRetries", Problem: "must not be negative"}
		}
		o.maxRetries = n
		return nil
	}
}

// WithRetryWait sets the bounds of the jittered exponential backoff between
// attempts (default 250ms to 5s), at the client or for one call. A server's
// Retry-After replaces it.
func WithRetryWait(minWait, maxWait time.Duration) RequestOption {
	return func(o *config) error {
		if minWait < 0 || maxWait < minWait {
			return &ParamError{Param: "WithRetryWait", Problem: "needs 0 <= min <= max"}
		}
		o.retryWaitMin, o.retryWaitMax = minWait, maxWait
		return nil
	}
}

// WithMaxRetryAfter caps how long the client waits for a server's
// Retry-After (default 60s), at the client or for one call. A longer
// Retry-After (or one past the call's context deadline) is not waited for:
// the call returns the 429 or 503 at once as an *APIError with RetryAfter set.
func WithMaxRetryAfter(d time.Duration) RequestOption {
	return func(o *config) error {
		if d < 0 {
			return &ParamError{Param: "WithMaxRetryAfter", Problem: "must not be negative"}
		}
		o.maxRetryAfter = d
		return nil
	}
}

// WithLogger logs one line per attempt (method, path, status, attempt,
// duration) to l; client only. Logging is off by default. The API key,
// headers and bodies are never logged.
func WithLogger(l *slog.Logger) RequestOption {
	return func(o *config) error {
		if err := o.clientOnly("WithLogger"); err != nil {
			return err
		}
		o.logger = l
		return nil
	}
}

// WithUserAgent puts product in front of the client's own User-Agent,
// e.g. "myapp/1.2 taskrouting-go/0.1.0 go/go1.24.0"; client only.
func WithUserAgent(product string) RequestOption {
	return func(o *config) error {
		if strings.ContainsAny(product, "\r\n") {
			return &ParamError{Param: "WithUserAgent", Problem: "must not contain line breaks"}
		}
		if err := o.clientOnly("WithUserAgent"); err != nil {
			return err
		}
		o.userAgent = product
		return nil
	}
}

// WithHeader sets a header on every call (at the client) or on one call,
// where it replaces a value the client's WithHeader gave the same name. It
// cannot replace the headers the client owns (Authorization, Content-Type,
// Accept, Idempotency-Key, User-Agent): trying to is a *ParamError. Use
// WithIdempotencyKey for the key.
func WithHeader(name, value string) RequestOption {
	return func(o *config) error {
		canonical := http.CanonicalHeaderKey(name)
		if ownedHeader(canonical) {
			return &ParamError{Param: "WithHeader", Problem: "cannot set " + canonical}
		}
		if o.header == nil {
			o.header = make(http.Header)
		}
		o.header.Set(canonical, value)
		return nil
	}
}

// WithIdempotencyKey sends key as the call's Idempotency-Key instead of a
// generated one; call only. It only applies to POST calls, the ones that
// carry a key. Reuse a key to make a repeated call return the first call's
// answer. The worker plane takes no keys: on a WorkerClient call it is a
// *ParamError.
func WithIdempotencyKey(key string) RequestOption {
	return func(o *config) error {
		if err := o.callOnly("WithIdempotencyKey"); err != nil {
			return err
		}
		o.idempotencyKey = key
		return nil
	}
}

// Response describes the HTTP answer of one call, for what the typed result
// does not carry. It is filled by WithResponseInto.
type Response struct {
	StatusCode int         // status of the last attempt, e.g. 201
	Header     http.Header // headers of the last attempt's answer
	// RequestID is the answer's X-Request-Id, "" when the server sent none;
	// quote it when reporting a problem with a call. A failed call's is on
	// APIError.RequestID too.
	RequestID string
	// Attempts is how many attempts the call made, retries included.
	Attempts int
}

// WithResponseInto fills *r with the call's HTTP answer once it arrives,
// for a success and for an *APIError alike; call only. After a transport
// failure (no answer at all) *r stays as it was. A pointer to fill, rather
// than a second return value, keeps every method's results the same with
// or without it.
func WithResponseInto(r *Response) RequestOption {
	return func(o *config) error {
		if r == nil {
			return &ParamError{Param: "WithResponseInto", Problem: "must not be nil"}
		}
		if err := o.callOnly("WithResponseInto"); err != nil {
			return err
		}
		o.response = r
		return nil
	}
}
