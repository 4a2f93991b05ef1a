package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// journalServer has one worker and three tasks: t1 and t2 offered to w1, t3 refused (a
// duplicate id), then t1 read twice.
func journalServer(t *testing.T) *Server {
	t.Helper()
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w1", "tags": []string{"a"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t2", "tags": []string{"a"}})
	mustAPI(t, srv, 409, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}})
	mustAPI(t, srv, 200, "GET", "/tasks/t1", nil)
	mustAPI(t, srv, 200, "GET", "/tasks/t1", nil)
	return srv
}

type requestLine struct {
	Seq    int64
	Method string
	Path   string
	Status int
}

func requestLines(reqs []Request) []requestLine {
	out := make([]requestLine, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, requestLine{r.Seq, r.Method, r.Path, r.StatusCode})
	}
	return out
}

// TestJournalQueriesInGo reads the journal and the events through RequestsWhere,
// CountRequests, EventsWhere and CountEvents.
func TestJournalQueriesInGo(t *testing.T) {
	srv := journalServer(t)
	cases := []struct {
		name  string
		f     RequestFilter
		want  []requestLine
		count int
	}{
		{name: "all", f: RequestFilter{}, count: 6},
		{name: "creates", f: RequestFilter{Method: "post", Path: "/tasks"}, count: 3, want: []requestLine{
			{2, "POST", "/v1/tasks", 202}, {3, "POST", "/v1/tasks", 202}, {4, "POST", "/v1/tasks", 409}}},
		{name: "one task, create and reads", f: RequestFilter{TaskID: "t1"}, count: 4, want: []requestLine{
			{2, "POST", "/v1/tasks", 202}, {4, "POST", "/v1/tasks", 409}, {5, "GET", "/v1/tasks/t1", 200}, {6, "GET", "/v1/tasks/t1", 200}}},
		{name: "since and limit", f: RequestFilter{Since: 2, Limit: 2}, count: 4, want: []requestLine{
			{3, "POST", "/v1/tasks", 202}, {4, "POST", "/v1/tasks", 409}}},
		{name: "path pattern as sent", f: RequestFilter{Path: "/v1/tasks/*"}, count: 2, want: []requestLine{
			{5, "GET", "/v1/tasks/t1", 200}, {6, "GET", "/v1/tasks/t1", 200}}},
		{name: "nothing after the last", f: RequestFilter{Since: 6}, count: 0, want: []requestLine{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := srv.RequestsWhere(tc.f)
			if tc.want != nil {
				assert.Empty(t, cmp.Diff(tc.want, requestLines(got)))
			} else {
				assert.Len(t, got, tc.count)
			}
			assert.Equal(t, tc.count, srv.CountRequests(tc.f), "a count ignores Limit")
		})
	}

	all := srv.Events()
	require.Len(t, all, 2)
	assert.Equal(t, []int64{1, 2}, []int64{all[0].Seq, all[1].Seq})
	got := srv.EventsWhere(EventFilter{Kind: webhook.KindTaskMatched, TaskID: "t2"})
	require.Len(t, got, 1)
	assert.Equal(t, "t2", got[0].TaskID)
	assert.Equal(t, 2, srv.CountEvents(EventFilter{Kind: webhook.KindTaskMatched}))
	assert.Equal(t, 0, srv.CountEvents(EventFilter{Kind: webhook.KindTaskCompleted}))
	assert.Empty(t, srv.EventsWhere(EventFilter{Since: 2}))

	srv.Reset()
	mustAPI(t, srv, 200, "GET", "/workers", nil)
	assert.Empty(t, cmp.Diff([]requestLine{{7, "GET", "/v1/workers", 200}}, requestLines(srv.RequestsWhere(RequestFilter{}))),
		"sequence numbers go on after Reset")
}

// TestJournalQueriesOverHTTP reads the same through GET /_mock/requests and /_mock/events,
// following nextSince as a suite polling after each step would.
func TestJournalQueriesOverHTTP(t *testing.T) {
	srv := journalServer(t)
	var page struct {
		Requests  []Request
		Events    []json.RawMessage
		Count     *int
		NextSince int64
	}
	get := func(path string) {
		t.Helper()
		page.Requests, page.Events, page.Count, page.NextSince = nil, nil, nil, 0
		a := adminGet(t, srv, path)
		require.Equal(t, 200, a.Status, "%s: %s", path, a.Body)
		require.NoError(t, json.Unmarshal(a.Body, &page))
	}

	get("/requests?method=POST&path=/v1/tasks&count=true")
	require.NotNil(t, page.Count)
	assert.Equal(t, 3, *page.Count)
	assert.Equal(t, int64(6), page.NextSince)

	get("/requests?taskId=t1&limit=1")
	assert.Empty(t, cmp.Diff([]requestLine{{2, "POST", "/v1/tasks", 202}}, requestLines(page.Requests)))
	assert.Equal(t, int64(2), page.NextSince, "cut by limit: the last one returned")
	get("/requests?taskId=t1&since=2")
	assert.Len(t, page.Requests, 3)
	assert.Equal(t, int64(6), page.NextSince, "admin reads are not recorded")

	get("/events?kind=task.matched&taskId=t2")
	require.Len(t, page.Events, 1)
	var ev struct {
		Event string `json:"event"`
	}
	require.NoError(t, json.Unmarshal(page.Events[0], &ev))
	assert.Equal(t, "task.matched", ev.Event)
	assert.Contains(t, string(page.Events[0]), `"t2"`)
	assert.Equal(t, int64(2), page.NextSince)
	get("/events?since=2")
	assert.Empty(t, page.Events)
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "w2", "tags": []string{"a"}, "available": false})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t3", "tags": []string{"a"}})
	get("/events?since=2&count=true")
	assert.Equal(t, 1, *page.Count, "only what came after")
	assert.Equal(t, int64(3), page.NextSince)
}

// TestJournalQueryBadParameters: every malformed or foreign parameter is 400
// validation_failed naming it, on both endpoints.
func TestJournalQueryBadParameters(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	cases := []struct {
		path string
		want string
	}{
		{"/requests?since=-1", "query/since must be a sequence number (an integer >= 0)"},
		{"/events?since=x", "query/since must be a sequence number (an integer >= 0)"},
		{"/requests?limit=0", "query/limit must be an integer >= 1"},
		{"/requests?count=maybe", "query/count must be true or false"},
		{"/requests?count=true&limit=3", "query/limit does not apply to a count"},
		{"/requests?kind=task.matched", "query/kind is not a parameter of this endpoint (count, limit, method, path, since, taskId)"},
		{"/events?method=GET", "query/method is not a parameter of this endpoint (count, kind, limit, since, taskId)"},
		{"/events?kind=matched", "query/kind must be an event kind such as task.matched"},
		{"/requests?path=[", "query/path must be a path pattern such as /v1/tasks/*"},
		{"/requests?method=G%20T", "query/method must be an HTTP method such as POST"},
		{"/requests?taskId=", "query/taskId must not be empty"},
		{"/requests?since=1&since=2", "query/since must be given once"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			a := adminGet(t, srv, tc.path)
			assert.Equal(t, 400, a.Status)
			assert.Equal(t, CodeValidationFailed, a.errCode(t))
			assert.Contains(t, string(a.Body), tc.want)
		})
	}
}

// TestPackedHeaderReadsAsClone: the journal keeps each request's header packed into one
// string, and every read gives back what Header.Clone gives: the same keys and values, a nil
// value slice kept apart from an empty one, a nil header kept nil, values of every length
// (a length past 127 takes two bytes) and any bytes.
func TestPackedHeaderReadsAsClone(t *testing.T) {
	long := strings.Repeat("x", 300)
	for _, h := range []http.Header{
		nil,
		{},
		{"Authorization": {"Bearer sk_test_1"}, "Content-Type": {"application/json"}, "Idempotency-Key": {"k-1"}},
		{"X-Many": {"a", "b", "", "c"}, "X-Nil": nil, "X-Empty": {}},
		{"X-Nil": nil},
		{"X-Empty": {}},
		{"X-Long": {long, long}, "": {""}, "X-Bytes": {"\x00\x80\xff=\r\n"}},
		{long: {"v"}},
	} {
		got := unpackHeader(packHeader(h))
		if diff := cmp.Diff(h.Clone(), got); diff != "" {
			t.Errorf("%q: unpacked (-clone +got):\n%s", h, diff)
		}
		if (got == nil) != (h == nil) {
			t.Errorf("%q: nil %v, want %v", h, got == nil, h == nil)
		}
		for k, vv := range got { // a caller's append to one key's values leaves the others alone
			_ = append(vv, "appended")
			if diff := cmp.Diff(h.Clone(), got); diff != "" {
				t.Errorf("%q: after an append to %q (-clone +got):\n%s", h, k, diff)
			}
		}
		for k, vv := range got { // each key nil or not, as Clone keeps it
			if (vv == nil) != (h[k] == nil) {
				t.Errorf("%q: %q nil %v, want %v", h, k, vv == nil, h[k] == nil)
			}
		}
	}
}
