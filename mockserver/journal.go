package mockserver

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// RequestFilter selects recorded requests (Server.RequestsWhere, Server.CountRequests,
// GET /_mock/requests); the zero value selects every one. Matches come oldest first.
type RequestFilter struct {
	// Since keeps requests with Seq > Since: pass the Seq of the last one read.
	Since int64
	// Method keeps requests of this method (any case); empty: any.
	Method string
	// Path is a path.Match pattern, matched as Fault.Path is: against the path as sent
	// ("/v1/tasks/*") and relative to the base URL ("/tasks/*"); empty: any.
	Path string
	// TaskID keeps requests that name the task: in their path (/v1/tasks/{id}/..., the
	// worker plane's /tasks/{id}/...) or, a create, as the body's id. A create without an id
	// learns its id from the answer, which the journal does not keep.
	TaskID string
	// Limit returns at most this many (the oldest matches after Since); 0: no limit.
	Limit int
}

// EventFilter selects webhook events (Server.EventsWhere, Server.CountEvents,
// GET /_mock/events); the zero value selects every one. Matches come in emission order.
type EventFilter struct {
	// Since keeps events with Seq > Since: pass the Seq of the last one read.
	Since int64
	// Kind keeps events of this kind; empty: any.
	Kind webhook.Kind
	// TaskID keeps events about this task; empty: any.
	TaskID string
	// Limit returns at most this many (the oldest matches after Since); 0: no limit.
	Limit int
}

// RequestsWhere returns the recorded requests f selects, oldest first (of those Requests
// still keeps: WithRequestLog).
func (s *Server) RequestsWhere(f RequestFilter) []Request {
	out, _, _ := s.rec.where(f, false)
	return out
}

// CountRequests counts the recorded requests f selects, ignoring f.Limit: "was this called
// N times" without copying the journal.
func (s *Server) CountRequests(f RequestFilter) int {
	_, n, _ := s.rec.where(f, true)
	return n
}

// EventsWhere returns the webhook events f selects, in emission order (of those Events still
// keeps: WithRetention).
func (s *Server) EventsWhere(f EventFilter) []Event {
	out, _, _ := s.deliver.where(f, false)
	return out
}

// CountEvents counts the webhook events f selects, ignoring f.Limit.
func (s *Server) CountEvents(f EventFilter) int {
	_, n, _ := s.deliver.where(f, true)
	return n
}

// where scans from the first request after f.Since (Seq grows along r.reqs, so a binary
// search finds it) and returns the matches, their count, and the Seq a caller passes as
// Since next: the last match returned when Limit cut the list, else the newest recorded.
func (r *recorder) where(f RequestFilter, count bool) ([]Request, int, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := sort.Search(len(r.reqs), func(i int) bool { return r.reqs[i].Seq > f.Since })
	var out []Request
	n := 0
	next := max(f.Since, r.seq)
	for i := range r.reqs[start:] {
		e := &r.reqs[start+i]
		if !f.matches(&e.Request) {
			continue
		}
		n++
		if count {
			continue
		}
		req := e.read()
		out = append(out, req)
		if f.Limit > 0 && len(out) == f.Limit {
			next = req.Seq
			break
		}
	}
	return out, n, next
}

func (d *deliverer) where(f EventFilter, count bool) ([]Event, int, int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	evs := d.events
	if d.retention > 0 && len(evs) > d.retention {
		evs = evs[len(evs)-d.retention:] // what Events returns
	}
	start := sort.Search(len(evs), func(i int) bool { return evs[i].Seq > f.Since })
	var out []Event
	n := 0
	next := max(f.Since, d.seq)
	for _, e := range evs[start:] {
		if (f.Kind != "" && e.Kind != f.Kind) || (f.TaskID != "" && e.TaskID != f.TaskID) {
			continue
		}
		n++
		if count {
			continue
		}
		out = append(out, e)
		if f.Limit > 0 && len(out) == f.Limit {
			next = e.Seq
			break
		}
	}
	return out, n, next
}

func (f *RequestFilter) matches(r *Request) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, r.Method) {
		return false
	}
	if f.Path != "" && !pathMatches(f.Path, r.Path) && !pathMatches(f.Path, strings.TrimPrefix(r.Path, BasePath)) {
		return false
	}
	return f.TaskID == "" || namesTask(r, f.TaskID)
}

// namesTask reports whether a request is about the task: a path segment after "tasks" is
// its id, or the request creates tasks (POST .../tasks) with that id in its body.
func namesTask(r *Request, id string) bool {
	segs := strings.Split(r.Path, "/")
	for i := 0; i+1 < len(segs); i++ {
		if segs[i] == "tasks" && segs[i+1] == id {
			return true
		}
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.Path, "/tasks") || len(r.Body) == 0 {
		return false
	}
	var body struct {
		ID string `json:"id"`
	}
	return json.Unmarshal(r.Body, &body) == nil && body.ID == id
}

var (
	methodToken = regexp.MustCompile(`^[A-Za-z]+$`)
	kindShape   = regexp.MustCompile(`^[a-z_]+\.[a-z_]+$`)
)

// journalQuery reads the query of GET /_mock/requests or /_mock/events: the members both
// take (since, taskId, limit, count) and, by endpoint, method and path or kind. Anything
// else, or a value out of shape, is 400 validation_failed naming the parameter.
type journalQuery struct {
	since  int64
	limit  int
	count  bool
	taskID string
	method string
	path   string
	kind   string
}

func parseJournalQuery(q url.Values, events bool) (journalQuery, *apiError) {
	var jq journalQuery
	allowed := map[string]bool{"since": true, "taskId": true, "limit": true, "count": true}
	if events {
		allowed["kind"] = true
	} else {
		allowed["method"], allowed["path"] = true, true
	}
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !allowed[k] {
			return jq, validationf("query/%s is not a parameter of this endpoint (%s)", k, strings.Join(sortedKeys(allowed), ", "))
		}
		if len(q[k]) != 1 {
			return jq, validationf("query/%s must be given once", k)
		}
		v := q[k][0]
		switch k {
		case "since":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return jq, validationf("query/since must be a sequence number (an integer >= 0)")
			}
			jq.since = n
		case "limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return jq, validationf("query/limit must be an integer >= 1")
			}
			jq.limit = n
		case "count":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return jq, validationf("query/count must be true or false")
			}
			jq.count = b
		case "taskId":
			if v == "" {
				return jq, validationf("query/taskId must not be empty")
			}
			jq.taskID = v
		case "method":
			if !methodToken.MatchString(v) {
				return jq, validationf("query/method must be an HTTP method such as POST")
			}
			jq.method = v
		case "path":
			if _, err := path.Match(v, "/"); err != nil || v == "" {
				return jq, validationf("query/path must be a path pattern such as /v1/tasks/*")
			}
			jq.path = v
		case "kind":
			if !kindShape.MatchString(v) {
				return jq, validationf("query/kind must be an event kind such as task.matched")
			}
			jq.kind = v
		}
	}
	if jq.count && jq.limit > 0 {
		return jq, validationf("query/limit does not apply to a count")
	}
	return jq, nil
}

// adminRequests answers GET /_mock/requests: {requests, nextSince}, or {count, nextSince}
// with count=true.
func (s *Server) adminRequests(r *http.Request) (any, *apiError) {
	jq, aerr := parseJournalQuery(r.URL.Query(), false)
	if aerr != nil {
		return nil, aerr
	}
	f := RequestFilter{Since: jq.since, Method: jq.method, Path: jq.path, TaskID: jq.taskID, Limit: jq.limit}
	reqs, n, next := s.rec.where(f, jq.count)
	if jq.count {
		return map[string]any{"count": n, "nextSince": next}, nil
	}
	if reqs == nil {
		reqs = []Request{}
	}
	return map[string]any{"requests": reqs, "nextSince": next}, nil
}

// adminEventsQuery answers GET /_mock/events: {events, nextSince} (each event its payload as
// delivered), or {count, nextSince} with count=true.
func (s *Server) adminEventsQuery(r *http.Request) (any, *apiError) {
	jq, aerr := parseJournalQuery(r.URL.Query(), true)
	if aerr != nil {
		return nil, aerr
	}
	f := EventFilter{Since: jq.since, Kind: webhook.Kind(jq.kind), TaskID: jq.taskID, Limit: jq.limit}
	evs, n, next := s.deliver.where(f, jq.count)
	if jq.count {
		return map[string]any{"count": n, "nextSince": next}, nil
	}
	out := make([]json.RawMessage, len(evs))
	for i, e := range evs {
		out[i] = e.Payload
	}
	return map[string]any{"events": out, "nextSince": next}, nil
}
