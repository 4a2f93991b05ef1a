package redisdedupe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// ledger records which replica committed each event; "processed" means the
// callback finished successfully, so a count above one is a duplicate and a
// missing id is a loss.
type ledger struct {
	mu      sync.Mutex
	commits map[string][]int
}

func (l *ledger) commit(id string, replica int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.commits[id] = append(l.commits[id], replica)
}

// lossyProxy is a round-robin load balancer in front of the receiver
// replicas that misbehaves on purpose: it fails deliveries before
// forwarding them, loses the answer of deliveries it did forward (the
// sender redelivers an event that was processed), forwards some deliveries
// to two replicas at once and replays recent deliveries to another replica.
// A backend whose connection fails is taken out of the rotation, as a
// health-checking balancer would.
type lossyProxy struct {
	backends []string
	client   *http.Client

	mu       sync.Mutex
	rng      *rand.Rand
	next     int
	down     []bool
	recent   [][2][]byte // body and signature of recent deliveries, for replays
	failed   int         // answered 503 without forwarding
	ackLost  int         // forwarded, answer replaced by 502
	doubled  int         // forwarded to two replicas concurrently
	replayed int
	status   map[int]int // answers the replicas gave
}

func (p *lossyProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read", http.StatusBadGateway)
		return
	}
	sig := []byte(r.Header.Get(webhook.SignatureHeader))
	p.mu.Lock()
	roll, double, replay := p.rng.Float64(), p.rng.Float64() < 0.10, p.rng.Float64() < 0.05
	var old [2][]byte
	if replay && len(p.recent) > 0 {
		old = p.recent[p.rng.IntN(len(p.recent))]
	}
	p.recent = append(p.recent, [2][]byte{body, sig})
	if len(p.recent) > 8 {
		p.recent = p.recent[1:]
	}
	if roll < 0.15 {
		p.failed++
	} else if roll < 0.30 {
		p.ackLost++
	}
	p.mu.Unlock()

	if roll < 0.15 {
		http.Error(w, "injected failure", http.StatusServiceUnavailable)
		return
	}
	status := http.StatusBadGateway
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); status = p.forward(body, sig) }()
	if double {
		p.count(func() { p.doubled++ })
		wg.Add(1)
		go func() { defer wg.Done(); p.forward(body, sig) }()
	}
	wg.Wait()
	if old[0] != nil {
		p.count(func() { p.replayed++ })
		p.forward(old[0], old[1])
	}
	if roll < 0.30 {
		status = http.StatusBadGateway // processed, but the sender never hears it
	}
	w.WriteHeader(status)
}

func (p *lossyProxy) count(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
}

// forward sends one delivery to the next live replica and returns its status.
func (p *lossyProxy) forward(body, sig []byte) int {
	p.mu.Lock()
	i := -1
	for range p.backends {
		p.next = (p.next + 1) % len(p.backends)
		if !p.down[p.next] {
			i = p.next
			break
		}
	}
	p.mu.Unlock()
	if i < 0 {
		return http.StatusBadGateway
	}
	req, err := http.NewRequest(http.MethodPost, p.backends[i], bytes.NewReader(body))
	if err != nil {
		return http.StatusBadGateway
	}
	req.Header.Set(webhook.SignatureHeader, string(sig))
	resp, err := p.client.Do(req)
	if err != nil {
		p.count(func() { p.down[i] = true })
		return http.StatusBadGateway
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	p.count(func() { p.status[resp.StatusCode]++ })
	return resp.StatusCode
}

// TestExactlyOnceBehindLossyBalancer is the deployment this module exists
// for: the mock server delivers signed webhooks to a balancer in front of
// three receiver replicas, each a webhook.Handler with its own Deduper over
// one shared Redis. The balancer fails 30% of deliveries (half before
// forwarding, half after the replica processed them), duplicates and replays
// others, and one replica is killed while it holds an event. Every event is
// still processed exactly once and none is lost: the killed replica's lease
// runs out on the manual clock and a redelivery goes through another
// replica. TASKROUTING_LONG=1 runs 10,000 events instead of 1,500.
func TestExactlyOnceBehindLossyBalancer(t *testing.T) {
	total := 1_500
	if os.Getenv("TASKROUTING_LONG") == "1" {
		total = 10_000
	}
	const replicas, victim, lease = 3, 1, 30 * time.Second
	ctx := context.Background()
	rdb := startRedis(t)
	clk := mockserver.NewManualClock(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	const secret = "whsec_e2e_shared_secret"
	verifier, err := webhook.NewVerifier(secret, webhook.WithClock(clk.Now))
	require.NoError(t, err)

	done := &ledger{commits: make(map[string][]int)}
	hung := make(chan string, 1)
	unhang := make(chan struct{})
	var victimClaims int
	var victimMu sync.Mutex
	hangAt := total / 2 / replicas // the victim dies mid-run, holding its hangAt-th event

	servers := make([]*httptest.Server, replicas)
	for i := range servers {
		d, err := New(rdb, WithClock(clk.Now), WithLease(lease), WithWindow(time.Hour))
		require.NoError(t, err)
		servers[i] = httptest.NewServer(webhook.Handler(verifier, func(_ context.Context, ev webhook.Event) error {
			if i == victim {
				victimMu.Lock()
				victimClaims++
				n := victimClaims
				victimMu.Unlock()
				if n == hangAt {
					hung <- ev.ID
					<-unhang // the process is gone; this callback never commits
					return errors.New("replica killed")
				}
			}
			done.commit(ev.ID, i)
			return nil
		}, webhook.WithDeduper(d)))
	}
	t.Cleanup(func() {
		for _, s := range servers {
			s.Close()
		}
	})
	t.Cleanup(func() {
		select {
		case <-unhang:
		default:
			close(unhang)
		}
	})

	proxy := &lossyProxy{
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}},
		rng:    rand.New(rand.NewPCG(7, 11)),
		down:   make([]bool, replicas),
		status: make(map[int]int),
	}
	for _, s := range servers {
		proxy.backends = append(proxy.backends, s.URL)
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)

	killed := make(chan string, 1)
	go func() {
		id, ok := <-hung
		if !ok {
			return
		}
		// Kill the replica: refuse new connections, cut the open ones
		// (the balancer sees the delivery in progress fail).
		_ = servers[victim].Listener.Close()
		servers[victim].CloseClientConnections()
		killed <- id
	}()

	srv := mockserver.Start(t, mockserver.WithClock(clk), mockserver.WithSeed(3),
		mockserver.WithSigningSecret(secret), mockserver.WithWebhookURL(front.URL),
		mockserver.WithRequestLog(0),
		mockserver.WithDeliveryPolicy(mockserver.DeliveryPolicy{
			MaxAttempts: 200, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second,
		}))
	client, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	require.NoError(t, err)

	start := time.Now()
	// One event per task: create it, then cancel it (task.cancelled).
	work := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				ref, err := client.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"e2e"}})
				if !assert.NoError(t, err) {
					continue
				}
				assert.NoError(t, client.Tasks.Cancel(ctx, ref.ID))
			}
		}()
	}
	for i := range total {
		work <- i
	}
	close(work)
	wg.Wait()
	created := time.Since(start)

	// Drive every retry on the manual clock until each event is delivered
	// or given up; a cancelled context makes WaitForDeliveries a check.
	checked, cancel := context.WithCancel(ctx)
	cancel()
	var virtual time.Duration
	for srv.WaitForDeliveries(checked) != nil {
		require.Less(t, virtual, 24*time.Hour, "deliveries never drained")
		clk.Advance(time.Minute)
		virtual += time.Minute
	}
	t.Logf("%d events: created in %v, delivered in %v more (%v on the manual clock)",
		total, created.Round(time.Millisecond), (time.Since(start) - created).Round(time.Millisecond), virtual)

	var killedID string
	select {
	case killedID = <-killed:
	default:
		t.Fatal("the victim replica was never killed")
	}
	// Let the dead replica's callback return; its deferred release is
	// fenced off and must not undo the other replica's processed mark.
	close(unhang)
	servers[victim].Close()
	check, err := New(rdb, WithClock(clk.Now))
	require.NoError(t, err)
	res, err := check.Claim(ctx, killedID)
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimProcessed, res, "the stale replica's release undid the processed mark")

	events := srv.Events()
	require.Len(t, events, total)
	var lost, twice []string
	for _, ev := range events {
		switch n := len(done.commits[ev.ID]); {
		case n == 0:
			lost = append(lost, ev.ID)
		case n > 1:
			twice = append(twice, ev.ID)
		}
	}
	assert.Empty(t, lost, "events never processed")
	assert.Empty(t, twice, "events processed more than once")
	assert.Len(t, done.commits, total, "only emitted events were processed")
	if c := done.commits[killedID]; assert.Len(t, c, 1) {
		assert.NotEqual(t, victim, c[0], "the killed replica's event went through another replica")
	}
	for _, d := range srv.Deliveries() {
		if d.Outcome == mockserver.OutcomeFailed {
			t.Errorf("event %s given up after %d attempts", d.EventID, d.Attempt)
		}
	}

	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	t.Logf("balancer: %d failed, %d answers lost, %d doubled, %d replayed; replica answers %v",
		proxy.failed, proxy.ackLost, proxy.doubled, proxy.replayed, proxy.status)
	assert.Positive(t, proxy.failed)
	assert.Positive(t, proxy.ackLost)
	assert.Positive(t, proxy.doubled)
	assert.Positive(t, proxy.replayed)
	assert.Positive(t, proxy.status[http.StatusConflict], "some deliveries met a claim in flight")
	assert.True(t, proxy.down[victim])
}
