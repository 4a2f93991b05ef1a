package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Verify checks a webhook delivery from the three inputs the service
// documents: the raw body, the value of the [SignatureHeader] and the signing
// secret. It returns nil when some v1 signature of the header is the
// HMAC-SHA256 of "<t>.<payload>" under secret and t lies within
// [DefaultTolerance] of the local clock, and otherwise one of the sentinel
// errors ([ErrMissingHeader], [ErrMalformedHeader], [ErrNoMatchingSignature],
// [ErrTimestampTooOld], [ErrTimestampTooNew], [ErrInvalidSecret]).
//
// Verify prepares the key on every call; a receiver that handles many
// deliveries should build one [Verifier] with [NewVerifier] instead.
func Verify(payload []byte, header, secret string) error {
	if isBlank(secret) {
		return ErrInvalidSecret
	}
	var p parsedHeader
	if err := parseHeader(header, &p); err != nil {
		return err
	}
	switch ok, err := p.matches(oneShotDigest(secret, p.ts, payload)); {
	case err != nil:
		return err
	case !ok:
		return ErrNoMatchingSignature
	}
	return checkTolerance(p.millis, time.Now(), DefaultTolerance)
}

// Verifier checks webhook deliveries against one current signing secret and
// any number of previous ones (during a rotation). Keys are prepared once, so
// a verification costs little more than the HMAC itself and does not
// allocate. A Verifier is safe for concurrent use. Formatting or logging it
// never shows a secret.
type Verifier struct {
	keys      []*preparedKey // current secret first
	tolerance time.Duration
	now       func() time.Time
}

// preparedKey holds ready HMAC states for one secret; a state is reset from
// its saved key schedule, never rebuilt. One state sits in an atomic slot:
// taking and returning it is two atomic swaps, measurably cheaper than a
// sync.Pool round trip (TestBenchmarkRatios). Verifications running at the
// same time find the slot empty and use the pool instead, so none waits.
type preparedKey struct {
	cached atomic.Pointer[macState]
	pool   sync.Pool
}

func (k *preparedKey) get() *macState {
	if st := k.cached.Swap(nil); st != nil {
		return st
	}
	return k.pool.Get().(*macState)
}

func (k *preparedKey) put(st *macState) {
	if old := k.cached.Swap(st); old != nil {
		k.pool.Put(old)
	}
}

func newPreparedKey(secret string) *preparedKey {
	key := []byte(secret)
	pk := &preparedKey{}
	pk.pool.New = func() any { return &macState{mac: hmac.New(sha256.New, key)} }
	return pk
}

// macState is one HMAC-SHA256 with the scratch space a verification needs.
// Keeping the buffers beside the hash is what makes a verification free of
// allocations: a stack buffer handed to hash.Hash.Write would escape.
type macState struct {
	mac hash.Hash
	pre [maxTimestampDigits + 1]byte // "<t>." as signed
	sum [sha256.Size]byte
}

// digest returns the HMAC of "<ts>.<payload>"; the result aliases st. The
// state is reset first: pooled states have been used before.
func (st *macState) digest(ts string, payload []byte) []byte {
	st.mac.Reset()
	n := copy(st.pre[:], ts)
	st.pre[n] = '.'
	st.mac.Write(st.pre[:n+1])
	st.mac.Write(payload)
	return st.mac.Sum(st.sum[:0])
}

// Option configures a [Verifier].
type Option func(*verifierConfig)

type verifierConfig struct {
	previous  []string
	tolerance time.Duration
	now       func() time.Time
	err       error
}

// WithPreviousSecrets adds secrets that are still accepted, for a rotation:
// a delivery verifies when any secret, current or previous, matches any of
// its v1 signatures. The current secret is tried first.
func WithPreviousSecrets(secrets ...string) Option {
	return func(c *verifierConfig) {
		c.previous = append(c.previous, secrets...)
	}
}

// WithTolerance sets how far a delivery's timestamp may lie from the clock,
// in either direction (default [DefaultTolerance]). It must be positive:
// there is no way to switch the replay check off.
func WithTolerance(d time.Duration) Option {
	return func(c *verifierConfig) {
		if d <= 0 {
			c.err = fmt.Errorf("%w: tolerance must be positive", ErrInvalidOption)
			return
		}
		c.tolerance = d
	}
}

// WithClock sets the clock a Verifier checks a signature's timestamp
// against, for the tolerance (default time.Now); nothing else reads it.
// Tests use it to verify fixed vectors, and a receiver of a mock server on
// a manual clock passes that clock's Now (webhook.WithClock(clk.Now)),
// since the server signs at its own time. Not to be confused with
// mockserver.WithClock (the server's clock, which the signatures come
// from) or taskrouting.WithClock (a worker client's session clock).
func WithClock(now func() time.Time) Option {
	return func(c *verifierConfig) {
		if now == nil {
			c.err = fmt.Errorf("%w: nil clock", ErrInvalidOption)
			return
		}
		c.now = now
	}
}

// NewVerifier returns a [Verifier] for secret, the endpoint's current signing
// secret, used as given (the whole "whsec_..." string). An empty or blank
// secret, current or previous, is [ErrInvalidSecret]: a verifier never
// accepts everything.
func NewVerifier(secret string, opts ...Option) (*Verifier, error) {
	cfg := verifierConfig{tolerance: DefaultTolerance, now: time.Now}
	for _, opt := range opts {
		opt(&cfg)
		if cfg.err != nil {
			return nil, cfg.err
		}
	}
	if isBlank(secret) {
		return nil, ErrInvalidSecret
	}
	v := &Verifier{tolerance: cfg.tolerance, now: cfg.now}
	seen := map[string]bool{}
	for _, s := range append([]string{secret}, cfg.previous...) {
		if isBlank(s) {
			return nil, fmt.Errorf("%w (previous secret)", ErrInvalidSecret)
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		v.keys = append(v.keys, newPreparedKey(s))
	}
	return v, nil
}

// Verify checks payload (the raw body) against header (the value of the
// [SignatureHeader]) with the verifier's secrets, tolerance and clock. It
// returns nil or one of the sentinel errors, as the package function [Verify]
// does, and allocates nothing on success.
func (v *Verifier) Verify(payload []byte, header string) error {
	if v == nil || len(v.keys) == 0 {
		return ErrInvalidSecret
	}
	var p parsedHeader
	if err := parseHeader(header, &p); err != nil {
		return err
	}
	switch ok, err := v.matchAny(&p, payload); {
	case err != nil:
		return err
	case !ok:
		return ErrNoMatchingSignature
	}
	return checkTolerance(p.millis, v.now(), v.tolerance)
}

func (v *Verifier) matchAny(p *parsedHeader, payload []byte) (bool, error) {
	for _, k := range v.keys {
		st := k.get()
		ok, err := p.matches(st.digest(p.ts, payload))
		k.put(st)
		if ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// String describes the verifier without any secret. The formatting methods
// have value receivers so that a dereferenced Verifier is covered too.
func (v Verifier) String() string {
	return fmt.Sprintf("webhook.Verifier{secrets: %d, tolerance: %v}", len(v.keys), v.tolerance)
}

// GoString is String, so that %#v cannot reach the prepared keys either.
func (v Verifier) GoString() string { return v.String() }

// Format implements fmt.Formatter: every verb prints String. Without it,
// fmt would print the unexported fields, and the pooled HMAC states hold
// key-derived bytes.
func (v Verifier) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, v.String()) }

// LogValue implements slog.LogValuer with the same secret-free summary.
func (v Verifier) LogValue() slog.Value { return slog.StringValue(v.String()) }

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
