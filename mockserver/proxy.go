package mockserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/contract"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// ProxyConfig configures a Proxy.
type ProxyConfig struct {
	// Upstream is the deployment's API base URL, as a client is given it ("https://host/v1").
	Upstream string
	// AdminKey is the bearer token of the proxy's own endpoints under /_mock/proxy/; random
	// (sk_test_...) when empty. Callers of /v1 use their own key, which is forwarded.
	AdminKey string
	// SigningSecret is the deployment's webhook signing secret: what the deployment sends to
	// /_mock/proxy/webhook is verified with it before anything else. Empty: every delivery
	// there is refused (401).
	SigningSecret string
	// ForwardWebhooksTo lists URLs each verified delivery is forwarded to, body and headers as
	// received (so the deployment's signature still verifies there).
	ForwardWebhooksTo []string
	// Shadow plays every successful command into a mock server of the proxy's own, made with
	// ShadowOptions, and compares its decisions with the deployment's task.matched events.
	Shadow        bool
	ShadowOptions []Option
	// Client sends to the deployment and to ForwardWebhooksTo; nil: a fresh transport.
	Client *http.Client
	// Logger hears of every difference (at warn level); nil: nothing is logged.
	Logger *slog.Logger
	// Now is the clock webhook signatures are checked against; nil: the wall clock.
	Now func() time.Time
}

// Proxy forwards the /v1 API to a real deployment with the caller's key and checks each
// request and answer against api/openapi.json: an undeclared member, a wrong type or an
// unknown status is a difference, reported on GET /_mock/proxy/report (and Report) and in its
// log. Both sides of every exchange are recorded (GET /_mock/proxy/requests, Exchanges) with
// credentials redacted. In shadow mode it also plays each command into its own mock server
// and, for every task.matched the deployment sends to POST /_mock/proxy/webhook, compares the
// mock's decision for the same task (docs/contract.md, "Contract-checking proxy").
type Proxy struct {
	cfg      ProxyConfig
	upstream *url.URL
	client   *http.Client
	contract *contract.Contract
	shadow   *Server
	log      *slog.Logger

	mu        sync.Mutex
	exchanges []ProxyExchange
	diffs     []ProxyDifference
	matched   []upstreamMatch
}

// ProxyExchange is one request the proxy forwarded and the deployment's answer, as recorded:
// the Authorization header, PINs, tokens and secrets redacted.
type ProxyExchange struct {
	Seq        int64           `json:"seq"`
	Method     string          `json:"method"`
	Path       string          `json:"path"`
	RawQuery   string          `json:"rawQuery,omitempty"`
	Header     http.Header     `json:"header"`
	Body       json.RawMessage `json:"body,omitempty"`
	StatusCode int             `json:"statusCode"` // 502 when the deployment could not be reached
	Answer     json.RawMessage `json:"answer,omitempty"`
}

// ProxyDifference is one way an exchange broke api/openapi.json.
type ProxyDifference struct {
	Seq     int64  `json:"seq"`  // the exchange's
	Side    string `json:"side"` // "request" or "answer"
	Method  string `json:"method"`
	Path    string `json:"path"`
	Status  int    `json:"status"`
	Problem string `json:"problem"`
}

// ShadowComparison is the deployment's decision for a task (a task.matched it sent) beside
// the shadow mock's n-th decision for the same task.
type ShadowComparison struct {
	TaskID         string `json:"taskId"`
	UpstreamWorker string `json:"upstreamWorkerId"`
	MockWorker     string `json:"mockWorkerId"` // empty when the mock has not offered the task
	Agree          bool   `json:"agree"`
	Reason         string `json:"reason,omitempty"` // why they differ
}

// ProxyReport is what GET /_mock/proxy/report answers.
type ProxyReport struct {
	Differences []ProxyDifference  `json:"differences"`
	Decisions   []ShadowComparison `json:"decisions"`
}

type upstreamMatch struct{ taskID, workerID string }

// NewProxy checks cfg and, in shadow mode, starts the shadow server (never listening).
func NewProxy(cfg ProxyConfig) (*Proxy, error) {
	u, err := url.Parse(cfg.Upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("mockserver: the proxy's upstream must be an http or https URL")
	}
	if cfg.AdminKey == "" {
		cfg.AdminKey = "sk_test_" + rand.Text()
	}
	for _, f := range cfg.ForwardWebhooksTo {
		if err := checkWebhookURL(f); err != nil {
			return nil, err
		}
	}
	spec, err := contract.Default()
	if err != nil {
		return nil, fmt.Errorf("mockserver: %w", err)
	}
	p := &Proxy{cfg: cfg, upstream: u, client: cfg.Client, contract: spec, log: cfg.Logger}
	if p.client == nil {
		p.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 30 * time.Second}
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if cfg.Shadow {
		if p.shadow, err = NewUnstarted(cfg.ShadowOptions...); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// AdminKey is the bearer token of /_mock/proxy/*.
func (p *Proxy) AdminKey() string { return p.cfg.AdminKey }

// Shadow is the shadow mock server, nil unless ProxyConfig.Shadow.
func (p *Proxy) Shadow() *Server { return p.shadow }

// Close stops the shadow server.
func (p *Proxy) Close() {
	if p.shadow != nil {
		p.shadow.Close()
	}
}

// Handler serves /v1 (forwarded), and /_mock/proxy/report, /_mock/proxy/requests and
// /_mock/proxy/webhook.
func (p *Proxy) Handler() http.Handler { return http.HandlerFunc(p.serveHTTP) }

func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/_mock/proxy/webhook":
		p.serveWebhook(w, r)
	case strings.HasPrefix(r.URL.Path, "/_mock/"):
		p.serveAdmin(w, r)
	case strings.HasPrefix(r.URL.Path, BasePath+"/"):
		p.forward(w, r)
	default:
		writeResponse(w, errResponse(notFoundf("the proxy serves %s/ and /_mock/proxy/", BasePath)))
	}
}

func (p *Proxy) serveAdmin(w http.ResponseWriter, r *http.Request) {
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if subtle.ConstantTimeCompare([]byte(key), []byte(p.cfg.AdminKey)) != 1 {
		writeResponse(w, errResponse(errorf(http.StatusUnauthorized, CodeUnauthorized, "missing or invalid API key")))
		return
	}
	var v any
	switch r.Method + " " + r.URL.Path {
	case "GET /_mock/proxy/report":
		v = p.Report()
	case "GET /_mock/proxy/requests":
		v = map[string]any{"requests": p.Exchanges()}
	default:
		writeResponse(w, errResponse(notFoundf("no proxy route for %s %s", r.Method, r.URL.Path)))
		return
	}
	b, _ := json.Marshal(v)
	writeResponse(w, response{status: http.StatusOK, body: b, header: http.Header{}})
}

// dropHopHeaders removes the headers a proxy does not pass on (RFC 9110, section 7.6.1),
// and the length, which the proxy sets for the body it sends.
func dropHopHeaders(h http.Header) {
	for _, k := range [...]string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Host", "Content-Length"} {
		h.Del(k)
	}
}

func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil || len(body) > MaxBodyBytes {
		writeResponse(w, errResponse(invalidBodyf("body could not be read")))
		return
	}
	target := *p.upstream
	target.Path = strings.TrimSuffix(p.upstream.Path, "/") + strings.TrimPrefix(r.URL.Path, BasePath)
	target.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target.String(), bytes.NewReader(body))
	if err != nil {
		writeResponse(w, errResponse(errorf(http.StatusBadGateway, CodeInternalError, "the proxy could not build the request")))
		return
	}
	out.Header = r.Header.Clone()
	dropHopHeaders(out.Header)
	ex := ProxyExchange{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: redactHeader(r.Header),
		Body: jsonOrNil(redactBody(r.URL.Path, body))}
	resp, err := p.client.Do(out)
	var answer []byte
	var header http.Header
	if err != nil {
		ex.StatusCode = http.StatusBadGateway
		answer = encodeError(errorf(http.StatusBadGateway, CodeServiceUnavailable, "the deployment could not be reached"))
		header = http.Header{}
	} else {
		answer, err = io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		resp.Body.Close()
		ex.StatusCode, header = resp.StatusCode, resp.Header
		if err != nil {
			ex.StatusCode = http.StatusBadGateway
			answer = encodeError(errorf(http.StatusBadGateway, CodeServiceUnavailable, "the deployment's answer broke off"))
		}
	}
	ex.Answer = jsonOrNil(redactAnswer(answer))
	seq := p.record(ex)
	if resp != nil {
		p.check(seq, r, body, ex.StatusCode, answer)
		if p.shadow != nil && ex.StatusCode < 300 {
			p.playShadow(r, body, answer)
		}
	}
	dropHopHeaders(header)
	writeResponse(w, response{status: ex.StatusCode, body: answer, header: header})
}

func (p *Proxy) record(ex ProxyExchange) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	ex.Seq = int64(len(p.exchanges)) + 1
	p.exchanges = append(p.exchanges, ex)
	return ex.Seq
}

// check holds the request and the answer to api/openapi.json and reports each difference.
func (p *Proxy) check(seq int64, r *http.Request, body []byte, status int, answer []byte) {
	opID, ok := p.contract.Operation(r.Method, r.URL.Path)
	if !ok {
		p.differ(ProxyDifference{Seq: seq, Side: "request", Method: r.Method, Path: r.URL.Path, Status: status,
			Problem: "no operation of api/openapi.json has this method and path"})
		return
	}
	if err := p.contract.ValidateRequest(opID, r.URL.Query(), body); err != nil {
		p.differ(ProxyDifference{Seq: seq, Side: "request", Method: r.Method, Path: r.URL.Path, Status: status, Problem: opID + ": " + err.Error()})
	}
	if err := p.contract.ValidateResponse(opID, status, answer); err != nil {
		p.differ(ProxyDifference{Seq: seq, Side: "answer", Method: r.Method, Path: r.URL.Path, Status: status, Problem: opID + ": " + err.Error()})
	} else if extra := p.contract.UndeclaredMembers(opID, status, answer); len(extra) > 0 {
		p.differ(ProxyDifference{Seq: seq, Side: "answer", Method: r.Method, Path: r.URL.Path, Status: status,
			Problem: opID + ": members the contract does not define: " + strings.Join(extra, ", ")})
	}
}

func (p *Proxy) differ(d ProxyDifference) {
	p.mu.Lock()
	p.diffs = append(p.diffs, d)
	p.mu.Unlock()
	p.log.Warn("the deployment differs from api/openapi.json", "side", d.Side, "method", d.Method, "path", d.Path,
		"status", d.Status, "problem", d.Problem)
}

// playShadow runs a command the deployment accepted against the shadow server, with the
// shadow's key. A create without an id gets the id the deployment chose, so both sides
// speak of the same task.
func (p *Proxy) playShadow(r *http.Request, body, answer []byte) {
	if r.Method == http.MethodGet || isWorkerPlane(r.URL.Path) || isSupervisorPlane(r.URL.Path) {
		return // reads change nothing; the session planes' tokens are the deployment's
	}
	if r.Method == http.MethodPost && r.URL.Path == BasePath+"/tasks" {
		body = withAnswerID(body, answer)
	}
	req, err := http.NewRequestWithContext(context.Background(), r.Method, "http://shadow.invalid"+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+p.shadow.APIKey())
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	if resp, err := p.shadow.Transport().RoundTrip(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func withAnswerID(body, answer []byte) []byte {
	var in map[string]json.RawMessage
	var out struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(body, &in) != nil || json.Unmarshal(answer, &out) != nil || out.ID == "" || in["id"] != nil {
		return body
	}
	in["id"], _ = json.Marshal(out.ID)
	b, err := json.Marshal(in)
	if err != nil {
		return body
	}
	return b
}

// serveWebhook verifies a delivery of the deployment, records a task.matched for the shadow
// comparison, and forwards the delivery as received.
func (p *Proxy) serveWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes))
	if err != nil {
		writeResponse(w, errResponse(invalidBodyf("body could not be read")))
		return
	}
	if p.cfg.SigningSecret == "" {
		writeResponse(w, errResponse(errorf(http.StatusUnauthorized, CodeUnauthorized, "the proxy was given no signing secret to verify deliveries with")))
		return
	}
	var opts []webhook.Option
	if p.cfg.Now != nil {
		opts = append(opts, webhook.WithClock(p.cfg.Now))
	}
	v, err := webhook.NewVerifier(p.cfg.SigningSecret, opts...)
	if err != nil {
		writeResponse(w, errResponse(errorf(http.StatusInternalServerError, CodeInternalError, "bad signing secret")))
		return
	}
	ev, err := v.ConstructEvent(body, r.Header.Get(webhook.SignatureHeader))
	if err != nil {
		p.log.Warn("a delivery to the proxy failed verification", "error", err)
		writeResponse(w, errResponse(errorf(http.StatusBadRequest, CodeInvalidBody, "delivery not verified: %v", err)))
		return
	}
	if ev.Kind == webhook.KindTaskMatched {
		p.mu.Lock()
		p.matched = append(p.matched, upstreamMatch{taskID: ev.TaskID, workerID: ev.WorkerID})
		p.mu.Unlock()
	}
	for _, to := range p.cfg.ForwardWebhooksTo {
		p.forwardWebhook(r, to, body)
	}
	w.WriteHeader(http.StatusNoContent)
}

func (p *Proxy) forwardWebhook(r *http.Request, to string, body []byte) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, to, bytes.NewReader(body))
	if err != nil {
		return
	}
	for _, h := range []string{"Content-Type", "User-Agent", webhook.SignatureHeader} {
		req.Header.Set(h, r.Header.Get(h))
	}
	resp, err := p.client.Do(req)
	if err != nil {
		p.log.Warn("forwarding a delivery failed", "url", to, "error", err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// Report lists every difference so far and, in shadow mode, each of the deployment's
// decisions beside the mock's: the deployment's n-th task.matched for a task against the
// shadow's n-th, compared when the report is read (deliveries and commands may arrive in
// either order).
func (p *Proxy) Report() ProxyReport {
	p.mu.Lock()
	rep := ProxyReport{Differences: append([]ProxyDifference{}, p.diffs...), Decisions: []ShadowComparison{}}
	matched := append([]upstreamMatch(nil), p.matched...)
	p.mu.Unlock()
	if p.shadow == nil {
		return rep
	}
	seen := map[string]int{}
	for _, m := range matched {
		n := seen[m.taskID]
		seen[m.taskID]++
		c := ShadowComparison{TaskID: m.taskID, UpstreamWorker: m.workerID}
		mine := p.shadow.EventsWhere(EventFilter{Kind: webhook.KindTaskMatched, TaskID: m.taskID})
		if n < len(mine) {
			c.MockWorker = mine[n].WorkerID
		}
		c.Agree = c.MockWorker == c.UpstreamWorker
		switch {
		case c.Agree:
		case c.MockWorker == "":
			c.Reason = "the mock has not offered the task"
			if why, err := p.shadow.WhyUnmatched(m.taskID); err == nil {
				if b, err := json.Marshal(why); err == nil {
					c.Reason += ": " + string(b)
				}
			}
		default:
			c.Reason = fmt.Sprintf("the deployment offered the task to %s, the mock (%s) to %s",
				m.workerID, p.shadow.rulesName(), c.MockWorker)
		}
		rep.Decisions = append(rep.Decisions, c)
	}
	return rep
}

// Exchanges returns every exchange recorded so far, oldest first.
func (p *Proxy) Exchanges() []ProxyExchange {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ProxyExchange{}, p.exchanges...)
}

// rulesName names the rule set and mode the server matches by, for the proxy's reasons.
func (s *Server) rulesName() string {
	rules, mode := s.cfg.matcher.Rules, s.cfg.matcher.Mode
	if rules == "" {
		rules = RulesPlatform
	}
	if mode == "" {
		mode = ModeBestMatch
	}
	return fmt.Sprintf("rules %s, mode %s", rules, mode)
}

// redactAnswer hides the credentials an answer may hand out (a session or invite token, a
// signing secret) before it is recorded.
func redactAnswer(b []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return b
	}
	found := false
	for k := range m {
		switch strings.ToLower(k) {
		case "token", "accesstoken", "refreshtoken", "secret", "signingsecret", "pin":
			m[k] = json.RawMessage(`"` + redacted + `"`)
			found = true
		}
	}
	if !found {
		return b
	}
	out, err := json.Marshal(m)
	if err != nil {
		return []byte(`"` + redacted + `"`)
	}
	return out
}

func jsonOrNil(b []byte) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		if len(b) == 0 {
			return nil
		}
		q, _ := json.Marshal(string(b))
		return q
	}
	return b
}

// ServeProxy serves p on ln until ctx ends.
func ServeProxy(ctx context.Context, p *Proxy, ln net.Listener) error {
	srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
