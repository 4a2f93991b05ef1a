package mockserver

import (
	"sync"
	"time"
)

// Clock is the server's source of time. Offer expiry, idempotency windows, rate-limit windows,
// event timestamps, webhook signatures and delivery retries all read it, so a test that
// controls the clock controls every time-dependent outcome.
//
// A *ManualClock moves only when the test moves it; any other Clock is treated like the wall
// clock: the server waits real time until the next deadline it reports.
type Clock interface {
	Now() time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// scheduled is what a clock drives: something that knows when it next has work and can do all
// work due at a given time. Each Server registers itself with its ManualClock.
type scheduled interface {
	// nextDue reports the earliest time at which work is due.
	nextDue() (time.Time, bool)
	// runDue does all work due at now and returns only when it is finished, including webhook
	// attempts it started, so that Advance is synchronous.
	runDue(now time.Time)
}

// maxSteps bounds the number of deadlines one Advance may visit, so a component that keeps
// reporting past deadlines cannot hang a test forever.
const maxSteps = 1_000_000

// ManualClock is a Clock that moves only when told to. Advance and Set visit every deadline
// on the way (offer expiries, webhook retries) in time order and do the work due at each one
// before they return, so tests never sleep: after clk.Advance(d) every expiry, rematch and
// delivery attempt due in that span has happened. Under the platform rules offers expire on
// the maintenance sweeps (MatcherConfig.MaintenanceInterval, every 5 s by default), so an
// offer due at T has expired once the clock reaches the first sweep at or after T.
//
// A ManualClock is safe for concurrent use and may drive several servers. Do not call Advance
// or Set from a webhook receiver of a server it drives: Advance waits for the deliveries in
// flight, which would include the one making the call.
type ManualClock struct {
	stepMu sync.Mutex // serialises Advance and Set so deadlines are visited in order

	mu        sync.Mutex
	now       time.Time
	listeners map[scheduled]struct{}
}

// NewManualClock returns a ManualClock that reads t0 until it is moved.
func NewManualClock(t0 time.Time) *ManualClock {
	return &ManualClock{now: t0, listeners: make(map[scheduled]struct{})}
}

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d, running every expiry and webhook retry that falls due
// on the way, in time order, before it returns. A negative d is treated as zero.
//
// Webhook deliveries go one at a time per endpoint: an event is not sent until the one before
// it to that URL was delivered or given up. So when a receiver refuses a delivery, the retry
// waits for the clock to reach it, and every later event to that URL waits behind it: a test
// that only advances a little sees nothing more arrive. With the default DeliveryPolicy an
// event is given up 1.55s of clock time after its first refused attempt (six attempts, waits
// of 50ms doubling); Advance past that, or fix the receiver (Start logs each refusal with its
// usual cause).
func (c *ManualClock) Advance(d time.Duration) {
	if d < 0 {
		d = 0
	}
	c.stepMu.Lock()
	defer c.stepMu.Unlock()
	c.moveTo(c.Now().Add(d))
}

// Set moves the clock to t. Moving forward behaves like Advance; moving backward only changes
// what Now reports (nothing becomes due by going back in time).
func (c *ManualClock) Set(t time.Time) {
	c.stepMu.Lock()
	defer c.stepMu.Unlock()
	if t.Before(c.Now()) {
		c.mu.Lock()
		c.now = t
		c.mu.Unlock()
		return
	}
	c.moveTo(t)
}

// moveTo visits each deadline up to target; the caller holds stepMu. The listener callbacks
// run without c.mu held because they call Now and may take server locks.
func (c *ManualClock) moveTo(target time.Time) {
	// Settle first: webhook attempts started by API calls finish and schedule their retries
	// at the current time, so they are visited on the way like every other deadline.
	c.runAll(c.Now())
	for range maxSteps {
		due, ok := c.earliestDue()
		if !ok || due.After(target) {
			break
		}
		c.setNow(due)
		c.runAll(due)
	}
	c.setNow(target)
	c.runAll(target)
}

func (c *ManualClock) setNow(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}

func (c *ManualClock) earliestDue() (time.Time, bool) {
	var best time.Time
	found := false
	for _, l := range c.snapshot() {
		if t, ok := l.nextDue(); ok && (!found || t.Before(best)) {
			best, found = t, true
		}
	}
	return best, found
}

func (c *ManualClock) runAll(now time.Time) {
	for _, l := range c.snapshot() {
		l.runDue(now)
	}
}

func (c *ManualClock) snapshot() []scheduled {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]scheduled, 0, len(c.listeners))
	for l := range c.listeners {
		out = append(out, l)
	}
	return out
}

func (c *ManualClock) register(l scheduled) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listeners[l] = struct{}{}
}

func (c *ManualClock) unregister(l scheduled) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.listeners, l)
}
