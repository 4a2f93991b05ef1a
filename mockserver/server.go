package mockserver

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/contract"
)

// BasePath is the path every API operation lives under; URL includes it.
const BasePath = "/v1"

// Server is a stateful fake of the task-routing service. It is safe for concurrent use; its
// zero value is not usable: create one with New or Start.
type Server struct {
	// contract is api/openapi.json compiled once per process; every request is checked
	// against its operation's schemas before anything runs.
	contract *contract.Contract
	cfg      config
	clock    Clock
	manual   *ManualClock // nil with a real clock
	apiKey   string
	secret   string
	deliver  *deliverer
	notes    notifier // notification sequences' sends (notifyfire.go)
	log      *slog.Logger
	logPC    atomic.Uintptr // record's log line's program counter, once known (requestLogPC)
	faults   faultSet
	rec      recorder
	reqIDs   requestIDs // X-Request-Id of every answer (requestid.go)
	routes   routeTable
	// The worker plane: its routes, the token table and the workspace ids sign-ins name.
	workerRoutes routeTable
	sessions     sessions
	workspaceIDs []string // parallel to keys
	// The supervisor plane (supervisor.go) and the session planes' push targets (push.go).
	supervisorRoutes routeTable
	supervisors      supervisorStore
	push             pushStore

	// gate is held for reading by every API request from before it resolves its workspace
	// until it is recorded, and for writing by Reset, so no request straddles a Reset.
	gate       sync.RWMutex
	resetMu    sync.Mutex   // one Reset at a time
	mu         sync.RWMutex // guards workspaces during Reset
	workspaces map[string]*workspace
	keys       []string // in configuration order; keys[0] is the sandbox key
	gen        uint64   // Reset count, so ids after a Reset differ from ids before

	httpSrv  *http.Server
	listener net.Listener
	url      string
	conns    connTracker

	wake      chan struct{} // nudges the real-clock scheduler
	done      chan struct{}
	closeOnce sync.Once
	checks    responseChecks
	loopDone  chan struct{}
}

// New creates a server listening on a random loopback port. Call Close when done.
func New(opts ...Option) (*Server, error) {
	s, err := newServer(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("mockserver: listen: %w", err)
	}
	s.Serve(ln)
	return s, nil
}

// Start is New for tests: it fails the test on error and closes the server on t.Cleanup.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	// The test hears of every refused webhook delivery unless the options say otherwise.
	s, err := New(append([]Option{WithTestLogger(t)}, opts...)...)
	if err != nil {
		t.Fatalf("mockserver.Start: %v", err)
	}
	t.Cleanup(func() {
		s.shutdown()
		if n, first := s.outsideBasePath(); n > 0 {
			t.Logf("mockserver: %d requests outside the base path %s answered 404 (first: %s); give the client Server.URL(), which includes it", n, BasePath, first)
		}
		if v := s.ContractViolations(); len(v) > 0 {
			t.Errorf("mockserver: %d answers broke api/openapi.json:\n%s", len(v), strings.Join(v, "\n"))
		}
	})
	return s
}

// NewUnstarted creates a server without a listener, for Handler-only use or for Serve on a
// listener of the caller's choosing (as the standalone binary does).
func NewUnstarted(opts ...Option) (*Server, error) {
	return newServer(opts)
}

func newServer(opts []Option) (*Server, error) {
	cfg := config{requestLog: 10_000, retention: DefaultRetention, finishedTasks: DefaultFinishedTasks, stateLog: DefaultStateLog}
	for _, o := range opts {
		o(&cfg)
	}
	if err := errors.Join(cfg.errs...); err != nil {
		return nil, err
	}
	if cfg.clock == nil {
		cfg.clock = realClock{}
	}
	if cfg.apiKey == "" {
		cfg.apiKey = "sk_test_" + rand.Text()
	}
	if cfg.signingSecret == "" {
		cfg.signingSecret = "whsec_" + rand.Text()
	}
	if cfg.limits.TaskRateWindow == 0 {
		cfg.limits.TaskRateWindow = time.Minute
	}
	cfg.delivery = cfg.delivery.withDefaults()
	client := cfg.deliveryClient
	if client == nil {
		// A private transport so Close can drop its idle connections and parallel servers
		// share nothing.
		client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	spec, err := contract.Default()
	if err != nil {
		return nil, fmt.Errorf("mockserver: %w", err)
	}
	s := &Server{
		checks:   responseChecks{on: (testing.Testing() && !cfg.noResponseChecks) || cfg.strictResponses, enforce: cfg.strictResponses},
		contract: spec,
		cfg:      cfg,
		clock:    cfg.clock,
		apiKey:   cfg.apiKey,
		secret:   cfg.signingSecret,
		rec:      recorder{limit: cfg.requestLog},
		routes:   indexRoutes(newRoutes()),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		loopDone: make(chan struct{}),
	}
	s.checks.drift = driftHook()
	s.workerRoutes = indexRoutes(append(newWorkerRoutes(), newWorkerPushRoutes(s)...))
	s.supervisorRoutes = indexRoutes(newSupervisorRoutes(s))
	s.keys = append([]string{cfg.apiKey}, cfg.extraKeys...)
	seen := map[string]bool{}
	for _, k := range s.keys {
		if seen[k] {
			return nil, errors.New("mockserver: the same api key is configured twice")
		}
		seen[k] = true
	}
	for i := range s.keys {
		id := "ws_sandbox"
		if i > 0 {
			id = "ws_" + idTag(cfg.seed, 0, uint64(i))
		}
		s.workspaceIDs = append(s.workspaceIDs, id)
	}
	s.sessions.ttl = cfg.workerSessionTTL
	s.deliver = newDeliverer(cfg.webhookURLs, cfg.signingSecret, cfg.clock, cfg.delivery, client, s.nudge)
	s.deliver.retention = cfg.retention
	s.log = cfg.logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.deliver.logger = s.log
	s.deliver.testLog = cfg.testLog
	if cfg.wallClockSignatures {
		s.deliver.signNow = time.Now
	}
	if m := cfg.matcher; m.AnyTagEligibility && m.Rules == "" {
		// The deprecated option keeps the meaning it had before the platform's rules became
		// the default; said once, so choosing it by mistake is not silent.
		s.log.Warn(anyTagNotice)
		if cfg.testLog != nil {
			cfg.testLog.Logf("mockserver: %s", anyTagNotice)
		}
	}
	s.notes = notifier{client: client, secret: cfg.signingSecret, timeout: cfg.delivery.Timeout, signNow: s.deliver.signNow}
	_, s.deliver.manual = cfg.clock.(*ManualClock)
	s.workspaces = s.newWorkspaces()
	if mc, ok := cfg.clock.(*ManualClock); ok {
		s.manual = mc
		mc.register(s)
		close(s.loopDone)
	} else if cfg.noTimerLoop {
		close(s.loopDone)
	} else {
		go s.timerLoop()
	}
	return s, nil
}

func (s *Server) newWorkspaces() map[string]*workspace {
	m := make(map[string]*workspace, len(s.keys))
	for i, k := range s.keys {
		m[k] = newWorkspace(i, s.gen, &s.cfg, &s.sessions)
		m[k].id = s.workspaceIDs[i]
	}
	return m
}

// Serve answers API requests on ln in the background until Close.
func (s *Server) Serve(ln net.Listener) {
	s.listener = ln
	s.url = "http://" + ln.Addr().String() + BasePath
	s.httpSrv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ConnState: s.conns.track}
	s.httpSrv.RegisterOnShutdown(s.conns.closeUnused)
	go func() { _ = s.httpSrv.Serve(ln) }()
}

// connTracker knows the connections that have not sent a request yet. net/http's Shutdown
// waits up to 5 s for those (they might be about to send one), and a client pool that dialled
// more connections than it used leaves exactly such connections behind: without this, Close
// (and so every Start's cleanup) could take 5 s. Like httptest.Server, Close drops them.
type connTracker struct {
	mu       sync.Mutex
	unused   map[net.Conn]struct{}
	shutdown bool
}

func (ct *connTracker) track(c net.Conn, st http.ConnState) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if st != http.StateNew {
		delete(ct.unused, c)
		return
	}
	if ct.shutdown {
		_ = c.Close()
		return
	}
	if ct.unused == nil {
		ct.unused = map[net.Conn]struct{}{}
	}
	ct.unused[c] = struct{}{}
}

// closeUnused runs when Shutdown has closed the listeners; a connection accepted after it
// is closed by track.
func (ct *connTracker) closeUnused() {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	ct.shutdown = true
	for c := range ct.unused {
		_ = c.Close()
	}
	ct.unused = nil
}

// URL returns the API base URL, e.g. "http://127.0.0.1:41234/v1"; empty for a server made
// with NewUnstarted and not yet serving.
func (s *Server) URL() string { return s.url }

// APIKey returns the sandbox key (sk_test_...) that reaches the first workspace.
func (s *Server) APIKey() string { return s.apiKey }

// SigningSecret returns the secret webhooks are signed with (whsec_...).
func (s *Server) SigningSecret() string { return s.secret }

// String describes the server without its keys or signing secret. Without it, printing a
// *Server would dump every field: the credentials, and state read without its lock.
func (s *Server) String() string {
	return fmt.Sprintf("mockserver.Server{url: %q, apiKey: [redacted], signingSecret: [redacted]}", s.url)
}

// GoString describes the server for %#v, as String does.
func (s *Server) GoString() string { return s.String() }

// Handler returns the server as an http.Handler, to mount elsewhere or to call without a
// socket. Paths include BasePath.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// Close stops serving, stops the clock hooks and waits for webhook attempts in flight. Events
// still queued are not delivered. Close is idempotent.
//
// Inside a test binary, Close panics when answers broke their response schema and nobody
// collected them (ContractViolations); Start reports them through the test instead.
func (s *Server) Close() {
	s.shutdown()
	s.panicOnUncollected()
}

func (s *Server) shutdown() {
	s.closeOnce.Do(func() {
		if s.httpSrv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.httpSrv.Shutdown(ctx); err != nil {
				_ = s.httpSrv.Close()
			}
		}
		s.stop()
	})
}

func (s *Server) stop() {
	close(s.done)
	<-s.loopDone
	if s.manual != nil {
		s.manual.unregister(s)
	}
	s.deliver.close()
	if tr, ok := s.deliver.client.Transport.(*http.Transport); ok && s.cfg.deliveryClient == nil {
		tr.CloseIdleConnections()
	}
}

// Reset forgets every task, worker, decision, event, delivery, recorded request, fault and
// idempotency key, keeping keys, secret, webhook URLs and the clock. It is a barrier: webhook
// attempts in flight and API requests in progress finish first, and nothing of the old state
// is recorded or delivered after Reset returns. Requests arriving meanwhile wait and then see
// the new state.
func (s *Server) Reset() {
	s.resetMu.Lock()
	defer s.resetMu.Unlock()
	// Stop starting attempts and wait for those in flight before closing the gate: a receiver
	// may call back into the API, and its request must not wait behind Reset.
	s.deliver.pause()
	s.notes.pause()
	s.gate.Lock()
	defer s.gate.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.sessions.reset()
	s.supervisors.reset()
	s.push.reset()
	s.workspaces = s.newWorkspaces()
	s.faults.clear()
	s.rec.reset()
	s.deliver.reset()
	s.notes.reset()
}

// freeMemory collects the state a reset dropped and returns its pages to the OS at once
// (POST /_mock/reset; TestResetReturnsMemory measures it).
func (s *Server) freeMemory() { debug.FreeOSMemory() }

// InjectFault adds a fault; see Fault.
func (s *Server) InjectFault(f Fault) error { return s.faults.add(f) }

// ClearFaults removes every fault.
func (s *Server) ClearFaults() { s.faults.clear() }

// Requests returns the requests received so far (the newest WithRequestLog of them), oldest
// first, with the Authorization header redacted.
func (s *Server) Requests() []Request { return s.rec.snapshot() }

// Events returns the webhook events emitted so far, in emission order: the newest
// DefaultRetention of them, or as WithRetention says. Events are recorded whether or not
// webhook URLs are configured.
func (s *Server) Events() []Event {
	evs, _ := s.deliver.snapshot()
	return evs
}

// Deliveries returns the webhook delivery attempts so far, in the order they finished: the
// newest DefaultRetention of them, or as WithRetention says.
func (s *Server) Deliveries() []Delivery {
	_, ds := s.deliver.snapshot()
	return ds
}

// Flush waits until no webhook attempt is in flight; attempts due now have all been made.
// Retries scheduled for later are not waited for: with a ManualClock, Advance runs them.
func (s *Server) Flush(ctx context.Context) error {
	return s.deliver.waitFor(ctx, s.deliver.idleLocked)
}

// WaitForDeliveries waits until every emitted event is delivered to every URL or kept as
// failed. With a ManualClock that needs retries, it returns only after Advance ran them, so
// use Flush there.
func (s *Server) WaitForDeliveries(ctx context.Context) error {
	return s.deliver.waitFor(ctx, s.deliver.drainedLocked)
}

// nudge wakes the real-clock scheduler after a deadline may have moved.
func (s *Server) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// nextDue implements scheduled: the earliest offer expiry or webhook retry.
func (s *Server) nextDue() (time.Time, bool) {
	best, found := s.deliver.nextDue()
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, k := range s.keys {
		if t, ok := s.workspaces[k].nextDeadline(); ok && (!found || t.Before(best)) {
			best, found = t, true
		}
	}
	return best, found
}

// runDue implements scheduled: it expires due offers (which may rematch and emit events),
// starts due webhook attempts and, under a ManualClock, waits for them.
func (s *Server) runDue(now time.Time) {
	var notices []outgoingNotice
	gen := s.notes.generation()
	s.mu.RLock()
	for _, k := range s.keys {
		notices = append(notices, s.workspaces[k].tick(now, s.deliver)...)
	}
	s.mu.RUnlock()
	s.notes.send(notices, now, gen)
	s.deliver.pump(now)
	if s.manual != nil {
		_ = s.deliver.waitFor(context.Background(), s.deliver.idleLocked)
	}
}

// timerLoop drives deadlines with a real (or custom non-manual) clock.
func (s *Server) timerLoop() {
	defer close(s.loopDone)
	const idle = time.Hour
	timer := time.NewTimer(idle)
	defer timer.Stop()
	for {
		wait := idle
		if due, ok := s.nextDue(); ok {
			wait = max(due.Sub(s.clock.Now()), 0)
		}
		timer.Reset(wait)
		select {
		case <-timer.C:
			s.runDue(s.clock.Now())
		case <-s.wake:
		case <-s.done:
			return
		}
	}
}
