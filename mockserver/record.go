package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Request is one request the server received, as recorded for assertions. The Authorization
// header and a worker sign-in's PIN are redacted: recorded requests are meant to be printed
// in test failures.
type Request struct {
	Method     string
	Path       string
	RawQuery   string
	Header     http.Header
	Body       []byte
	StatusCode int           // what was answered; 0 when the connection was dropped
	Fault      string        // "status", "drop-before-commit", "drop-after-commit", "delay" or empty
	Delay      time.Duration // what a fault made the request wait (Fault.Delay, or drawn from Fault.DelayDist)
	At         time.Time
	RequestID  string // the X-Request-Id the answer carried (RequestIDHeader)
	// Seq numbers the recorded requests from 1 in the order they were recorded; it is never
	// reused, also across Reset, so RequestFilter.Since reads only what came after.
	Seq int64
}

const redacted = "[REDACTED]"

type recorder struct {
	mu    sync.Mutex
	limit int
	reqs  []Request
	seq   int64 // the last Seq given
}

func (r *recorder) add(req Request) {
	if r.limit <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	req.Seq = r.seq
	if len(r.reqs) >= r.limit {
		// Keep the newest half; a long benchmark must not grow memory without bound.
		keep := r.limit / 2
		r.reqs = append(r.reqs[:0], r.reqs[len(r.reqs)-keep:]...)
	}
	r.reqs = append(r.reqs, req)
}

func (r *recorder) snapshot() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]Request(nil), r.reqs...)
	for i := range out {
		out[i].Header = redactHeader(out[i].Header)
	}
	return out
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = nil
}

// redactHeader copies h without credentials; every read of the journal goes through it.
func redactHeader(h http.Header) http.Header {
	out := h.Clone()
	if out.Get("Authorization") != "" {
		out.Set("Authorization", "Bearer "+redacted)
	}
	return out
}

// redactBody hides the PIN of a worker sign-in (identities.create and update, login, join,
// accept-invite, changePin), the invite or join token, and a notification channel's signing secret: like the
// Authorization header they are credentials, and recorded requests are printed in test
// failures. Other members stay readable; a body that is not a JSON object on those paths is
// dropped whole, since it may still hold the credential.
func redactBody(path string, body []byte) []byte {
	members := secretMembersOf(path)
	if len(body) == 0 || len(members) == 0 {
		return body
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m == nil {
		return []byte(redacted)
	}
	found := false
	for k := range m {
		// Any spelling: a misspelt member is refused, but the request is still recorded.
		for _, member := range members {
			if strings.EqualFold(k, member) {
				m[k] = json.RawMessage(`"` + redacted + `"`)
				found = true
			}
		}
	}
	if !found {
		return body
	}
	out, err := json.Marshal(m)
	if err != nil {
		return []byte(redacted)
	}
	return out
}

// secretMembersOf names the body members that hold a credential on path, nil when none.
func secretMembersOf(path string) []string {
	switch {
	case strings.HasSuffix(path, "/identity"), strings.HasSuffix(path, "/worker-auth/login"):
		return []string{"pin"}
	case strings.HasSuffix(path, "/worker-auth/join"), strings.HasSuffix(path, "/worker-auth/accept-invite"):
		return []string{"pin", "token"}
	case strings.HasSuffix(path, "/portal/me/pin"):
		return []string{"currentPin", "newPin"}
	case strings.Contains(path, "/notification-channels"):
		return []string{"secret"}
	case strings.HasSuffix(path, "/supervisor-auth/accept"):
		return []string{"token"} // a supervisor link, single-use but a credential until used
	case strings.HasSuffix(path, "/push/subscriptions"):
		return []string{"keys"} // keys.auth is the subscription's secret
	}
	return nil
}

// outsideBasePath counts the recorded requests whose path is not under BasePath (the usual
// cause: a client given the server's root instead of URL()) and names the first.
func (s *Server) outsideBasePath() (n int, first string) {
	for _, r := range s.Requests() {
		if !strings.HasPrefix(r.Path, BasePath+"/") {
			if n == 0 {
				first = r.Method + " " + r.Path
			}
			n++
		}
	}
	return n, first
}
