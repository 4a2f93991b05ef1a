// Package redisdedupe is a [webhook.Deduper] kept in Redis, so that several
// receiver replicas behind a load balancer process each webhook event once
// between them, where a [webhook.MemoryDeduper] only covers one process.
//
// It lives in its own module so that the SDK's main module does not depend
// on a Redis client.
//
// Each event id is one key. A delivery claims the key with a lease before it
// is processed; a success turns the claim into a "processed" mark that
// lasts for the window, a failure deletes the claim so the redelivery is
// processed. Claims are fenced: each carries a random token, and a release
// only acts while the key still holds the releaser's token, so a replica
// whose lease ran out (it stalled, or died and came back) can never clear or
// overwrite the claim of the replica that took over. Lease and window times
// are read from the injected clock and compared inside Redis, so a test
// with a manual clock decides when a lease runs out.
package redisdedupe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// Defaults of the options.
const (
	DefaultKeyPrefix = "taskrouting:webhook:"
	DefaultLease     = time.Minute
	DefaultWindow    = 72 * time.Hour
)

// Option configures [New].
type Option func(*config) error

type config struct {
	prefix  string
	lease   time.Duration
	window  time.Duration
	now     func() time.Time
	onError func(eventID string, err error)
}

// WithKeyPrefix sets the prefix of the keys (default [DefaultKeyPrefix]);
// receivers that must not see each other's events use different prefixes.
func WithKeyPrefix(p string) Option {
	return func(c *config) error {
		if p == "" {
			return fmt.Errorf("%w: empty key prefix", webhook.ErrInvalidOption)
		}
		c.prefix = p
		return nil
	}
}

// WithLease sets how long a claim protects an event being processed
// (default [DefaultLease]). After it, a redelivery may be processed by
// another replica: choose it longer than the slowest processing, and short
// enough that a crashed replica's events are not held up for long.
func WithLease(d time.Duration) Option {
	return func(c *config) error {
		if d < time.Millisecond {
			return fmt.Errorf("%w: lease must be at least 1ms", webhook.ErrInvalidOption)
		}
		c.lease = d
		return nil
	}
}

// WithWindow sets how long a processed event id is remembered (default
// [DefaultWindow]); it should outlast the sender's whole retry schedule.
func WithWindow(d time.Duration) Option {
	return func(c *config) error {
		if d < time.Millisecond {
			return fmt.Errorf("%w: window must be at least 1ms", webhook.ErrInvalidOption)
		}
		c.window = d
		return nil
	}
}

// WithClock sets the clock leases and windows are measured on (default
// time.Now). Replicas sharing one Redis should agree on the time to well
// within the lease.
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return fmt.Errorf("%w: nil clock", webhook.ErrInvalidOption)
		}
		c.now = now
		return nil
	}
}

// WithErrorHook calls fn when a Release could not reach Redis. The claim
// then stays until its lease runs out, after which the redelivery is
// processed again; fn is where to log that.
func WithErrorHook(fn func(eventID string, err error)) Option {
	return func(c *config) error {
		c.onError = fn
		return nil
	}
}

// Deduper is a [webhook.Deduper] backed by Redis; it is safe for concurrent
// use. Give each replica its own Deduper over the shared Redis.
type Deduper struct {
	rdb goredis.Scripter
	cfg config

	mu   sync.Mutex
	held map[string]string // event id -> token of the claim this process holds
}

var _ webhook.Deduper = (*Deduper)(nil)

// New returns a Deduper over rdb (a *redis.Client, a cluster or ring
// client: anything that runs scripts).
func New(rdb goredis.Scripter, opts ...Option) (*Deduper, error) {
	if rdb == nil {
		return nil, fmt.Errorf("%w: nil redis client", webhook.ErrInvalidOption)
	}
	cfg := config{prefix: DefaultKeyPrefix, lease: DefaultLease, window: DefaultWindow, now: time.Now}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	return &Deduper{rdb: rdb, cfg: cfg, held: make(map[string]string)}, nil
}

// Values stored under an event's key:
//
//	c:<lease end, unix ms>:<token>   claimed, being processed
//	d:<window end, unix ms>          processed
//
// A value whose time has passed counts as absent. The Redis expiry (PX) only
// collects keys nobody asks about any more.
var claimScript = goredis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then
  local kind = string.sub(v, 1, 2)
  local rest = string.sub(v, 3)
  local sep = string.find(rest, ':', 1, true)
  if sep then rest = string.sub(rest, 1, sep - 1) end
  if tonumber(rest) > tonumber(ARGV[2]) then
    if kind == 'd:' then return 2 end
    return 3
  end
end
redis.call('SET', KEYS[1], 'c:' .. ARGV[3] .. ':' .. ARGV[1], 'PX', ARGV[4])
return 1
`)

var releaseScript = goredis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, 2) ~= 'c:' then return 0 end
local sep = string.find(v, ':', 3, true)
if not sep or string.sub(v, sep + 1) ~= ARGV[1] then return 0 end
if ARGV[2] == '1' then
  redis.call('SET', KEYS[1], 'd:' .. ARGV[3], 'PX', ARGV[4])
else
  redis.call('DEL', KEYS[1])
end
return 1
`)

// Claim implements [webhook.Deduper]. It fails only when Redis cannot be
// reached; the handler then answers 503 and the sender retries.
func (d *Deduper) Claim(ctx context.Context, eventID string) (webhook.ClaimResult, error) {
	// Reserve the id locally first: while this process works on an event
	// (even past its lease) a second claim here would lose the first
	// claim's token, so a concurrent delivery to this replica is in flight.
	d.mu.Lock()
	if _, mine := d.held[eventID]; mine {
		d.mu.Unlock()
		return webhook.ClaimInFlight, nil
	}
	d.held[eventID] = ""
	d.mu.Unlock()

	res, token, err := d.claim(ctx, eventID)
	d.mu.Lock()
	defer d.mu.Unlock()
	if res == webhook.ClaimAcquired {
		d.held[eventID] = token
	} else {
		delete(d.held, eventID)
	}
	return res, err
}

func (d *Deduper) claim(ctx context.Context, eventID string) (webhook.ClaimResult, string, error) {
	token, err := newToken()
	if err != nil {
		return 0, "", err
	}
	now := d.cfg.now()
	res, err := claimScript.Run(ctx, d.rdb, []string{d.cfg.prefix + eventID},
		token, ms(now), ms(now.Add(d.cfg.lease)), d.cfg.lease.Milliseconds()).Int()
	if err != nil {
		return 0, "", fmt.Errorf("redisdedupe: claim: %w", err)
	}
	switch res {
	case 1:
		return webhook.ClaimAcquired, token, nil
	case 2:
		return webhook.ClaimProcessed, "", nil
	case 3:
		return webhook.ClaimInFlight, "", nil
	default:
		return 0, "", fmt.Errorf("redisdedupe: claim: unexpected script answer %d", res)
	}
}

// Release implements [webhook.Deduper]. It does nothing unless this
// Deduper holds the claim and the claim is still the one in Redis.
func (d *Deduper) Release(ctx context.Context, eventID string, processed bool) {
	d.mu.Lock()
	token, ok := d.held[eventID]
	if ok && token != "" { // "" is a claim still on its way to Redis
		delete(d.held, eventID)
	}
	d.mu.Unlock()
	if !ok || token == "" {
		return
	}
	flag := "0"
	if processed {
		flag = "1"
	}
	err := releaseScript.Run(ctx, d.rdb, []string{d.cfg.prefix + eventID},
		token, flag, ms(d.cfg.now().Add(d.cfg.window)), d.cfg.window.Milliseconds()).Err()
	if err != nil && d.cfg.onError != nil {
		d.cfg.onError(eventID, fmt.Errorf("redisdedupe: release: %w", err))
	}
}

func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", errors.Join(errors.New("redisdedupe: claim token"), err)
	}
	return hex.EncodeToString(b[:]), nil
}
