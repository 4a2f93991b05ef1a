package mockserver

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// Fault tells the server to misbehave on matching requests, to test how a client copes with
// a failing network or service. Faults are checked in the order they were injected; the first
// one that matches and whose dice roll hits applies. Admin requests under /_mock/ are never
// faulted; the attachment storage under /_storage/ is (match it alone with Path
// "/_storage/*"), answered as a store would: a plain-text Status, no envelope.
type Fault struct {
	// Method matches the request method; empty matches any.
	Method string
	// Path is a path.Match pattern matched against the request path as sent ("/v1/tasks/*")
	// and against the path relative to the base URL ("/tasks/*"); empty matches any.
	Path string

	// Status, when non-zero, is answered with the error envelope instead of running the
	// operation; nothing changes.
	Status int
	// RetryAfter is sent as Retry-After (whole seconds, rounded up) with Status.
	RetryAfter time.Duration
	// Delay is waited (real time, cut short when the client goes away) before anything else.
	Delay time.Duration
	// DelayDist, instead of Delay, draws each faulted request's delay (latency.go); the
	// delay a request waited is its Request.Delay.
	DelayDist *DelayDistribution
	// DropBeforeCommit closes the connection without an answer and without running the
	// operation: the client sees a reset and nothing changed.
	DropBeforeCommit bool
	// DropAfterCommit runs the operation, keeps its effect, then closes the connection without
	// an answer: the client sees a reset although the change happened, which is exactly what
	// idempotency keys exist for.
	DropAfterCommit bool

	// Times limits how many requests the fault applies to; 0 means no limit.
	Times int
	// Fraction is the probability (0 to 1) that a matching request is faulted; 0 means always.
	Fraction float64
	// Seed makes the Fraction dice reproducible.
	Seed uint64
}

// ErrInvalidFault is returned by InjectFault for a fault that cannot be applied.
var ErrInvalidFault = errors.New("mockserver: invalid fault")

func (f Fault) validate() error {
	switch {
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return fmt.Errorf("%w: status %d is not a 4xx or 5xx", ErrInvalidFault, f.Status)
	case f.Fraction < 0 || f.Fraction > 1:
		return fmt.Errorf("%w: fraction %v is outside [0, 1]", ErrInvalidFault, f.Fraction)
	case f.Times < 0:
		return fmt.Errorf("%w: times %d is negative", ErrInvalidFault, f.Times)
	case f.Delay < 0 || f.RetryAfter < 0:
		return fmt.Errorf("%w: negative duration", ErrInvalidFault)
	case f.Status != 0 && (f.DropBeforeCommit || f.DropAfterCommit):
		return fmt.Errorf("%w: a fault answers a status or drops the connection, not both", ErrInvalidFault)
	case f.DropBeforeCommit && f.DropAfterCommit:
		return fmt.Errorf("%w: drop before and after commit are exclusive", ErrInvalidFault)
	case f.Delay != 0 && f.DelayDist != nil:
		return fmt.Errorf("%w: a fault has a fixed Delay or a DelayDist, not both", ErrInvalidFault)
	case f.Status == 0 && !f.DropBeforeCommit && !f.DropAfterCommit && f.Delay == 0 && f.DelayDist == nil:
		return fmt.Errorf("%w: the fault does nothing", ErrInvalidFault)
	}
	if f.DelayDist != nil {
		if err := f.DelayDist.validate(); err != nil {
			return err
		}
	}
	if f.Path != "" {
		if _, err := path.Match(f.Path, "/"); err != nil {
			return fmt.Errorf("%w: bad path pattern: %v", ErrInvalidFault, err)
		}
	}
	return nil
}

type activeFault struct {
	Fault
	left   int // remaining applications when Times > 0
	rng    *rand.Rand
	delays *rand.Rand // DelayDist's draws (newDelaySource)
}

type faultSet struct {
	mu     sync.Mutex
	faults []*activeFault
	sleep  func(ctx context.Context, d time.Duration) // nil: a real timer (wait)
}

func (fs *faultSet) add(f Fault) error {
	if err := f.validate(); err != nil {
		return err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f.DelayDist != nil {
		dist := *f.DelayDist // the caller's value may change after InjectFault
		f.DelayDist = &dist
	}
	fs.faults = append(fs.faults, &activeFault{Fault: f, left: f.Times, rng: rand.New(rand.NewPCG(f.Seed, 0x6d6f636b)), delays: newDelaySource(f.Seed)})
	return nil
}

func (fs *faultSet) clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.faults = nil
}

// pick returns the fault to apply to this request, if any, and consumes one use of it; the
// Fault returned has its Delay drawn when it has a DelayDist.
func (fs *faultSet) pick(method, reqPath, relPath string) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.faults {
		if f.Method != "" && !strings.EqualFold(f.Method, method) {
			continue
		}
		if f.Path != "" && !pathMatches(f.Path, reqPath) && !pathMatches(f.Path, relPath) {
			continue
		}
		if f.Fraction > 0 && f.rng.Float64() >= f.Fraction {
			continue
		}
		if f.Times > 0 {
			f.left--
			if f.left == 0 {
				fs.faults = append(fs.faults[:i:i], fs.faults[i+1:]...)
			}
		}
		out := f.Fault
		if f.DelayDist != nil {
			out.Delay = f.DelayDist.draw(f.delays)
		}
		return out, true
	}
	return Fault{}, false
}

func pathMatches(pattern, p string) bool {
	ok, _ := path.Match(pattern, p)
	return ok
}

// dropConnection closes the client's connection without an answer. SO_LINGER 0 makes the
// close a TCP reset, which is what a crashed proxy or a network cut looks like to a client.
// Where the connection cannot be hijacked (HTTP/2, a ResponseRecorder), the handler aborts
// with http.ErrAbortHandler, which net/http also turns into a broken connection or stream.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
