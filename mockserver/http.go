package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/contract"
)

// MaxBodyBytes is the largest request body accepted; larger is 413 payload_too_large.
const MaxBodyBytes = 1 << 20

// request is what an operation sees of an HTTP request.
type request struct {
	method  string
	path    string
	params  []string // path parameters in order
	query   url.Values
	body    []byte
	decoded any // body as checkRequest parsed it for the schema; nil without a body
	idemKey string
	host    string // the host the request came to: origin() is made from it when an answer needs it

	// The worker and supervisor planes: no quota headers, no idempotency; the session's
	// worker and token.
	workerPlane    bool
	worker         string
	token          string
	loginWorkspace string // POST /worker-auth/login: the workspace the body names
	linkToken      string // join and accept-invite: the token that names the workspace

	supervisor *supervisor // the supervisor plane's session (its requests also set workerPlane)
}

// op runs one operation against a workspace under its lock and returns the status and the
// value to encode, or an error answer.
type op func(ws *workspace, now time.Time) (int, any, *apiError)

// response is a finished answer, kept whole so it can be replayed (idempotency) or thrown
// away (a drop-after-commit fault).
type response struct {
	status int
	body   []byte
	header http.Header  // may be nil
	quota  *quotaValues // the quota headers, written with header; nil: none
}

func errResponse(e *apiError) response {
	r := response{status: e.status, body: encodeError(e), header: http.Header{}}
	if e.retryAfter > 0 {
		r.header.Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	return r
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	requestID := s.stampRequestID(w)
	if strings.HasPrefix(r.URL.Path, adminPrefix) {
		s.serveAdmin(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, storagePrefix) {
		s.serveStorage(w, r)
		return
	}
	began := time.Now()
	// The header is kept as received, not copied: the recorder redacts the Authorization
	// header whenever a request is read (recorder.snapshot, recorder.where), and net/http
	// makes a fresh header for every request, so nothing changes it later.
	rec := Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header, At: s.clock.Now(), RequestID: requestID}
	rel := strings.TrimPrefix(r.URL.Path, BasePath)
	if !strings.HasPrefix(r.URL.Path, BasePath+"/") {
		s.log.Warn("request outside the base path: the platform answers 404; give the client Server.URL()", "method", r.Method, "path", r.URL.Path, "basePath", BasePath)
	}
	fault, faulted := s.faults.pick(r.Method, r.URL.Path, rel)
	if faulted && fault.Delay > 0 {
		rec.Fault, rec.Delay = "delay", fault.Delay
		s.faults.wait(r.Context(), fault.Delay)
	}
	// Held until the request is recorded, not while the answer is written: see Server.gate.
	// The deferred release covers a panic, which would otherwise leave Reset waiting forever.
	s.gate.RLock()
	held := true
	release := func() {
		if held {
			held = false
			s.gate.RUnlock()
		}
	}
	defer release()
	switch {
	case faulted && fault.Status != 0:
		e := errorf(fault.Status, codeForStatus(fault.Status), "injected fault")
		if fault.RetryAfter > 0 {
			e.retryAfter = int(math.Ceil(fault.RetryAfter.Seconds()))
		}
		resp := errResponse(e)
		s.faultQuota(r, resp.header)
		rec.Fault, rec.StatusCode = "status", resp.status
		s.record(rec, began)
		release()
		writeResponse(w, resp)
		return
	case faulted && fault.DropBeforeCommit:
		rec.Fault = "drop-before-commit"
		s.record(rec, began)
		release()
		dropConnection(w)
		return
	}
	var resp response
	var body []byte
	if isWorkerPlane(r.URL.Path) {
		resp, body = s.handleWorkerPlane(r)
	} else if isSupervisorPlane(r.URL.Path) {
		resp, body = s.handleSupervisorPlane(r)
	} else {
		resp, body = s.handle(r)
	}
	rec.Body = redactBody(r.URL.Path, body)
	if faulted && fault.DropAfterCommit {
		rec.Fault = "drop-after-commit"
		s.record(rec, began)
		release()
		dropConnection(w)
		return
	}
	s.checkResponse(r, &resp)
	rec.StatusCode = resp.status
	s.record(rec, began)
	release()
	writeResponse(w, resp)
}

// faultQuota puts on an injected answer the quota headers the request would have had: its
// workspace's usage (not a fresh, untouched quota, which would reset a client's snapshot),
// and none on the worker plane, whose answers never carry them.
func (s *Server) faultQuota(r *http.Request, h http.Header) {
	if isWorkerPlane(r.URL.Path) || isSupervisorPlane(r.URL.Path) {
		return
	}
	ws := s.authenticate(r)
	if ws != nil {
		ws.mu.Lock()
		defer ws.mu.Unlock()
	}
	quotaHeaders(ws, s.cfg.limits, s.clock.Now(), h)
}

func writeResponse(w http.ResponseWriter, resp response) {
	h := w.Header()
	for k, v := range resp.header {
		h[k] = v
	}
	if resp.quota != nil {
		resp.quota.set(h)
	}
	if len(resp.body) > 0 {
		vals := [...]string{"application/json", strconv.Itoa(len(resp.body))}
		h["Content-Type"] = vals[0:1:1]
		h["Content-Length"] = vals[1:2:2]
	}
	w.WriteHeader(resp.status)
	if len(resp.body) > 0 {
		_, _ = w.Write(resp.body)
	}
}

// handle authenticates, routes, reads and validates, then runs the operation. Validation is
// complete before the workspace lock is taken, so a bad request never changes state.
func (s *Server) handle(r *http.Request) (response, []byte) {
	ws := s.authenticate(r)
	if ws == nil {
		resp := errResponse(errorf(http.StatusUnauthorized, CodeUnauthorized, "missing or invalid API key"))
		quotaHeaders(nil, s.cfg.limits, s.clock.Now(), resp.header)
		return resp, nil
	}
	rt, params, rerr := findRoute(&s.routes, r.Method, r.URL)
	var body []byte
	if rerr == nil && rt.hasBody {
		body, rerr = readBody(r)
	}
	var query url.Values // nil without a query: r.URL.Query would make an empty map
	if r.URL.RawQuery != "" {
		query = r.URL.Query()
	}
	req := &request{method: r.Method, path: r.URL.Path, params: params, query: query, body: body, host: r.Host}
	var run op
	if rerr == nil && r.Method == http.MethodPost {
		req.idemKey = headerValue(r.Header, "Idempotency-Key")
		if len(req.idemKey) > 255 {
			rerr = validationf("headers/idempotency-key must NOT have more than 255 characters")
		}
	}
	if rerr == nil {
		rerr = s.checkRequest(rt, req)
	}
	if rerr == nil {
		run, rerr = rt.prepare(req)
	}
	if rerr != nil {
		resp := errResponse(rerr)
		if rt.allow != "" {
			resp.header.Set("Allow", rt.allow)
		}
		ws.mu.Lock()
		quotaHeaders(ws, s.cfg.limits, s.clock.Now(), resp.header)
		ws.mu.Unlock()
		return resp, body
	}
	resp := s.exec(ws, req, run)
	if !req.read() {
		s.sendDueNotices(ws)
	}
	return resp, body
}

func (s *Server) authenticate(r *http.Request) *workspace {
	auth := headerValue(r.Header, "Authorization")
	key, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || key == "" {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.workspaces[key]
}

// headerValue is h.Get(key) for a key already in canonical form, without Get's
// canonicalization of the key on every call (a few hundred instructions each, three times a
// request). The keys of a header net/http parsed are canonical, and Get finds no other.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// readBody enforces the JSON content type and the size limit.
func readBody(r *http.Request) ([]byte, *apiError) {
	if r.ContentLength > MaxBodyBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "body must NOT be larger than %d bytes", MaxBodyBytes)
	}
	// The usual content type is checked without mime.ParseMediaType, which allocates a map.
	if ct := headerValue(r.Header, "Content-Type"); ct != "application/json" && (ct != "" || r.ContentLength > 0) {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, errorf(http.StatusUnsupportedMediaType, CodeUnsupportedMedia, "content type must be application/json")
		}
	}
	// Read one byte past the limit so a body without Content-Length is caught too.
	lr := io.LimitedReader{R: r.Body, N: MaxBodyBytes + 1}
	b, err := readAll(&lr, r.ContentLength)
	if err != nil {
		return nil, invalidBodyf("body could not be read")
	}
	if len(b) > MaxBodyBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "body must NOT be larger than %d bytes", MaxBodyBytes)
	}
	if len(bytes.TrimSpace(b)) == 0 && headerValue(r.Header, "Content-Type") != "" {
		// A JSON content type announces a JSON document, and no bytes are none: the
		// platform's parser refuses it even where the body is optional. An optional body
		// is left out by sending no content type.
		return nil, validationf("body must not be empty when content-type is application/json")
	}
	return b, nil
}

// jsonAppender is an answer value that writes its own JSON, the text json.Marshal gives.
type jsonAppender interface{ appendJSON([]byte) []byte }

// readAll is io.ReadAll with the buffer sized by the announced length (and one byte to
// see the end): the body is kept by the journal and the state log, so a 100-byte create
// neither starts in io.ReadAll's 512-byte buffer nor keeps it. A length that is wrong or
// absent (-1) only costs the usual growth.
func readAll(r io.Reader, announced int64) ([]byte, error) {
	if announced < 0 || announced > MaxBodyBytes {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, announced+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// exec runs an operation under the workspace lock: for a command, the maintenance due by
// the server's clock first (offer expiries, recurring occurrences, run timeouts), then the
// idempotency check, the operation, the stored answer, the quota snapshot and the events, in
// that order. A read (GET, HEAD) runs no maintenance and no match pass: it never changes
// state, and what is due is done by the clock's own visit (a ManualClock's Advance, or the
// real-clock timer) or by the next command.
func (s *Server) exec(ws *workspace, req *request, run op) response {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	now := s.clock.Now()
	logged := ws.cmds.begin(req, now)
	if !req.read() {
		ws.publish(ws.engine.Advance(now))
		ws.fireRecurring(now)
		ws.timeOutRuns(now) // a step past its timeout fails before a late callback can end it
	}

	resp, replayed := s.replay(ws, req, now)
	if !replayed {
		status, v, aerr := run(ws, now)
		if aerr != nil {
			resp = errResponse(aerr)
		} else {
			// No header map: a success carries only the quota headers (resp.quota).
			resp = response{status: status}
			if a, ok := v.(jsonAppender); ok {
				resp.body = a.appendJSON(nil)
			} else if v != nil {
				b, err := json.Marshal(v)
				if err != nil {
					resp = errResponse(errorf(http.StatusInternalServerError, CodeInternalError, "could not encode the answer"))
				} else {
					resp.body = b
				}
			}
		}
		// Only successes are stored: a refused request changed nothing, so running it again
		// is safe, and a rejected request must leave no trace (not even a used key).
		if req.idemKey != "" && resp.status < 300 {
			e := &idemEntry{print: printOf(req.method, req.path, req.body), status: resp.status, body: resp.body, at: now}
			ws.idem.store(req.idemKey, e)
			ws.noteIdempotent(req.idemKey, e, req, v)
		}
	}
	ws.forgetFinished()
	ws.cmds.end(logged, resp.status)
	if !req.workerPlane {
		resp.quota = quotaSnapshot(ws, s.cfg.limits, now)
	}
	if ws.flush(s.deliver) || ws.timersMoved() || ws.recurring.takeMoved() {
		s.nudge()
	}
	return resp
}

// origin is the scheme and host the request came to, for URLs the answer hands out.
func (req *request) origin() string { return "http://" + req.host }

// read reports whether the request only reads (GET, HEAD): it runs no maintenance, no
// match pass and sends nothing.
func (req *request) read() bool {
	return req.method == http.MethodGet || req.method == http.MethodHead
}

func (s *Server) replay(ws *workspace, req *request, now time.Time) (response, bool) {
	if req.idemKey == "" {
		return response{}, false
	}
	e := ws.idem.lookup(req.idemKey, now)
	if e == nil {
		return response{}, false
	}
	if !e.print.matches(req.method, req.path, req.body) {
		return errResponse(conflictf(CodeIdempotencyConflict, "this Idempotency-Key was used with another request")), true
	}
	h := http.Header{}
	h.Set("Idempotent-Replayed", "true")
	return response{status: e.status, body: e.body, header: h}, true
}

// checkRequest validates the text of the body (jsontext.go), then the query and body against the operation's schemas in
// api/openapi.json; the prepare functions then hold only what no schema can state
// (cross-member rules, state).
func (s *Server) checkRequest(rt route, req *request) *apiError {
	// Every plane's requests pass here: strings that are not Unicode text are refused
	// before the schema, which would only see them after U+FFFD replaced the bad parts.
	if aerr := checkJSONText(req.body); aerr != nil {
		return aerr
	}
	// The body is parsed here once, for the schema; prepare functions that need to know
	// which members were sent read this tree (request.sent) instead of parsing again.
	if len(req.body) > 0 {
		v, err := contract.DecodeJSON(req.body)
		if err != nil {
			return validationf("body must be valid JSON")
		}
		req.decoded = v
	}
	err := s.contract.ValidateDecoded(rt.opID, req.query, req.decoded, len(req.body) > 0)
	if err == nil {
		return nil
	}
	var ve *contract.ValidationError
	if errors.As(err, &ve) {
		return validationf("%s", ve.Error())
	}
	return errorf(http.StatusInternalServerError, CodeInternalError, "%s", err.Error())
}
