package taskrouting

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// defaultPacingWindow is the platform's task-rate window (see the quota
// headers in docs/contract.md); the headers give the limit, not the window.
const defaultPacingWindow = time.Minute

// pacingShare is the part of the reported rate the pacer uses. The server
// counts in fixed windows that start at a request it receives, so requests
// delayed on the way can land in the next window; the spare tenth absorbs
// that jitter (about a tenth of the window) instead of turning it into 429s.
const pacingShare = 0.9

// WithQuotaPacing paces task creation (tasks.create, POST /tasks) to the
// task-rate quota the server reports in X-Quota-Task-Rate-Limit, across
// every goroutine using the client, so a burst of creates spreads over the
// window instead of running into 429 rate_limited. window is the quota's
// window; 0 means one minute, the platform's. Until a response has reported
// the limit, creates go one at a time. A 429 that still comes pauses every
// create of the client until its Retry-After (capped like retries, see
// WithMaxRetryAfter) has passed, not only the call that got it. Other calls
// are not paced (a WorkerClient, which creates no tasks, is never slowed).
func WithQuotaPacing(window time.Duration) RequestOption {
	return func(s *config) error {
		if err := s.clientOnly("WithQuotaPacing"); err != nil {
			return err
		}
		if window < 0 {
			return &ParamError{Param: "WithQuotaPacing", Problem: "window must not be negative"}
		}
		if window == 0 {
			window = defaultPacingWindow
		}
		s.pacingWindow = window
		return nil
	}
}

// quotaPacer is shared by every request of one client. It sits in the
// transport, below the retries, so each attempt (retries included) waits
// for its turn.
type quotaPacer struct {
	window   time.Duration
	maxPause time.Duration

	mu          sync.Mutex
	limiter     *rate.Limiter // nil until the limit is known
	limit       int
	probing     bool          // a create is out to learn the limit
	changed     chan struct{} // closed when limiter, probing or the window's count changes
	pausedUntil time.Time     // set by a 429: nobody creates before it

	// The limiter spaces creates as they leave, but the server counts them as they arrive,
	// and a create delayed on the way (a busy machine, a slow connection) arrives later
	// than it left: creates spaced when sent can reach the server bunched, several in one
	// of its windows. So a create also leaves only while fewer than limit creates are in
	// flight or answered within the last window (windowFull): whatever the delays, the
	// server then never sees more than limit creates in any span of one window (see
	// windowFull for why).
	inFlight int
	answered []time.Time // when each create's answer came, oldest first, within one window
}

func newQuotaPacer(window, maxPause time.Duration) *quotaPacer {
	return &quotaPacer{window: window, maxPause: maxPause, changed: make(chan struct{})}
}

// wrap returns a copy of hc whose transport paces creates; hc itself, which
// may belong to the caller, is left alone.
func (p *quotaPacer) wrap(hc *http.Client) *http.Client {
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	paced := *hc
	paced.Transport = &pacedTransport{next: next, pacer: p}
	return &paced
}

// wait blocks until a create may be sent. probe reports that this create is
// the one sent to learn the limit.
func (p *quotaPacer) wait(ctx context.Context) (probe bool, err error) {
	for {
		p.mu.Lock()
		pause := time.Until(p.pausedUntil)
		limiter, probing, changed := p.limiter, p.probing, p.changed
		if pause <= 0 && limiter == nil && !probing {
			p.probing = true
		}
		p.mu.Unlock()
		switch {
		case pause > 0:
			if err := sleepCtx(ctx, pause); err != nil {
				return false, err
			}
		case limiter != nil:
			if err := limiter.Wait(ctx); err != nil {
				return false, err
			}
			p.mu.Lock()
			now := time.Now()
			paused := now.Before(p.pausedUntil)
			full, until := p.windowFull(now)
			if !paused && !full { // a 429 may have come in while this one waited
				p.inFlight++
				p.mu.Unlock()
				return false, nil
			}
			changed = p.changed
			p.mu.Unlock()
			if full {
				if err := waitChange(ctx, changed, until.Sub(now)); err != nil {
					return false, err
				}
			}
		case !probing:
			p.mu.Lock()
			p.inFlight++
			p.mu.Unlock()
			return true, nil
		default:
			select {
			case <-changed:
			case <-ctx.Done():
				return false, ctx.Err()
			}
		}
	}
}

// windowFull reports whether a create leaving at now could make the server see more than
// limit creates within one window, and when to look again. Why counting creates in flight
// or answered within the last window is enough: take any span of one window on the server
// and the creates that arrive in it, and q the last of them to leave. Every other one left
// before q and was answered after the span began, so no more than a window before q left:
// when q left, each was in flight or answered within the last window. q left only with
// fewer than limit of those, so the span holds at most limit creates.
func (p *quotaPacer) windowFull(now time.Time) (bool, time.Time) {
	if p.limit <= 0 {
		return false, time.Time{}
	}
	cut := now.Add(-p.window)
	drop := 0
	for drop < len(p.answered) && !p.answered[drop].After(cut) {
		drop++
	}
	p.answered = p.answered[drop:]
	if p.inFlight+len(p.answered) < p.limit {
		return false, time.Time{}
	}
	if len(p.answered) > 0 {
		return true, p.answered[0].Add(p.window)
	}
	return true, time.Time{} // every slot is in flight: wait for an answer
}

// done records that a create left by wait came back (answered or failed) at now.
func (p *quotaPacer) done(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inFlight--
	if p.limit > 0 { // without a limit nothing reads the window
		p.answered = append(p.answered, now)
		p.windowFull(now) // drops what left the window, so the log stays one window long
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

// waitChange waits for changed, for d when d > 0, or for ctx.
func waitChange(ctx context.Context, changed <-chan struct{}, d time.Duration) error {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-changed:
	case <-timeout:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// observe learns from a response (nil after a transport error): the limit
// from the quota headers, a pause from a 429's Retry-After.
func (p *quotaPacer) observe(resp *http.Response, probe bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	notify := probe
	if probe {
		p.probing = false
	}
	if resp != nil {
		if limit, ok := headerInt(resp.Header, "X-Quota-Task-Rate-Limit"); ok && limit > 0 && limit != p.limit {
			every := rate.Limit(pacingShare * float64(limit) / p.window.Seconds())
			if p.limiter == nil {
				p.limiter = rate.NewLimiter(every, 1)
				p.limiter.Allow() // the create that taught us the limit used a slot
			} else {
				p.limiter.SetLimit(every)
			}
			p.limit, notify = limit, true
		} else if probe && !ok && p.limiter == nil {
			// The server reports no task-rate quota: nothing to pace to.
			p.limiter, notify = rate.NewLimiter(rate.Inf, 0), true
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Second, time.Now()); ok {
				if until := time.Now().Add(min(d, p.maxPause)); until.After(p.pausedUntil) {
					p.pausedUntil = until
				}
			}
		}
	}
	if notify {
		close(p.changed)
		p.changed = make(chan struct{})
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pacedTransport makes each task-create attempt wait for the pacer and lets
// the pacer see every answer.
type pacedTransport struct {
	next  http.RoundTripper
	pacer *quotaPacer
}

func (t *pacedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/tasks") {
		resp, err := t.next.RoundTrip(req)
		if err == nil {
			t.pacer.observe(resp, false) // any answer may report the limit
		}
		return resp, err
	}
	probe, err := t.pacer.wait(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // a RoundTripper must close the body, even on error
		}
		return nil, err
	}
	resp, err := t.next.RoundTrip(req)
	t.pacer.done(time.Now()) // the answer's headers are in: the server has counted it
	t.pacer.observe(resp, probe)
	return resp, err
}

// CloseIdleConnections passes through, so the client's clean-up after a
// failed call still reaches the real transport.
func (t *pacedTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
