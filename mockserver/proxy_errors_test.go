package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// scriptedUpstream is a deployment that answers each "METHOD /path" (the path as the
// deployment sees it, under /v1) with what its handler writes, and counts every request.
type scriptedUpstream struct {
	mu       sync.Mutex
	requests []string
	routes   map[string]http.HandlerFunc
}

func newScriptedUpstream(t *testing.T, routes map[string]http.HandlerFunc) (*scriptedUpstream, string) {
	t.Helper()
	up := &scriptedUpstream{routes: routes}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + r.URL.Path
		up.mu.Lock()
		up.requests = append(up.requests, key)
		up.mu.Unlock()
		if h, ok := up.routes[key]; ok {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"code":"not_found","message":"no such route"}}`)
	}))
	t.Cleanup(ts.Close)
	return up, ts.URL + "/v1"
}

func (up *scriptedUpstream) seen() []string {
	up.mu.Lock()
	defer up.mu.Unlock()
	return append([]string{}, up.requests...)
}

// answerJSON answers status and body as a JSON document.
func answerJSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// proxyAnswer is what a client got from the proxy.
type proxyAnswer struct {
	Status int
	Body   string
}

func sendToProxy(t *testing.T, url, method, path, key, body string) proxyAnswer {
	t.Helper()
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return proxyAnswer{Status: resp.StatusCode, Body: string(b)}
}

func startProxy(t *testing.T, cfg ProxyConfig) (*Proxy, string) {
	t.Helper()
	p, err := NewProxy(cfg)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	ps := httptest.NewServer(p.Handler())
	t.Cleanup(ps.Close)
	return p, ps.URL
}

// TestNewProxyRefusesBadConfig: an upstream that is not an absolute http(s) URL, a forward
// target that is not one either, and a shadow option the mock refuses each stop NewProxy.
func TestNewProxyRefusesBadConfig(t *testing.T) {
	const badUpstream = "mockserver: the proxy's upstream must be an http or https URL"
	cases := []struct {
		name string
		cfg  ProxyConfig
		want string
	}{
		{"upstream not a URL", ProxyConfig{Upstream: "http://[::1"}, badUpstream},
		{"upstream ftp", ProxyConfig{Upstream: "ftp://example.com/v1"}, badUpstream},
		{"upstream without host", ProxyConfig{Upstream: "https:///v1"}, badUpstream},
		{"upstream relative", ProxyConfig{Upstream: "/v1"}, badUpstream},
		{"forward target relative", ProxyConfig{Upstream: "http://example.com/v1", ForwardWebhooksTo: []string{"http://ok.example/h", "/hooks"}},
			`mockserver: webhook url "/hooks" is not an absolute http(s) url`},
		{"shadow option refused", ProxyConfig{Upstream: "http://example.com/v1", Shadow: true, ShadowOptions: []Option{WithClock(nil)}},
			"mockserver: nil clock"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewProxy(tc.cfg)
			require.Error(t, err)
			assert.Nil(t, p)
			assert.Equal(t, tc.want, err.Error())
		})
	}

	// The same options without the shadow flag start no shadow at all.
	p, err := NewProxy(ProxyConfig{Upstream: "https://example.com/v1", ShadowOptions: []Option{WithClock(nil)}})
	require.NoError(t, err)
	assert.Nil(t, p.Shadow())
	assert.True(t, strings.HasPrefix(p.AdminKey(), "sk_test_"), "a random admin key when none is given")
	p.Close()
	p, err = NewProxy(ProxyConfig{Upstream: "https://example.com/v1", AdminKey: "sk_test_given", Shadow: true})
	require.NoError(t, err)
	assert.Equal(t, "sk_test_given", p.AdminKey())
	assert.Same(t, p.shadow, p.Shadow())
	assert.NotNil(t, p.Shadow())
	p.Close()
}

// TestProxyOwnRoutesAnswer pins every answer of the proxy's own routes: anything outside
// /v1/ and /_mock/ is not found, /_mock/ needs the proxy's admin key and knows two reads, and
// a proxy without a signing secret refuses every delivery. None of them reaches the
// deployment.
func TestProxyOwnRoutesAnswer(t *testing.T) {
	up, upURL := newScriptedUpstream(t, nil)
	p, url := startProxy(t, ProxyConfig{Upstream: upURL, AdminKey: "sk_test_proxyadmin"})
	const unauthorized = `{"error":{"code":"unauthorized","message":"missing or invalid API key"}}`
	cases := []struct {
		method, path, key string
		want              proxyAnswer
	}{
		{"GET", "/elsewhere", "", proxyAnswer{404, `{"error":{"code":"not_found","message":"the proxy serves /v1/ and /_mock/proxy/"}}`}},
		{"GET", "/v1", "", proxyAnswer{404, `{"error":{"code":"not_found","message":"the proxy serves /v1/ and /_mock/proxy/"}}`}},
		{"GET", "/_mock/proxy/report", "", proxyAnswer{401, unauthorized}},
		{"GET", "/_mock/proxy/report", "sk_test_proxyadmin2", proxyAnswer{401, unauthorized}},
		{"GET", "/_mock/proxy/requests", "sk_test_proxyadmi", proxyAnswer{401, unauthorized}},
		{"GET", "/_mock/proxy/nope", "sk_test_proxyadmin", proxyAnswer{404, `{"error":{"code":"not_found","message":"no proxy route for GET /_mock/proxy/nope"}}`}},
		{"POST", "/_mock/proxy/report", "sk_test_proxyadmin", proxyAnswer{404, `{"error":{"code":"not_found","message":"no proxy route for POST /_mock/proxy/report"}}`}},
		{"GET", "/_mock/proxy/webhook", "sk_test_proxyadmin", proxyAnswer{404, `{"error":{"code":"not_found","message":"no proxy route for GET /_mock/proxy/webhook"}}`}},
		{"GET", "/_mock/proxy/report", "sk_test_proxyadmin", proxyAnswer{200, `{"differences":[],"decisions":[]}`}},
		{"GET", "/_mock/proxy/requests", "sk_test_proxyadmin", proxyAnswer{200, `{"requests":[]}`}},
		{"POST", "/_mock/proxy/webhook", "", proxyAnswer{401, `{"error":{"code":"unauthorized","message":"the proxy was given no signing secret to verify deliveries with"}}`}},
	}
	for _, tc := range cases {
		got := sendToProxy(t, url, tc.method, tc.path, tc.key, "")
		assert.Empty(t, cmp.Diff(tc.want, got), "%s %s with key %q", tc.method, tc.path, tc.key)
	}
	assert.Empty(t, up.seen(), "the proxy's own routes never reach the deployment")
	assert.Empty(t, p.Exchanges())
}

// TestProxyForwardAnswers pins what the proxy answers, records and reports for each way an
// exchange with the deployment can go: unreachable, an answer that breaks off, a body too
// large to forward, a path the contract lacks, a member the contract does not define, a
// body or answer that is not JSON, and an answer carrying a session token.
func TestProxyForwardAnswers(t *testing.T) {
	const taskJSON = `{"id":"t1","status":"queued","tags":["x"],"priority":0,"requeued":false}`
	up, upURL := newScriptedUpstream(t, map[string]http.HandlerFunc{
		"GET /v1/tasks/t1": func(w http.ResponseWriter, r *http.Request) {
			// Promises 100 bytes, sends 6, and hangs up.
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "100")
			w.Header().Set("X-Upstream", "yes")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, `{"id":`)
		},
		"GET /v1/tasks/t2":   answerJSON(http.StatusInternalServerError, "boom"),
		"GET /v1/nope":       answerJSON(http.StatusNotFound, `{"error":{"code":"not_found","message":"no such route"}}`),
		"POST /v1/workers":   answerJSON(http.StatusOK, `{"id":"a1","bonus":1}`),
		"POST /v1/tasks":     answerJSON(http.StatusBadRequest, `{"error":{"code":"invalid_body","message":"not json"}}`),
		"PATCH /v1/tasks/t1": answerJSON(http.StatusOK, taskJSON),
		"POST /v1/worker-auth/login": answerJSON(http.StatusOK,
			`{"token":"wt_sessionsecret","expiresAt":"2030-01-01T00:00:00Z"}`),
	})
	p, url := startProxy(t, ProxyConfig{Upstream: upURL})

	type step struct {
		method, path, body string
		want               proxyAnswer
		wantAnswer         string // the answer as recorded; "" when it is the answer sent
		wantBody           string // the request body as recorded; "" when it is the body sent
	}
	steps := []step{
		// 1: the answer breaks off after 6 of 100 bytes.
		{"GET", "/v1/tasks/t1", "", proxyAnswer{502, `{"error":{"code":"service_unavailable","message":"the deployment's answer broke off"}}`}, "", ""},
		// 2: not JSON, passed on as sent and recorded as a JSON string.
		{"GET", "/v1/tasks/t2", "", proxyAnswer{500, "boom"}, `"boom"`, ""},
		// 3: a path no operation has.
		{"GET", "/v1/nope", "", proxyAnswer{404, `{"error":{"code":"not_found","message":"no such route"}}`}, "", ""},
		// 4: an answer member the contract does not name.
		{"POST", "/v1/workers", `{"id":"a1","tags":["x"]}`, proxyAnswer{200, `{"id":"a1","bonus":1}`}, "", ""},
		// 5: a request body that is not JSON.
		{"POST", "/v1/tasks", "not json", proxyAnswer{400, `{"error":{"code":"invalid_body","message":"not json"}}`}, "", `"not json"`},
		// 6: a request at the size limit is forwarded.
		{"PATCH", "/v1/tasks/t1", `{"tags":["x"],"priority":0}` + strings.Repeat(" ", MaxBodyBytes-27), proxyAnswer{200, taskJSON}, "", `{"tags":["x"],"priority":0}`},
		// 7: the session token reaches the caller, not the journal.
		{"POST", "/v1/worker-auth/login", `{"workspaceId":"ws_1","workerId":"a1","pin":"1234"}`,
			proxyAnswer{200, `{"token":"wt_sessionsecret","expiresAt":"2030-01-01T00:00:00Z"}`},
			`{"expiresAt":"2030-01-01T00:00:00Z","token":"[REDACTED]"}`, `{"pin":"[REDACTED]","workerId":"a1","workspaceId":"ws_1"}`},
	}
	for i, s := range steps {
		got := sendToProxy(t, url, s.method, s.path, "sk_test_caller", s.body)
		assert.Empty(t, cmp.Diff(s.want, got), "step %d: %s %s", i+1, s.method, s.path)
	}

	// One byte over the limit is refused before anything is sent or recorded.
	got := sendToProxy(t, url, "PATCH", "/v1/tasks/t1", "sk_test_caller", `{"tags":["x"]}`+strings.Repeat(" ", MaxBodyBytes-13))
	assert.Empty(t, cmp.Diff(proxyAnswer{400, `{"error":{"code":"invalid_body","message":"body could not be read"}}`}, got))

	wantSeen := []string{"GET /v1/tasks/t1", "GET /v1/tasks/t2", "GET /v1/nope", "POST /v1/workers", "POST /v1/tasks", "PATCH /v1/tasks/t1", "POST /v1/worker-auth/login"}
	assert.Empty(t, cmp.Diff(wantSeen, up.seen()))

	ex := p.Exchanges()
	require.Len(t, ex, len(steps))
	for i, s := range steps {
		e := ex[i]
		assert.Equal(t, int64(i+1), e.Seq)
		assert.Equal(t, s.want.Status, e.StatusCode, "step %d", i+1)
		wantAnswer := s.wantAnswer
		if wantAnswer == "" {
			wantAnswer = s.want.Body
		}
		assert.Equal(t, wantAnswer, string(e.Answer), "step %d", i+1)
		wantBody := s.wantBody
		if wantBody == "" {
			wantBody = s.body
		}
		assert.Equal(t, wantBody, strings.TrimSpace(compactJSON(e.Body)), "step %d", i+1)
		assert.Equal(t, "Bearer "+redacted, e.Header.Get("Authorization"))
	}

	// Step 1's 502 is an undeclared error status, held only to the error envelope, which
	// the proxy's own answer keeps: no difference. Steps 6 and 7 keep the contract.
	wantDiffs := []ProxyDifference{
		{Seq: 2, Side: "answer", Method: "GET", Path: "/v1/tasks/t2", Status: 500, Problem: "tasks.get: response must be valid JSON"},
		{Seq: 3, Side: "request", Method: "GET", Path: "/v1/nope", Status: 404, Problem: "no operation of api/openapi.json has this method and path"},
		{Seq: 4, Side: "answer", Method: "POST", Path: "/v1/workers", Status: 200, Problem: "workers.upsert: members the contract does not define: /bonus"},
		{Seq: 5, Side: "request", Method: "POST", Path: "/v1/tasks", Status: 400, Problem: "tasks.create: body must be valid JSON"},
	}
	assert.Empty(t, cmp.Diff(wantDiffs, p.Report().Differences))
}

// compactJSON is b without insignificant white space, or b when it is not JSON.
func compactJSON(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// TestProxyUnreachableDeployment: a deployment that cannot be reached is a 502 the
// exchange records; with no answer there is nothing to hold to the contract.
func TestProxyUnreachableDeployment(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	p, url := startProxy(t, ProxyConfig{Upstream: gone.URL + "/v1", Shadow: true})
	const want = `{"error":{"code":"service_unavailable","message":"the deployment could not be reached"}}`
	got := sendToProxy(t, url, "POST", "/v1/workers", "sk_test_caller", `{"id":"a1","tags":["x"],"extra":true}`)
	assert.Empty(t, cmp.Diff(proxyAnswer{502, want}, got))
	want2 := []ProxyExchange{{Seq: 1, Method: "POST", Path: "/v1/workers", Body: json.RawMessage(`{"id":"a1","tags":["x"],"extra":true}`),
		StatusCode: 502, Answer: json.RawMessage(want)}}
	ex := p.Exchanges()
	for i := range ex {
		ex[i].Header = nil
	}
	assert.Empty(t, cmp.Diff(want2, ex))
	assert.Empty(t, p.Report().Differences, "an answer never received is not held to the contract")
	assert.Empty(t, p.Shadow().Requests(), "a command the deployment never answered is not played into the shadow")
}

// TestProxyUnreadableBodies: a request or delivery body that fails while it is read is a
// 400 invalid_body, and nothing is forwarded or recorded. A request the proxy cannot
// rebuild for the deployment (a method net/http will not send) is a 502.
func TestProxyUnreadableBodies(t *testing.T) {
	up, upURL := newScriptedUpstream(t, nil)
	p, err := NewProxy(ProxyConfig{Upstream: upURL, SigningSecret: "whsec_up"})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	const unreadable = `{"error":{"code":"invalid_body","message":"body could not be read"}}`
	cases := []struct {
		method, path string
		body         io.Reader
		want         proxyAnswer
	}{
		{"POST", "/v1/tasks", iotest.ErrReader(errors.New("reset")), proxyAnswer{400, unreadable}},
		{"POST", "/_mock/proxy/webhook", iotest.ErrReader(errors.New("reset")), proxyAnswer{400, unreadable}},
		{"B@D", "/v1/tasks", strings.NewReader(""), proxyAnswer{502, `{"error":{"code":"internal_error","message":"the proxy could not build the request"}}`}},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("POST", tc.path, tc.body)
		r.Method = tc.method
		w := httptest.NewRecorder()
		p.Handler().ServeHTTP(w, r)
		assert.Empty(t, cmp.Diff(tc.want, proxyAnswer{w.Code, w.Body.String()}), "%s %s", tc.method, tc.path)
	}
	assert.Empty(t, up.seen())
	assert.Empty(t, p.Exchanges())
}

// signedDelivery is a task.matched delivery signed with secret at t.
func signedDelivery(t *testing.T, url, secret string, at time.Time, taskID, workerID string) int {
	t.Helper()
	body := []byte(`{"event":"task.matched","id":"evt_` + taskID + `","createdAt":1,"taskId":"` + taskID + `","workerId":"` + workerID + `"}`)
	req, err := http.NewRequest("POST", url+"/_mock/proxy/webhook", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhook.SignatureHeader, webhook.Sign(body, secret, at))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestProxyWebhookAnswers: a blank signing secret is the proxy's fault (500); signatures
// are checked against the configured clock; a forward target that cannot be reached is
// logged and does not stop the others or fail the delivery; a proxy without a shadow lists
// no decisions.
func TestProxyWebhookAnswers(t *testing.T) {
	_, upURL := newScriptedUpstream(t, nil)
	t.Run("blank secret", func(t *testing.T) {
		_, url := startProxy(t, ProxyConfig{Upstream: upURL, SigningSecret: "   "})
		body := []byte(`{"event":"task.matched","id":"evt_1","createdAt":1,"taskId":"t1","workerId":"a1"}`)
		req, err := http.NewRequest("POST", url+"/_mock/proxy/webhook", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set(webhook.SignatureHeader, webhook.Sign(body, "   ", time.Now()))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Empty(t, cmp.Diff(proxyAnswer{500, `{"error":{"code":"internal_error","message":"bad signing secret"}}`}, proxyAnswer{resp.StatusCode, string(b)}))
	})
	t.Run("clock", func(t *testing.T) {
		signedAt := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
		_, url := startProxy(t, ProxyConfig{Upstream: upURL, SigningSecret: "whsec_up", Now: func() time.Time { return signedAt.Add(time.Minute) }})
		assert.Equal(t, http.StatusNoContent, signedDelivery(t, url, "whsec_up", signedAt, "t1", "a1"), "signed a minute before the proxy's now")
		assert.Equal(t, http.StatusBadRequest, signedDelivery(t, url, "whsec_up", time.Now(), "t1", "a1"), "signed at the wall clock, years after the proxy's now")
	})
	t.Run("forward failure", func(t *testing.T) {
		gone := httptest.NewServer(http.NotFoundHandler())
		gone.Close()
		var got []string
		var mu sync.Mutex
		live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			got = append(got, r.Header.Get("Content-Type")+" "+string(b))
			mu.Unlock()
		}))
		t.Cleanup(live.Close)
		logs := &lockedBuffer{}
		p, url := startProxy(t, ProxyConfig{Upstream: upURL, SigningSecret: "whsec_up", ForwardWebhooksTo: []string{gone.URL + "/hook", live.URL},
			Logger: slog.New(slog.NewTextHandler(logs, nil))})
		assert.Equal(t, http.StatusNoContent, signedDelivery(t, url, "whsec_up", time.Now(), "t1", "a1"))
		mu.Lock()
		assert.Equal(t, []string{`application/json {"event":"task.matched","id":"evt_t1","createdAt":1,"taskId":"t1","workerId":"a1"}`}, got)
		mu.Unlock()
		assert.Contains(t, logs.String(), `msg="forwarding a delivery failed" url=`+gone.URL+"/hook")
		assert.Equal(t, 1, strings.Count(logs.String(), "level=WARN"), "one warning, for the target that could not be reached")
		assert.Empty(t, cmp.Diff(ProxyReport{Differences: []ProxyDifference{}, Decisions: []ShadowComparison{}}, p.Report()),
			"without a shadow there is nothing to compare a task.matched with")
	})
}

// TestProxyShadowReasons: the reasons a decision of the deployment and the shadow's differ.
// A task the shadow never saw; a task it saw but could not offer (its workers were made on
// the deployment directly), with the shadow's account of why; and a shadow made without
// matcher options, named by the defaults it matches with.
func TestProxyShadowReasons(t *testing.T) {
	t.Run("unknown and unoffered", func(t *testing.T) {
		upstream, err := New(WithSigningSecret("whsec_upstream"))
		require.NoError(t, err)
		t.Cleanup(upstream.Close)
		p, url := startProxy(t, ProxyConfig{Upstream: upstream.URL(), SigningSecret: "whsec_upstream", Shadow: true})
		detach, err := upstream.AttachWebhookURL(url + "/_mock/proxy/webhook")
		require.NoError(t, err)
		t.Cleanup(detach)
		// a1 exists on the deployment only.
		require.Equal(t, 200, sendToProxy(t, upstream.URL(), "POST", "/workers", upstream.APIKey(), `{"id":"a1","tags":["x"],"available":true}`).Status)
		require.Equal(t, 202, sendToProxy(t, url, "POST", "/v1/tasks", upstream.APIKey(), `{"id":"t1","tags":["x"]}`).Status)
		require.NoError(t, upstream.WaitForDeliveries(t.Context()))
		require.Equal(t, http.StatusNoContent, signedDelivery(t, url, "whsec_upstream", time.Now(), "t9", "a9"))
		want := []ShadowComparison{
			{TaskID: "t1", UpstreamWorker: "a1", Reason: `the mock has not offered the task: {"summary":"no worker carries tag x","uncarriedTags":["x"],"nearestWorkers":[]}`},
			{TaskID: "t9", UpstreamWorker: "a9", Reason: "the mock has not offered the task"},
		}
		assert.Empty(t, cmp.Diff(want, p.Report().Decisions))
	})
	t.Run("default rules named", func(t *testing.T) {
		upstream, err := New(WithSigningSecret("whsec_upstream"), WithMatcher(MatcherConfig{Rules: RulesEveryTag}))
		require.NoError(t, err)
		t.Cleanup(upstream.Close)
		p, url := startProxy(t, ProxyConfig{Upstream: upstream.URL(), SigningSecret: "whsec_upstream", Shadow: true})
		detach, err := upstream.AttachWebhookURL(url + "/_mock/proxy/webhook")
		require.NoError(t, err)
		t.Cleanup(detach)
		key := upstream.APIKey()
		require.Equal(t, 200, sendToProxy(t, url, "POST", "/v1/workers", key, `{"id":"a1","tags":["x"],"available":true}`).Status)
		require.Equal(t, 200, sendToProxy(t, url, "POST", "/v1/workers", key, `{"id":"a2","tags":["x","y"],"available":true}`).Status)
		require.Equal(t, 202, sendToProxy(t, url, "POST", "/v1/tasks", key, `{"id":"t1","tags":["x","y"]}`).Status)
		require.NoError(t, upstream.WaitForDeliveries(t.Context()))
		want := []ShadowComparison{{TaskID: "t1", UpstreamWorker: "a2", MockWorker: "a1",
			Reason: "the deployment offered the task to a2, the mock (rules platform, mode best-match) to a1"}}
		assert.Empty(t, cmp.Diff(want, p.Report().Decisions))
	})
}

// TestServeProxy serves a proxy on a listener until its context ends (then it returns
// nil), and returns the error of a listener that cannot accept.
func TestServeProxy(t *testing.T) {
	_, upURL := newScriptedUpstream(t, nil)
	p, err := NewProxy(ProxyConfig{Upstream: upURL, AdminKey: "sk_test_serveproxy"})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- ServeProxy(ctx, p, ln) }()
	got := sendToProxy(t, "http://"+ln.Addr().String(), "GET", "/_mock/proxy/requests", "sk_test_serveproxy", "")
	assert.Empty(t, cmp.Diff(proxyAnswer{200, `{"requests":[]}`}, got))
	cancel()
	assert.NoError(t, <-done)

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed.Close()
	err = ServeProxy(t.Context(), p, closed)
	require.Error(t, err)
	assert.ErrorIs(t, err, net.ErrClosed)
}
