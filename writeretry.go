package taskrouting

import (
	"errors"
	"net"
	"net/http"
	"strings"
)

// ErrOutcomeUnknown matches the error of a write (any request but GET and
// HEAD) whose attempt reached the server and then failed without an answer:
// a reset or closed connection, a timeout while waiting. The server may
// have applied it. The transport error is wrapped alongside, so
// errors.As(err, &urlErr) still finds it.
//
// A write that carries an Idempotency-Key (every workspace-plane POST) can
// simply be sent again with the same key (WithIdempotencyKey). A write
// without one is not retried after such a failure, since a blind repeat of
// an applied write answers as a repeat does (a second Complete is
// ErrInvalidState, a second StartBreak ErrBreakAlreadyOpen); read the state
// back, or use the Ensure form of the call (EnsureCompleted,
// EnsureRejected, EnsureBreakStarted, EnsureBreakEnded, EnsureAccepted),
// which does that for you.
var ErrOutcomeUnknown = errors.New("taskrouting: outcome unknown, the request may have been applied")

// safeToRepeat reports whether a request may be sent again whatever became
// of an earlier attempt: a read, a PUT (it replaces a whole resource with
// the same content, so a repeat leaves the same state and the same answer),
// or a write that carries an Idempotency-Key (the server replays its first
// answer). Other writes (a POST without a key, PATCH, DELETE) are retried
// only after an attempt that cannot have been applied (notApplied).
func safeToRepeat(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut:
		return true
	}
	return req.Header.Get("Idempotency-Key") != ""
}

// notApplied reports whether an attempt's outcome proves the server did not
// apply it:
//   - no connection was made (the dial failed: refused, unreachable, no such
//     host, a dial timeout), so no byte of the request left the client;
//   - 429: the platform refuses the request before running it (a refused
//     create does not count against the quota, docs/contract.md §1);
//   - 503 with Retry-After: the server says it cannot handle the request now
//     and when to come back (RFC 9110 §15.6.4), the answer of an overloaded
//     or paused service that did not run it. A 503 without Retry-After (a
//     proxy's, perhaps after the request went on) and every other 5xx may
//     come after the change was made, so they are not retried for such a write.
func notApplied(resp *http.Response, err error) bool {
	if err != nil {
		return dialFailed(err)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusServiceUnavailable:
		return strings.TrimSpace(resp.Header.Get("Retry-After")) != ""
	}
	return false
}

// dialFailed reports whether err is a failure to open the connection,
// before any of the request was written.
func dialFailed(err error) bool {
	var opErr *net.OpError
	if errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect") {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr)
}

// writeMethod reports whether a method changes state on the server.
func writeMethod(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}
