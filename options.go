package taskrouting

import (
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Option configures a Client in NewClient or a WorkerClient in NewWorkerClient.
type Option func(*settings) error

// settings collects the options before NewClient builds the client.
type settings struct {
	httpClient    *http.Client
	maxRetries    int
	retryWaitMin  time.Duration
	retryWaitMax  time.Duration
	maxRetryAfter time.Duration
	logger        *slog.Logger
	userAgent     string
}

const (
	defaultMaxRetries    = 2
	defaultRetryWaitMin  = 250 * time.Millisecond
	defaultRetryWaitMax  = 5 * time.Second
	defaultMaxRetryAfter = 60 * time.Second
	defaultTimeout       = 60 * time.Second
)

// WithHTTPClient sets the HTTP client whose transport carries every attempt.
// Its Timeout bounds each attempt; the call's context bounds the whole call.
func WithHTTPClient(hc *http.Client) Option {
	return func(s *settings) error {
		if hc == nil {
			return &ParamError{Param: "WithHTTPClient", Problem: "must not be nil"}
		}
		s.httpClient = hc
		return nil
	}
}

// WithMaxRetries sets how many times a failed attempt is retried (default 2).
// Zero turns retries off.
func WithMaxRetries(n int) Option {
	return func(s *settings) error {
		if n < 0 {
			return &ParamError{Param: "WithMaxRetries", Problem: "must not be negative"}
		}
		s.maxRetries = n
		return nil
	}
}

// WithRetryWait sets the bounds of the jittered exponential backoff between
// attempts (default 250ms to 5s). A server's Retry-After replaces it.
func WithRetryWait(minWait, maxWait time.Duration) Option {
	return func(s *settings) error {
		if minWait < 0 || maxWait < minWait {
			return &ParamError{Param: "WithRetryWait", Problem: "needs 0 <= min <= max"}
		}
		s.retryWaitMin, s.retryWaitMax = minWait, maxWait
		return nil
	}
}

// WithMaxRetryAfter caps how long the client waits for a server's
// Retry-After (default 60s). A longer Retry-After (or one past the call's
// context deadline) is not waited for: the call returns the 429 or 503 at
// once as an *APIError with RetryAfter set.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(s *settings) error {
		if d < 0 {
			return &ParamError{Param: "WithMaxRetryAfter", Problem: "must not be negative"}
		}
		s.maxRetryAfter = d
		return nil
	}
}

// WithLogger logs one line per attempt (method, path, status, attempt,
// duration) to l. Logging is off by default. The API key, headers and
// bodies are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) error {
		s.logger = l
		return nil
	}
}

// WithUserAgent puts product in front of the client's own User-Agent,
// e.g. "myapp/1.2 taskrouting-go/0.1.0 go/go1.24.0".
func WithUserAgent(product string) Option {
	return func(s *settings) error {
		if strings.ContainsAny(product, "\r\n") {
			return &ParamError{Param: "WithUserAgent", Problem: "must not contain line breaks"}
		}
		s.userAgent = product
		return nil
	}
}

// RequestOption changes a single call; every service method takes them as
// its last, variadic argument.
type RequestOption func(*requestOptions)

type requestOptions struct {
	idempotencyKey string
	header         http.Header
	// Set only by this package's own calls, never by a caller:
	bearerSet bool     // send bearer instead of the client's credential
	bearer    string   // "" sends no Authorization (the worker plane's sign-in)
	redact    []string // secrets of the request body to scrub from an *APIError
}

// WithIdempotencyKey sends key as the call's Idempotency-Key instead of a
// generated one. It only applies to POST calls, the ones that carry a key.
// Reuse a key to make a repeated call return the first call's answer. The
// worker plane takes no keys: on a WorkerClient call it is a *ParamError.
func WithIdempotencyKey(key string) RequestOption {
	return func(o *requestOptions) { o.idempotencyKey = key }
}

// WithHeader adds a header to the call. It cannot replace the headers the
// client owns (Authorization, Content-Type, Accept, Idempotency-Key,
// User-Agent): trying to is a *ParamError. Use WithIdempotencyKey for the key.
func WithHeader(name, value string) RequestOption {
	return func(o *requestOptions) {
		if o.header == nil {
			o.header = make(http.Header)
		}
		o.header.Add(name, value)
	}
}
