package mockserver

import (
	"encoding/binary"
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
	reqs  []recorded
	seq   int64 // the last Seq given
}

// recorded is a journal entry: the request with its header packed into one string
// (packHeader) and Header nil. The journal keeps up to its limit of requests (10,000 in the
// binary) for the server's life, and net/http's header of a request (a map, its value
// slices and each value's string, about 650 bytes for a usual client's six headers) was a
// quarter of what a create left on the heap; packed it is one allocation of about 150 bytes
// the collector does not scan. Every read builds the header anew, as the redacting copy it
// always made (recorded.read).
type recorded struct {
	Request
	header string // packHeader(the request's header)
}

func (r *recorder) add(req Request) {
	if r.limit <= 0 {
		return
	}
	e := recorded{Request: req, header: packHeader(req.Header)}
	e.Header = nil
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	e.Seq = r.seq
	if len(r.reqs) >= r.limit {
		// Keep the newest half; a long benchmark must not grow memory without bound.
		keep := r.limit / 2
		r.reqs = append(r.reqs[:0], r.reqs[len(r.reqs)-keep:]...)
	}
	r.reqs = append(r.reqs, e)
}

func (r *recorder) snapshot() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Request, len(r.reqs))
	for i := range r.reqs {
		out[i] = r.reqs[i].read()
	}
	return out
}

// read is the entry as a Request, its header unpacked and redacted.
func (e *recorded) read() Request {
	req := e.Request
	req.Header = redactOwnHeader(unpackHeader(e.header)) // a fresh copy: every read builds it anew
	return req
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = nil
}

// packHeader writes h as one string: the number of keys, then per key its length and
// text, its number of values plus one (0: a nil slice, which Clone keeps apart from an
// empty one), and each value's length and text, every number a uvarint. nil packs to "".
func packHeader(h http.Header) string {
	if h == nil {
		return ""
	}
	var stack [512]byte // a usual request's header fits: the string is the one allocation
	b := binary.AppendUvarint(stack[:0], uint64(len(h)))
	for k, vv := range h {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		if vv == nil {
			b = append(b, 0)
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(vv))+1)
		for _, v := range vv {
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
	}
	return string(b)
}

// unpackHeader is packHeader's header again, as h.Clone() copies it: its keys and values
// (cut from p, which is never changed), all values in one backing array.
func unpackHeader(p string) http.Header {
	if p == "" {
		return nil
	}
	num := func() int {
		n, w := uvarintString(p)
		p = p[w:]
		return int(n)
	}
	text := func() string {
		n := num()
		t := p[:n]
		p = p[n:]
		return t
	}
	keys := num()
	h := make(http.Header, keys)
	var vals []string
	for range keys {
		k := text()
		n := num()
		switch n {
		case 0:
			h[k] = nil
			continue
		case 1: // empty, not nil (vals may still be nil here)
			h[k] = []string{}
			continue
		}
		start := len(vals)
		for range n - 1 {
			vals = append(vals, text())
		}
		h[k] = vals[start:len(vals):len(vals)] // capped: an append to one key's values copies, as with Clone
	}
	return h
}

// uvarintString is binary.Uvarint over a string (packHeader wrote it, so it is well formed).
func uvarintString(s string) (uint64, int) {
	var x uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<(7*i), i + 1
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
	return x, len(s)
}

// redactHeader copies h without credentials; every read of the journal goes through it.
func redactHeader(h http.Header) http.Header {
	return redactOwnHeader(h.Clone())
}

// redactOwnHeader takes the credentials out of a header no one else holds.
func redactOwnHeader(h http.Header) http.Header {
	if h.Get("Authorization") != "" {
		h.Set("Authorization", "Bearer "+redacted)
	}
	return h
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
