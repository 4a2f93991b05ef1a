package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Middleware wraps one call: it sees the request before the first attempt
// and the answer the client settled on after the last, and calls next to
// send it. next runs every attempt of the call, with the client's retries,
// backoff and Retry-After waits inside it, so a middleware runs once per
// call however many attempts the call makes. CallInfoFromContext on the
// request's context tells which operation the call is and, once next has
// returned, how each attempt went.
//
// A middleware may change the request's headers in place, or hand next a
// new request (req.WithContext, req.Clone) and that one is sent; a request
// given a body of its own sends that body instead of the call's JSON, on
// every attempt: the client reads it once and counts its length itself, so
// a clone keeps no stale ContentLength (a Body that is nil or http.NoBody
// keeps the call's JSON). It may read the answer's headers; a middleware that reads the answer's body
// must give next's caller a response whose body still holds it. Returning
// an error without calling next sends nothing; the call then fails with
// that error wrapped. An answer returned together with an error is closed
// and the call fails with the error; a nil request given to next is an
// error of the call, never handed on to the next middleware.
//
// To act on each attempt instead (one span per attempt, request signing
// with a fresh timestamp), wrap the transport of the http.Client given to
// WithHTTPClient: that transport runs once per attempt, and
// CallInfoFromContext works there too.
type Middleware func(req *http.Request, next MiddlewareNext) (*http.Response, error)

// MiddlewareNext sends the request on to the next middleware or, from the
// innermost one, through the client's attempts.
type MiddlewareNext func(req *http.Request) (*http.Response, error)

// WithMiddleware adds middlewares at the client (given to NewClient,
// NewWorkerClient or NewSupervisorClient) or for one call. The client's
// middlewares run outermost, in the order given; a call's middlewares run
// inside them, also in the order given: with
//
//	c, _ := taskrouting.NewClient(base, key, taskrouting.WithMiddleware(a, b))
//	c.Tasks.Get(ctx, id, taskrouting.WithMiddleware(x))
//
// the request passes a, b, x and then the attempts, and the answer comes
// back through x, b, a. A nil middleware is ignored.
func WithMiddleware(mw ...Middleware) RequestOption {
	return func(o *config) error {
		// A fresh slice: appending to the client's would let two calls
		// write into the same spare capacity.
		merged := make([]Middleware, 0, len(o.middleware)+len(mw))
		merged = append(merged, o.middleware...)
		for _, m := range mw {
			if m != nil {
				merged = append(merged, m)
			}
		}
		o.middleware = merged
		return nil
	}
}

// errNoResponse is what a middleware that returned neither an answer nor
// an error turns into.
var errNoResponse = errors.New("taskrouting: a middleware returned no response and no error")

// errNilRequest is what a middleware that passed a nil request to next gets back.
var errNilRequest = errors.New("taskrouting: a middleware passed a nil request to next")

// runMiddleware sends req through mws and then through run's attempts.
// Without middlewares the request goes straight to the attempts.
func runMiddleware(mws []Middleware, req *retryablehttp.Request, run *callRun) (*http.Response, error) {
	if len(mws) == 0 {
		return run.rc.Do(req)
	}
	attempts := func(r *http.Request) (*http.Response, error) {
		if r == nil { // from the innermost middleware
			return nil, errNilRequest
		}
		out := *req // keeps the call's body, rewound for every attempt
		out.Request = r
		if r.Body != nil && r.Body != http.NoBody {
			// The middleware gave the request a body of its own. It is
			// read once, to be sent again on every attempt, and its length
			// is counted here: a request made by req.Clone still declares
			// the call's ContentLength, which the transport would refuse.
			own, err := io.ReadAll(r.Body)
			r.Body.Close()
			if err != nil {
				return nil, fmt.Errorf("read a middleware's request body: %w", err)
			}
			out.Request = r.WithContext(r.Context()) // the middleware's request stays as it was
			out.Body = nil
			if err := out.SetBody(own); err != nil {
				return nil, err
			}
		}
		return run.rc.Do(&out)
	}
	next := MiddlewareNext(attempts)
	for i := len(mws) - 1; i >= 0; i-- {
		mw, inner := mws[i], next
		next = func(r *http.Request) (*http.Response, error) {
			if r == nil { // from the middleware outside this one
				return nil, errNilRequest
			}
			return mw(r, inner)
		}
	}
	resp, err := next(req.Request)
	if err == nil && resp == nil {
		return nil, errNoResponse
	}
	if err != nil && resp != nil && resp.Body != nil {
		resp.Body.Close()
		resp = nil
	}
	return resp, err
}

// CallInfo describes the call that a middleware or a transport is
// serving: the operation of api/openapi.json it sends, and, as they end,
// its attempts. It is safe for concurrent use.
type CallInfo struct {
	method string
	path   string // escaped path, relative to the base URL, without the query

	opOnce sync.Once
	op     operation

	mu       sync.Mutex
	attempts []Attempt
	first    [3]Attempt // backs attempts for the default budget, saving an allocation per call
}

// Attempt is one attempt of a call, as the client judged it.
type Attempt struct {
	Number     int           // 1 for the first attempt
	Start      time.Time     // when it was sent
	Duration   time.Duration // until its answer's headers, or its failure
	StatusCode int           // 0 when no answer came
	Err        error         // the transport failure, nil when an answer came
	// Retried is true when another attempt followed this one.
	Retried bool
}

type callInfoKey struct{}

// CallInfoFromContext returns the call that ctx belongs to, or nil outside
// a call: the request context a Middleware, or the transport under
// WithHTTPClient, is given.
func CallInfoFromContext(ctx context.Context) *CallInfo {
	ci, _ := ctx.Value(callInfoKey{}).(*CallInfo)
	return ci
}

func withCallInfo(ctx context.Context, method, path string) (context.Context, *CallInfo) {
	ci := &CallInfo{method: method, path: path}
	ci.attempts = ci.first[:0]
	return context.WithValue(ctx, callInfoKey{}, ci), ci
}

// Method is the call's HTTP method, e.g. "POST".
func (ci *CallInfo) Method() string { return ci.method }

// OperationID is the operation's id in api/openapi.json, e.g.
// "tasks.create", or "" when the method and path match no operation there
// (a call sent with Client.Do to a path the contract lacks). The storage
// requests of an attachment, sent to presigned URLs outside the API, are
// "storage.upload" and "storage.download" (UploadReader, Open); their
// path is a placeholder, never the URL.
func (ci *CallInfo) OperationID() string { return ci.operation().id }

// PathTemplate is the operation's path in api/openapi.json, with ids as
// parameters, e.g. "/tasks/{id}/accept", or "" when no operation matches.
// Unlike the path sent, it names a route without any caller's ids, so it
// can label metrics and spans.
func (ci *CallInfo) PathTemplate() string { return ci.operation().template }

func (ci *CallInfo) operation() operation {
	ci.opOnce.Do(func() { ci.op = lookupOperation(ci.method, ci.path) })
	return ci.op
}

// Attempts returns the attempts that have ended so far; after the
// middleware's next has returned, all of them.
func (ci *CallInfo) Attempts() []Attempt {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	return append([]Attempt(nil), ci.attempts...)
}

func (ci *CallInfo) record(a Attempt) {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	ci.attempts = append(ci.attempts, a)
}
