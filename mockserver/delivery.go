package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// DeliveryPolicy says how the server retries webhook deliveries. Backoff doubles from
// InitialBackoff up to MaxBackoff and is measured on the server's clock, so with a
// ManualClock a retry happens exactly when the test advances past it.
//
// Deliveries to one URL go one at a time, in emission order: while an event is being
// retried, every later event to that URL waits behind it until it is delivered or given up
// after MaxAttempts. With a ManualClock that wait lasts until the test advances the clock
// past the retries (1.55s with the defaults: 50ms, 100ms, 200ms, 400ms, 800ms), so a
// receiver that refuses one event holds back all the others; see ManualClock.Advance.
type DeliveryPolicy struct {
	MaxAttempts    int           // attempts per event and endpoint, first one included; default 6
	InitialBackoff time.Duration // wait after the first failure; default 50ms
	MaxBackoff     time.Duration // cap on the wait; default 2s
	Timeout        time.Duration // per attempt, real time; default 5s
}

func (p DeliveryPolicy) withDefaults() DeliveryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 6
	}
	if p.InitialBackoff <= 0 {
		p.InitialBackoff = 50 * time.Millisecond
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = 2 * time.Second
	}
	if p.MaxBackoff < p.InitialBackoff {
		p.MaxBackoff = p.InitialBackoff
	}
	if p.Timeout <= 0 {
		p.Timeout = 5 * time.Second
	}
	return p
}

// backoff is the wait after the given failed attempt (1-based).
func (p DeliveryPolicy) backoff(attempt int) time.Duration {
	d := p.InitialBackoff
	for i := 1; i < attempt && d < p.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, p.MaxBackoff)
}

// Outcome of one delivery attempt.
const (
	OutcomeDelivered = "delivered" // 2xx: the event is done for this endpoint
	OutcomeRetrying  = "retrying"  // failed; another attempt is scheduled
	OutcomeFailed    = "failed"    // failed and it was the last attempt: the event is kept as failed
)

// Delivery is one attempt to POST an event to one webhook URL.
type Delivery struct {
	EventID    string
	Kind       webhook.Kind // the event's kind, e.g. webhook.KindTaskMatched
	URL        string
	Attempt    int       // 1 for the first attempt
	At         time.Time // server clock time of the attempt; the signature's timestamp unless WithWallClockSignatures
	StatusCode int       // 0 when no response arrived
	Err        string    // transport error, empty when a response arrived
	Outcome    string    // OutcomeDelivered, OutcomeRetrying or OutcomeFailed
	// Reason is the first line of a refusing receiver's answer (at most 200 bytes), empty
	// for a 2xx or when it sent no body.
	Reason string
}

// Event is one webhook event the server emitted, in emission order.
type Event struct {
	ID        string
	Kind      webhook.Kind // the "event" member of the payload: webhook.KindTaskMatched, ...
	CreatedAt time.Time
	TaskID    string
	WorkerID  string
	Payload   json.RawMessage // the exact bytes POSTed to every webhook URL
	// Seq numbers the events from 1 in emission order; it is never reused, also across
	// Reset, so EventFilter.Since reads only what came after.
	Seq int64
}

type endpoint struct {
	url      string
	queue    []*Event  // head is queue[0]; strictly in emission order (head-of-line)
	nextAt   time.Time // when the head's next attempt is due
	attempts int       // attempts made for the head
	busy     bool      // an attempt for the head is in flight
}

// deliverer owns every webhook queue of one server.
type deliverer struct {
	client *http.Client
	secret string
	clock  Clock
	policy DeliveryPolicy
	wake   func() // tells the real-clock scheduler that a deadline may have moved
	logger *slog.Logger
	manual bool // the clock is a ManualClock: a retry waits for the test to move it
	// testLog, when set, hears of every refused attempt (WithTestLogger).
	testLog testing.TB
	// signNow, when set, is the clock signatures are made at instead of the attempt's server
	// clock time (WithWallClockSignatures).
	signNow func() time.Time

	retention int   // keep the newest events and attempts (retention.go); 0: all
	seq       int64 // the last Event.Seq given

	mu        sync.Mutex
	endpoints []*endpoint
	events    []Event
	log       []Delivery
	changed   chan struct{} // closed and replaced on every state change, for waiters
	closed    bool
	paused    bool // Reset is under way: no attempt starts until reset
	inflight  sync.WaitGroup
}

func newDeliverer(urls []string, secret string, clock Clock, policy DeliveryPolicy, client *http.Client, wake func()) *deliverer {
	d := &deliverer{client: client, secret: secret, clock: clock, policy: policy, wake: wake, changed: make(chan struct{})}
	for _, u := range urls {
		d.endpoints = append(d.endpoints, &endpoint{url: u})
	}
	return d
}

// notifyLocked wakes everyone waiting for a change; the caller holds d.mu.
func (d *deliverer) notifyLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// enqueue records events and queues them for every endpoint in the order given.
func (d *deliverer) enqueue(evs []Event) {
	if len(evs) == 0 {
		return
	}
	now := d.clock.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range evs {
		d.seq++
		evs[i].Seq = d.seq
	}
	d.events = keepNewest(append(d.events, evs...), d.retention)
	for _, ep := range d.endpoints {
		if len(ep.queue) == 0 {
			ep.nextAt, ep.attempts = now, 0
		}
		for i := range evs {
			ep.queue = append(ep.queue, &evs[i])
		}
	}
	d.pumpLocked(now)
	d.notifyLocked()
}

// pumpLocked starts an attempt on every idle endpoint whose head is due at now.
func (d *deliverer) pumpLocked(now time.Time) {
	if d.closed || d.paused {
		return
	}
	for _, ep := range d.endpoints {
		if ep.busy || len(ep.queue) == 0 || ep.nextAt.After(now) {
			continue
		}
		ep.busy = true
		ep.attempts++
		d.inflight.Add(1)
		go d.attempt(ep, ep.queue[0], ep.attempts)
	}
}

func (d *deliverer) attempt(ep *endpoint, ev *Event, n int) {
	defer d.inflight.Done()
	at := d.clock.Now()
	status, errText, reason := d.post(ep.url, ev, at)

	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.clock.Now()
	rec := Delivery{EventID: ev.ID, Kind: ev.Kind, URL: ep.url, Attempt: n, At: at, StatusCode: status, Err: errText, Reason: reason}
	switch {
	case status >= 200 && status < 300:
		rec.Outcome = OutcomeDelivered
	case n >= d.policy.MaxAttempts:
		rec.Outcome = OutcomeFailed
	default:
		rec.Outcome = OutcomeRetrying
	}
	d.log = keepNewest(append(d.log, rec), d.retention)
	d.reportRefusal(rec)
	ep.busy = false
	if rec.Outcome == OutcomeRetrying {
		ep.nextAt = now.Add(d.policy.backoff(n))
		d.logAttempt(rec, ep)
	} else {
		d.logAttempt(rec, ep)
		ep.queue[0] = nil
		ep.queue = ep.queue[1:]
		ep.nextAt, ep.attempts = now, 0
	}
	d.pumpLocked(now)
	d.notifyLocked()
	if d.wake != nil {
		d.wake()
	}
}

// signedAt is the time an attempt made at server clock time at is signed with.
func signedAt(at time.Time, signNow func() time.Time) time.Time {
	if signNow != nil {
		return signNow()
	}
	return at
}

// post makes one signed attempt; each attempt is signed afresh at the server clock's time so
// a receiver's tolerance window applies to the attempt, not to the event's creation.
func (d *deliverer) post(url string, ev *Event, at time.Time) (status int, errText, reason string) {
	ctx, cancel := context.WithTimeout(context.Background(), d.policy.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(ev.Payload))
	if err != nil {
		return 0, err.Error(), ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "taskrouting-mockserver")
	req.Header.Set(webhook.SignatureHeader, webhook.Sign(ev.Payload, d.secret, signedAt(at, d.signNow)))
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, err.Error(), ""
	}
	defer resp.Body.Close()
	// A refusal's first bytes are its reason; the rest is drained (a little) so the
	// connection can be reused.
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 4*reasonBytes))
		reason = firstLine(head)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, "", reason
}

// nextDue is the earliest time an idle endpoint's head becomes due.
func (d *deliverer) nextDue() (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var best time.Time
	found := false
	for _, ep := range d.endpoints {
		if ep.busy || len(ep.queue) == 0 {
			continue
		}
		if !found || ep.nextAt.Before(best) {
			best, found = ep.nextAt, true
		}
	}
	return best, found
}

func (d *deliverer) pump(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pumpLocked(now)
}

// waitFor blocks until done reports true (checked under d.mu) or ctx ends.
func (d *deliverer) waitFor(ctx context.Context, done func() bool) error {
	for {
		d.mu.Lock()
		ok := done()
		ch := d.changed
		d.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// idleLocked: no attempt in flight (everything due now has been tried).
func (d *deliverer) idleLocked() bool {
	if d.closed {
		return true
	}
	for _, ep := range d.endpoints {
		if ep.busy {
			return false
		}
	}
	return true
}

// drainedLocked: every queue is empty, each event delivered or kept as failed.
func (d *deliverer) drainedLocked() bool {
	if d.closed {
		return true
	}
	for _, ep := range d.endpoints {
		if ep.busy || len(ep.queue) > 0 {
			return false
		}
	}
	return true
}

func (d *deliverer) snapshot() ([]Event, []Delivery) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return newestOf(d.events, d.retention), newestOf(d.log, d.retention)
}

// pause stops new attempts and waits for those in flight; events enqueued meanwhile wait in
// their queues until reset drops them.
func (d *deliverer) pause() {
	d.mu.Lock()
	d.paused = true
	d.mu.Unlock()
	_ = d.waitFor(context.Background(), d.idleLocked)
}

// reset forgets all events, queues and attempts and resumes delivery; it follows pause, so
// no attempt is in flight.
func (d *deliverer) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, ep := range d.endpoints {
		*ep = endpoint{url: ep.url} // in place: detach functions hold these pointers
	}
	d.events, d.log = nil, nil
	d.paused = false
	d.notifyLocked()
}

func (d *deliverer) close() {
	d.mu.Lock()
	level, n := slog.LevelInfo, d.queuedLocked()
	if n > 0 {
		level = slog.LevelWarn
	}
	d.logger.Log(context.Background(), level, "closing: queued webhook deliveries are dropped", "dropped", n)
	d.closed = true
	d.notifyLocked()
	d.mu.Unlock()
	d.inflight.Wait()
}
