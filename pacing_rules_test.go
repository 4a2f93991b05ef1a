package taskrouting

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/google/go-cmp/cmp/cmpopts"
)

// Rule: WithQuotaPacing belongs to a client (a call given it is refused), refuses a
// negative window, reads 0 as the platform's minute and keeps any positive window as given.
func TestWithQuotaPacingWindow(t *testing.T) {
	for _, tc := range []struct {
		name     string
		perCall  bool
		window   time.Duration
		want     time.Duration
		wantProb string // the ParamError's problem; "" for none
	}{
		{"zero is a minute", false, 0, time.Minute, ""},
		{"one nanosecond kept", false, time.Nanosecond, time.Nanosecond, ""},
		{"a second kept", false, time.Second, time.Second, ""},
		{"minus one nanosecond refused", false, -time.Nanosecond, 0, "window must not be negative"},
		{"a single call refused", true, time.Second, 0, "applies to a client, not to a single call"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config{perCall: tc.perCall}
			err := WithQuotaPacing(tc.window)(&cfg)
			if tc.wantProb == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.want, cfg.pacingWindow)
				return
			}
			var pe *ParamError
			require.ErrorAs(t, err, &pe)
			diff(t, "error", ParamError{Param: "WithQuotaPacing", Problem: tc.wantProb}, *pe)
			assert.Zero(t, cfg.pacingWindow, "a refused option changed the client")
		})
	}
}

// closed reports whether ch is closed, without waiting.
func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// quotaAnswer is an answer carrying the given headers (name, value pairs).
func quotaAnswer(status int, kv ...string) *http.Response {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return &http.Response{StatusCode: status, Header: h, Body: http.NoBody}
}

// Rule: the pacer learns the task-rate limit from any answer that reports a positive one,
// paces to nine tenths of it over the window (the create that taught it counts as sent),
// follows a changed limit, paces nothing when the probe's answer reports no quota, stops
// probing only on the probe's answer, and pauses every create on a 429's Retry-After,
// capped at the longest pause, never shortening a pause already running. Whoever waits is
// woken when any of that changes.
func TestPacerObserve(t *testing.T) {
	type state struct {
		Limit     int
		Rate      rate.Limit // of the limiter; -1 for no limiter
		Burst     int
		Probing   bool
		Notified  bool
		PauseSecs int // how far pausedUntil lies ahead, whole seconds (0: none)
	}
	const noLimiter = rate.Limit(-1)
	learned := func(p *quotaPacer) { // a limit of 60 a minute was learned earlier
		p.limit, p.limiter = 60, rate.NewLimiter(0.9, 1)
		p.limiter.Allow()
	}
	fresh := func(*quotaPacer) {}
	probing := func(p *quotaPacer) { p.probing = true }
	for _, tc := range []struct {
		name  string
		setup func(*quotaPacer)
		probe bool
		resp  *http.Response
		want  state
	}{
		{"the probe learns 60 a minute", probing, true, quotaAnswer(202, "X-Quota-Task-Rate-Limit", "60"),
			state{Limit: 60, Rate: 0.9, Burst: 1, Notified: true}},
		{"the probe learns a limit of 1", probing, true, quotaAnswer(202, "X-Quota-Task-Rate-Limit", "1"),
			state{Limit: 1, Rate: 0.015, Burst: 1, Notified: true}},
		{"another call's answer teaches the limit, the probe goes on", probing, false, quotaAnswer(200, "X-Quota-Task-Rate-Limit", "60"),
			state{Limit: 60, Rate: 0.9, Burst: 1, Probing: true, Notified: true}},
		{"a changed limit is followed", learned, false, quotaAnswer(200, "X-Quota-Task-Rate-Limit", "120"),
			state{Limit: 120, Rate: 1.8, Burst: 1, Notified: true}},
		{"the same limit again changes nothing", learned, false, quotaAnswer(200, "X-Quota-Task-Rate-Limit", "60"),
			state{Limit: 60, Rate: 0.9, Burst: 1}},
		{"an answer without the header keeps the limit", learned, false, quotaAnswer(200),
			state{Limit: 60, Rate: 0.9, Burst: 1}},
		{"a probe without the header keeps the limit", learned, true, quotaAnswer(202),
			state{Limit: 60, Rate: 0.9, Burst: 1, Notified: true}},
		{"a limit of 0 is no limit: probe again", probing, true, quotaAnswer(202, "X-Quota-Task-Rate-Limit", "0"),
			state{Rate: noLimiter, Notified: true}},
		{"a limit that is no number is no limit", probing, true, quotaAnswer(202, "X-Quota-Task-Rate-Limit", "many"),
			state{Rate: rate.Inf, Notified: true}},
		{"a probe answered without a quota: nothing to pace", probing, true, quotaAnswer(202),
			state{Rate: rate.Inf, Notified: true}},
		{"another call without a quota teaches nothing", fresh, false, quotaAnswer(200),
			state{Rate: noLimiter}},
		{"a probe that failed in transport: probe again", probing, true, nil,
			state{Rate: noLimiter, Notified: true}},
		{"a 429 pauses for its Retry-After", learned, false, quotaAnswer(429, "Retry-After", "2"),
			state{Limit: 60, Rate: 0.9, Burst: 1, PauseSecs: 2}},
		{"a 429's pause is capped", learned, false, quotaAnswer(429, "Retry-After", "3600"),
			state{Limit: 60, Rate: 0.9, Burst: 1, PauseSecs: 60}},
		{"a 429 without Retry-After does not pause", learned, false, quotaAnswer(429),
			state{Limit: 60, Rate: 0.9, Burst: 1}},
		{"a 503's Retry-After does not pause creates", learned, false, quotaAnswer(503, "Retry-After", "2"),
			state{Limit: 60, Rate: 0.9, Burst: 1}},
		{"a shorter 429 keeps the longer pause", func(p *quotaPacer) {
			learned(p)
			p.pausedUntil = time.Now().Add(30*time.Second + 500*time.Millisecond)
		}, false, quotaAnswer(429, "Retry-After", "1"),
			state{Limit: 60, Rate: 0.9, Burst: 1, PauseSecs: 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newQuotaPacer(time.Minute, time.Minute)
			tc.setup(p)
			before := p.changed
			p.observe(tc.resp, tc.probe)
			got := state{Limit: p.limit, Rate: noLimiter, Probing: p.probing, Notified: closed(before)}
			if p.limiter != nil {
				got.Rate = p.limiter.Limit()
				if got.Rate != rate.Inf { // an unlimited limiter's burst means nothing
					got.Rate = rate.Limit(math.Round(float64(got.Rate)*1e9) / 1e9)
					got.Burst = p.limiter.Burst()
					// The create that taught the limit used the one slot there is.
					assert.Less(t, p.limiter.Tokens(), 0.5, "the next create may leave at once")
				}
			}
			if !p.pausedUntil.IsZero() {
				got.PauseSecs = int((time.Until(p.pausedUntil) + 500*time.Millisecond) / time.Second)
			}
			diff(t, "pacer", tc.want, got)
		})
	}
}

// Rule: a create leaves when the pacer lets it: the first one alone to learn the limit, the
// others after it; none while a 429's pause runs or while the window is full (limit creates
// in flight or answered within the window), and a caller whose context ends first gets the
// context's error and counts as no create in flight.
func TestPacerWait(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(bg, 60*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	unlimited := func(p *quotaPacer, limit int) {
		p.limiter, p.limit = rate.NewLimiter(rate.Inf, 0), limit
	}
	type outcome struct {
		Probe    bool
		Err      error
		InFlight int
		Probing  bool
	}
	for _, tc := range []struct {
		name    string
		window  time.Duration
		setup   func(*quotaPacer)
		ctx     func() context.Context
		want    outcome
		atLeast time.Duration // the least time the call must have taken
	}{
		{"the first create probes", time.Minute, func(*quotaPacer) {},
			func() context.Context { return bg }, outcome{Probe: true, InFlight: 1, Probing: true}, 0},
		{"a second create waits for the probe's answer", time.Minute, func(p *quotaPacer) { p.probing, p.inFlight = true, 1 },
			func() context.Context { return canceled }, outcome{Err: context.Canceled, InFlight: 1, Probing: true}, 0},
		{"a pause holds a create that would probe", time.Minute, func(p *quotaPacer) { p.pausedUntil = time.Now().Add(time.Hour) },
			func() context.Context { return canceled }, outcome{Err: context.Canceled}, 0},
		{"a create leaves when the pause ends", time.Minute, func(p *quotaPacer) { p.pausedUntil = time.Now().Add(50 * time.Millisecond) },
			func() context.Context { return bg }, outcome{Probe: true, InFlight: 1, Probing: true}, 50 * time.Millisecond},
		{"the limiter's error ends the wait", time.Minute, func(p *quotaPacer) {
			p.limiter, p.limit = rate.NewLimiter(0.001, 1), 60
			p.limiter.Allow()
		}, short, outcome{Err: errLimiterRefused}, 0},
		{"a window with room lets a create leave", time.Minute, func(p *quotaPacer) {
			unlimited(p, 2)
			p.inFlight = 1
		}, func() context.Context { return bg }, outcome{InFlight: 2}, 0},
		{"every slot in flight holds a create until an answer", time.Minute, func(p *quotaPacer) {
			unlimited(p, 2)
			p.inFlight = 2
		}, short, outcome{Err: context.DeadlineExceeded, InFlight: 2}, 0},
		{"a slot answered within the window frees when the window has passed", 80 * time.Millisecond, func(p *quotaPacer) {
			unlimited(p, 1)
			p.answered = []time.Time{time.Now()}
		}, func() context.Context { return bg }, outcome{InFlight: 1}, 80 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newQuotaPacer(tc.window, time.Minute)
			tc.setup(p)
			start := time.Now()
			probe, err := p.wait(tc.ctx())
			took := time.Since(start)
			got := outcome{Probe: probe, Err: err, InFlight: p.inFlight, Probing: p.probing}
			if tc.want.Err == errLimiterRefused {
				assert.Error(t, err)
				assert.NotErrorIs(t, err, context.DeadlineExceeded, "the limiter refuses before the deadline")
				got.Err = errLimiterRefused
			}
			diff(t, "wait", tc.want, got, cmpopts.EquateErrors())
			// A millisecond of slack: timers and the clock differ in resolution.
			assert.GreaterOrEqual(t, took, tc.atLeast-time.Millisecond)
		})
	}
}

// errLimiterRefused stands for the limiter's own error (it names no sentinel).
var errLimiterRefused = errors.New("limiter refused")

// roundTripFunc is a RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// closeTracker is a request body that records whether it was closed.
type closeTracker struct {
	io.Reader
	closed bool
}

func (c *closeTracker) Close() error { c.closed = true; return nil }

// Rule: only POST .../tasks (a create) waits for the pacer; every other call goes straight
// through, even while a create is held, and its answer may teach the limit. A create's
// answer is counted in the window and teaches the limit; a create refused by the pacer is
// never sent and its body is closed.
func TestPacedTransportRoutes(t *testing.T) {
	answer := quotaAnswer(200, "X-Quota-Task-Rate-Limit", "30")
	for _, tc := range []struct {
		method, path string
		paced        bool
	}{
		{http.MethodGet, "/v1/tasks", false},
		{http.MethodPost, "/v1/tasks/task_1/complete", false},
		{http.MethodPost, "/v1/workers", false},
		{http.MethodPut, "/v1/tasks", false},
		{http.MethodPost, "/v1/tasks", true},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			p := newQuotaPacer(time.Minute, time.Minute)
			p.probing = true // a create is out: another create must wait
			sent := 0
			tr := &pacedTransport{pacer: p, next: roundTripFunc(func(*http.Request) (*http.Response, error) {
				sent++
				return answer, nil
			})}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			body := &closeTracker{Reader: strings.NewReader(`{}`)}
			req, err := http.NewRequestWithContext(ctx, tc.method, "http://api.test"+tc.path, body)
			require.NoError(t, err)
			resp, err := tr.RoundTrip(req)
			if tc.paced {
				assert.ErrorIs(t, err, context.Canceled)
				assert.Nil(t, resp)
				assert.Zero(t, sent, "a held create was sent")
				assert.True(t, body.closed, "the held create's body was left open")
				assert.Zero(t, p.limit)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 1, sent)
			assert.Equal(t, 30, p.limit, "the answer's limit was not learned")
			assert.True(t, p.probing, "another call's answer ended the probe")
		})
	}

	t.Run("a held create without a body", func(t *testing.T) {
		p := newQuotaPacer(time.Minute, time.Minute)
		p.probing = true
		tr := &pacedTransport{pacer: p, next: roundTripFunc(func(*http.Request) (*http.Response, error) {
			t.Error("a held create was sent")
			return answer, nil
		})}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://api.test/v1/tasks", nil)
		require.NoError(t, err)
		_, err = tr.RoundTrip(req)
		assert.ErrorIs(t, err, context.Canceled)
	})

	// The probe's answer is not counted in the window: the limit was not known when it
	// came (done runs first); every later create's answer is.
	for _, tc := range []struct {
		name         string
		known        bool
		wantAnswered int
	}{{"the probe's answer", false, 0}, {"a later create's answer", true, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newQuotaPacer(time.Minute, time.Minute)
			if tc.known {
				p.limiter, p.limit = rate.NewLimiter(rate.Inf, 0), 5
			}
			tr := &pacedTransport{pacer: p, next: roundTripFunc(func(*http.Request) (*http.Response, error) {
				return quotaAnswer(202, "X-Quota-Task-Rate-Limit", "30"), nil
			})}
			req, err := http.NewRequest(http.MethodPost, "http://api.test/v1/tasks", strings.NewReader(`{}`))
			require.NoError(t, err)
			_, err = tr.RoundTrip(req)
			require.NoError(t, err)
			type pacerState struct {
				Limit, InFlight, Answered int
				Probing                   bool
			}
			diff(t, "pacer", pacerState{Limit: 30, Answered: tc.wantAnswered}, pacerState{p.limit, p.inFlight, len(p.answered), p.probing})
		})
	}
}

// idleCloser is a transport that records CloseIdleConnections.
type idleCloser struct {
	roundTripFunc
	closed int
}

func (c *idleCloser) CloseIdleConnections() { c.closed++ }

// Rule: the paced transport passes the client's clean-up on to the transport under it, and
// a client whose HTTP client has no transport paces over http.DefaultTransport, leaving the
// caller's HTTP client as it was.
func TestPacedTransportWrapping(t *testing.T) {
	under := &idleCloser{}
	(&pacedTransport{next: under}).CloseIdleConnections()
	assert.Equal(t, 1, under.closed)
	// A transport without the method is left alone.
	(&pacedTransport{next: roundTripFunc(nil)}).CloseIdleConnections()

	p := newQuotaPacer(time.Minute, time.Minute)
	hc := &http.Client{Timeout: 3 * time.Second}
	wrapped := p.wrap(hc)
	pt, ok := wrapped.Transport.(*pacedTransport)
	require.True(t, ok, "the wrapped client does not pace")
	assert.Equal(t, http.DefaultTransport, pt.next)
	assert.Same(t, p, pt.pacer)
	assert.Equal(t, 3*time.Second, wrapped.Timeout)
	assert.Nil(t, hc.Transport, "the caller's HTTP client was changed")

	pt2 := p.wrap(&http.Client{Transport: under}).Transport.(*pacedTransport)
	assert.Equal(t, http.RoundTripper(under), pt2.next)
}

// Rule: the window counts creates in flight plus those answered within the last window (an
// answer exactly one window old has left it), and a full window names when its oldest
// answer leaves; without a limit nothing is counted or kept.
func TestPacerWindowCount(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	type result struct {
		Full     bool
		Until    time.Time
		Answered int
	}
	for _, tc := range []struct {
		name     string
		limit    int
		inFlight int
		answered []time.Time
		want     result
	}{
		{"no limit", 0, 5, []time.Time{sec(-0.5)}, result{Answered: 1}},
		{"room left", 3, 0, []time.Time{sec(-2), sec(-0.5), sec(-0.2)}, result{Answered: 2}},
		{"full by answers and flight", 3, 1, []time.Time{sec(-2), sec(-0.5), sec(-0.2)}, result{Full: true, Until: sec(0.5), Answered: 2}},
		{"an answer one window old has left", 2, 1, []time.Time{sec(-1), sec(-0.3)}, result{Full: true, Until: sec(0.7), Answered: 1}},
		{"all old answers leave", 2, 1, []time.Time{sec(-3), sec(-2)}, result{}},
		{"more in flight than answered", 3, 2, []time.Time{sec(-0.4)}, result{Full: true, Until: sec(0.6), Answered: 1}},
		{"every slot in flight", 2, 2, nil, result{Full: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newQuotaPacer(time.Second, time.Minute)
			p.limit, p.inFlight, p.answered = tc.limit, tc.inFlight, tc.answered
			full, until := p.windowFull(t0)
			diff(t, "window", tc.want, result{full, until, len(p.answered)})
		})
	}

	t.Run("done keeps one window of answers", func(t *testing.T) {
		p := newQuotaPacer(time.Second, time.Minute)
		p.limit, p.inFlight, p.answered = 3, 2, []time.Time{sec(-2), sec(-0.5)}
		before := p.changed
		p.done(t0)
		diff(t, "answered", []time.Time{sec(-0.5), t0}, p.answered)
		assert.Equal(t, 1, p.inFlight)
		assert.True(t, closed(before), "waiters were not woken")
	})
	t.Run("done without a limit keeps nothing", func(t *testing.T) {
		p := newQuotaPacer(time.Second, time.Minute)
		p.inFlight = 1
		p.done(t0)
		assert.Empty(t, p.answered)
		assert.Zero(t, p.inFlight)
	})
}
