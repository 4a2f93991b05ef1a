package mockserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// proxyRig is a second mock server standing in for the deployment, a proxy in front of it
// whose shadow matches by shadowRules, and a webhook receiver the proxy forwards to.
type proxyRig struct {
	upstream *Server
	proxy    *Proxy
	url      string // the proxy's root
	mu       sync.Mutex
	received []string // kinds forwarded to the receiver, verified with the deployment's secret
}

func newProxyRig(t *testing.T, shadowRules MatchRules) *proxyRig {
	t.Helper()
	rig := &proxyRig{}
	var err error
	rig.upstream, err = New(WithSigningSecret("whsec_upstream"))
	require.NoError(t, err)
	t.Cleanup(rig.upstream.Close)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev, err := webhook.ConstructEvent(body, r.Header.Get(webhook.SignatureHeader), "whsec_upstream")
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rig.mu.Lock()
		rig.received = append(rig.received, string(ev.Kind))
		rig.mu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	rig.proxy, err = NewProxy(ProxyConfig{Upstream: rig.upstream.URL(), SigningSecret: "whsec_upstream",
		ForwardWebhooksTo: []string{receiver.URL}, Shadow: true, ShadowOptions: []Option{WithMatcher(MatcherConfig{Rules: shadowRules})}})
	require.NoError(t, err)
	t.Cleanup(rig.proxy.Close)
	ps := httptest.NewServer(rig.proxy.Handler())
	t.Cleanup(ps.Close)
	rig.url = ps.URL
	detach, err := rig.upstream.AttachWebhookURL(ps.URL + "/_mock/proxy/webhook")
	require.NoError(t, err)
	t.Cleanup(detach)
	return rig
}

// call sends a request through the proxy with the deployment's key, as a client would.
func (rig *proxyRig) call(t *testing.T, method, path, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, rig.url+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+rig.upstream.APIKey())
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestProxyShadowComparesDecisions plays the same commands through the proxy into a
// deployment under the platform rules and a shadow under each rule set. Worker a1 has tag x,
// a2 has x and y; task t1 wants x and y. The platform rules score both 1 (the share of the
// worker's tags) and break the tie to the first-registered worker, a1; the every-tag rules
// leave only a2. The report shows agreement under the same rules and the difference, with
// its reason, under the others.
func TestProxyShadowComparesDecisions(t *testing.T) {
	cases := []struct {
		rules MatchRules
		want  ShadowComparison
	}{
		{RulesPlatform, ShadowComparison{TaskID: "t1", UpstreamWorker: "a1", MockWorker: "a1", Agree: true}},
		{RulesEveryTag, ShadowComparison{TaskID: "t1", UpstreamWorker: "a1", MockWorker: "a2",
			Reason: "the deployment offered the task to a1, the mock (rules every-tag, mode best-match) to a2"}},
	}
	for _, tc := range cases {
		t.Run(string(tc.rules), func(t *testing.T) {
			rig := newProxyRig(t, tc.rules)
			require.Equal(t, 200, rig.call(t, "POST", "/v1/workers", `{"id":"a1","tags":["x"],"available":true}`))
			require.Equal(t, 200, rig.call(t, "POST", "/v1/workers", `{"id":"a2","tags":["x","y"],"available":true}`))
			require.Equal(t, 202, rig.call(t, "POST", "/v1/tasks", `{"id":"t1","tags":["x","y"]}`))
			require.NoError(t, rig.upstream.WaitForDeliveries(t.Context()))

			rep := rig.proxy.Report()
			assert.Empty(t, rep.Differences, "the mock deployment keeps the contract")
			assert.Empty(t, cmp.Diff([]ShadowComparison{tc.want}, rep.Decisions))
			rig.mu.Lock()
			assert.Equal(t, []string{"task.matched"}, rig.received, "verified and forwarded as received")
			rig.mu.Unlock()
		})
	}
}

// TestProxyReportsDifferences makes the deployment's tasks.get answer drift and sends a
// request the contract refuses: both are differences, on the report and over
// GET /_mock/proxy/report; the journal has both sides with the key redacted.
func TestProxyReportsDifferences(t *testing.T) {
	rig := newProxyRig(t, RulesPlatform)
	rig.upstream.checks.drift = func(opID string, b []byte) []byte {
		if opID != "tasks.get" {
			return b
		}
		return append([]byte(`{"surprise":1,`), b[1:]...)
	}
	require.Equal(t, 202, rig.call(t, "POST", "/v1/tasks", `{"id":"t1","tags":["x"]}`))
	require.Equal(t, 200, rig.call(t, "GET", "/v1/tasks/t1", ""))
	require.Equal(t, 400, rig.call(t, "POST", "/v1/tasks", `{"id":"t2","tags":["x"],"colour":"red"}`))
	assert.Len(t, rig.upstream.ContractViolations(), 1, "the deployment's own check saw the drift too")

	want := []ProxyDifference{
		{Seq: 2, Side: "answer", Method: "GET", Path: "/v1/tasks/t1", Status: 200, Problem: "tasks.get: response must NOT have additional properties (surprise)"},
		{Seq: 3, Side: "request", Method: "POST", Path: "/v1/tasks", Status: 400, Problem: "tasks.create: body must NOT have additional properties"},
	}
	assert.Empty(t, cmp.Diff(want, rig.proxy.Report().Differences))

	req, err := http.NewRequest("GET", rig.url+"/_mock/proxy/report", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+rig.proxy.AdminKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, string(body), `"problem":"tasks.get: response must NOT have additional properties (surprise)"`)

	ex := rig.proxy.Exchanges()
	require.Len(t, ex, 3)
	assert.Equal(t, "Bearer "+redacted, ex[0].Header.Get("Authorization"))
	assert.True(t, bytes.Contains(ex[1].Answer, []byte(`"surprise":1`)), "the answer as the deployment sent it")
	for _, e := range ex {
		assert.NotContains(t, string(e.Body)+string(e.Answer)+e.Header.Get("Authorization"), rig.upstream.APIKey())
	}
}

// TestProxyRefusesUnverifiedDeliveries: a delivery not signed with the deployment's secret
// is refused and neither recorded nor forwarded.
func TestProxyRefusesUnverifiedDeliveries(t *testing.T) {
	rig := newProxyRig(t, RulesPlatform)
	body := []byte(`{"event":"task.matched","id":"evt_x","createdAt":1,"taskId":"t9","workerId":"a9"}`)
	req, err := http.NewRequest("POST", rig.url+"/_mock/proxy/webhook", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set(webhook.SignatureHeader, "t=1,v1=00")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode)
	assert.Empty(t, rig.proxy.Report().Decisions)
	rig.mu.Lock()
	assert.Empty(t, rig.received)
	rig.mu.Unlock()
}
