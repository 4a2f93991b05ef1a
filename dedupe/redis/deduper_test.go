package redisdedupe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func newDeduper(t *testing.T, rdb goredis.Scripter, clk *mockserver.ManualClock, opts ...Option) *Deduper {
	t.Helper()
	d, err := New(rdb, append([]Option{WithClock(clk.Now), WithLease(10 * time.Second), WithWindow(time.Hour)}, opts...)...)
	require.NoError(t, err)
	return d
}

// TestClaimsFollowTheMemoryDeduper replays the memory deduper's rules on two
// replicas sharing one Redis: in flight while claimed, forgotten after a
// failure, processed after a success, whichever replica asks.
func TestClaimsFollowTheMemoryDeduper(t *testing.T) {
	ctx := context.Background()
	rdb := startRedis(t)
	clk := mockserver.NewManualClock(t0)
	a, b := newDeduper(t, rdb, clk), newDeduper(t, rdb, clk)
	claim := func(d *Deduper, id string) webhook.ClaimResult {
		res, err := d.Claim(ctx, id)
		require.NoError(t, err)
		return res
	}
	var got []webhook.ClaimResult
	got = append(got, claim(a, "evt_1"), claim(a, "evt_1"), claim(b, "evt_1"))
	a.Release(ctx, "evt_1", false) // failed: the redelivery is processed
	got = append(got, claim(b, "evt_1"))
	b.Release(ctx, "evt_1", true)
	got = append(got, claim(a, "evt_1"), claim(b, "evt_1"))
	a.Release(ctx, "never-claimed", true) // nothing held: no mark
	got = append(got, claim(b, "never-claimed"))
	want := []webhook.ClaimResult{
		webhook.ClaimAcquired, webhook.ClaimInFlight, webhook.ClaimInFlight,
		webhook.ClaimAcquired,
		webhook.ClaimProcessed, webhook.ClaimProcessed,
		webhook.ClaimAcquired,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
}

// TestLeaseAndWindowRunOnTheClock: a lease ends when the injected clock
// passes it (not on Redis's own clock), the replica whose lease ran out can
// no longer clear or mark the new claim (fencing), and a processed id is
// forgotten once the window has passed.
func TestLeaseAndWindowRunOnTheClock(t *testing.T) {
	ctx := context.Background()
	rdb := startRedis(t)
	clk := mockserver.NewManualClock(t0)
	stale, fresh, other := newDeduper(t, rdb, clk), newDeduper(t, rdb, clk), newDeduper(t, rdb, clk)

	res, err := stale.Claim(ctx, "evt_lease")
	require.NoError(t, err)
	require.Equal(t, webhook.ClaimAcquired, res)
	clk.Advance(10*time.Second - time.Millisecond)
	res, err = fresh.Claim(ctx, "evt_lease")
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimInFlight, res, "lease not yet over")

	clk.Advance(time.Millisecond)
	res, err = fresh.Claim(ctx, "evt_lease")
	require.NoError(t, err)
	require.Equal(t, webhook.ClaimAcquired, res, "lease over: another replica takes it")

	stale.Release(ctx, "evt_lease", false) // must not clear fresh's claim
	res, err = other.Claim(ctx, "evt_lease")
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimInFlight, res, "a stale release cleared the new claim")
	stale.Release(ctx, "evt_lease", true) // nothing held any more
	fresh.Release(ctx, "evt_lease", true)
	res, err = other.Claim(ctx, "evt_lease")
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimProcessed, res)

	clk.Advance(time.Hour)
	res, err = other.Claim(ctx, "evt_lease")
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimAcquired, res, "processed id forgotten after the window")
}

// TestStaleSuccessDoesNotMarkAnotherClaim: a replica that finishes after its
// lease was taken over cannot turn the new holder's claim into "processed";
// the new holder's outcome decides.
func TestStaleSuccessDoesNotMarkAnotherClaim(t *testing.T) {
	ctx := context.Background()
	rdb := startRedis(t)
	clk := mockserver.NewManualClock(t0)
	stale, fresh := newDeduper(t, rdb, clk), newDeduper(t, rdb, clk)
	_, err := stale.Claim(ctx, "evt_x")
	require.NoError(t, err)
	clk.Advance(11 * time.Second)
	res, err := fresh.Claim(ctx, "evt_x")
	require.NoError(t, err)
	require.Equal(t, webhook.ClaimAcquired, res)
	stale.Release(ctx, "evt_x", true)
	fresh.Release(ctx, "evt_x", false)
	res, err = stale.Claim(ctx, "evt_x")
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimAcquired, res, "the failed holder's release left it to be processed")
}

// TestConcurrentClaimsAcquireOnce: goroutines on three replicas race for the
// same ids; each id is acquired exactly once.
func TestConcurrentClaimsAcquireOnce(t *testing.T) {
	ctx := context.Background()
	rdb := startRedis(t)
	clk := mockserver.NewManualClock(t0)
	replicas := []*Deduper{newDeduper(t, rdb, clk), newDeduper(t, rdb, clk), newDeduper(t, rdb, clk)}
	const ids, perReplica = 200, 4
	var mu sync.Mutex
	acquired := map[string]int{}
	var wg sync.WaitGroup
	for _, d := range replicas {
		for range perReplica {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range ids {
					id := fmt.Sprint("evt_", i)
					res, err := d.Claim(ctx, id)
					if !assert.NoError(t, err) {
						return
					}
					if res == webhook.ClaimAcquired {
						mu.Lock()
						acquired[id]++
						mu.Unlock()
						d.Release(ctx, id, true)
					}
				}
			}()
		}
	}
	wg.Wait()
	assert.Len(t, acquired, ids)
	for id, n := range acquired {
		assert.Equal(t, 1, n, "%s acquired %d times", id, n)
	}
}

// TestRedisDownFailsClaimAndReportsRelease: with Redis gone, Claim returns
// an error (the handler answers 503 and the sender retries) and a Release
// reaches the error hook instead of vanishing.
func TestRedisDownFailsClaimAndReportsRelease(t *testing.T) {
	ctx := context.Background()
	rdb := startRedis(t)
	clk := mockserver.NewManualClock(t0)
	var hooked []string
	d := newDeduper(t, rdb, clk, WithErrorHook(func(id string, err error) {
		hooked = append(hooked, id)
		assert.ErrorContains(t, err, "redisdedupe: release")
	}))
	res, err := d.Claim(ctx, "evt_down")
	require.NoError(t, err)
	require.Equal(t, webhook.ClaimAcquired, res)
	require.NoError(t, rdb.Close())

	d.Release(ctx, "evt_down", true)
	assert.Equal(t, []string{"evt_down"}, hooked)
	_, err = d.Claim(ctx, "evt_other")
	assert.ErrorContains(t, err, "redisdedupe: claim")
}

func TestNewRejectsBadOptions(t *testing.T) {
	rdb := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"}) // never dialled
	t.Cleanup(func() { _ = rdb.Close() })
	cases := map[string][]Option{
		"empty prefix": {WithKeyPrefix("")},
		"zero lease":   {WithLease(0)},
		"short window": {WithWindow(time.Microsecond)},
		"nil clock":    {WithClock(nil)},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New(rdb, opts...)
			assert.True(t, errors.Is(err, webhook.ErrInvalidOption), "got %v", err)
		})
	}
	_, err := New(nil)
	assert.ErrorIs(t, err, webhook.ErrInvalidOption)
}
