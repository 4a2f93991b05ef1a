package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// Ways the flaky receiver answers a delivery, with their share of deliveries. Half fail:
// some before the event is processed (the plain case), some after it was processed (the
// answer is lost, so the redelivery is a duplicate only de-duplication can catch), and some
// by hanging past the sender's timeout after processing.
const (
	modeFailBefore = "fail-before-processing" // 30%: 500, the callback never ran
	modeFailAfter  = "fail-after-processing"  // 15%: callback ran, then 500
	modeTimeout    = "timeout-after-process"  // 5%: callback ran, then no answer until the sender gives up
	modeOK         = "ok"                     // 50%
)

// flakyReceiver is a webhook endpoint built from webhook.Handler with a de-duplicating
// store, behind a layer that fails half the deliveries at random (seeded).
type flakyReceiver struct {
	handler http.Handler // webhook.Handler with WithDeduper

	mu         sync.Mutex
	rng        *rand.Rand
	modes      map[string]int
	processed  []string // event ids the callback saw, in order
	suppressed int      // redeliveries of processed events answered without the callback
	hookErrors []string // reasons the handler refused a delivery (must stay empty)
}

func newFlakyReceiver(t *testing.T, secret string, now func() time.Time, seed uint64) *flakyReceiver {
	t.Helper()
	rc := &flakyReceiver{rng: rand.New(rand.NewPCG(seed, 7)), modes: map[string]int{}}
	v, err := webhook.NewVerifier(secret, webhook.WithClock(now))
	require.NoError(t, err)
	mem, err := webhook.NewMemoryDeduper(1 << 16)
	require.NoError(t, err)
	rc.handler = webhook.Handler(v, func(_ context.Context, ev webhook.Event) error {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.processed = append(rc.processed, ev.ID)
		return nil
	}, webhook.WithDeduper(countingDeduper{Deduper: mem, rc: rc}), webhook.WithErrorHook(func(_ *http.Request, err error) {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.hookErrors = append(rc.hookErrors, err.Error())
	}))
	return rc
}

// countingDeduper counts the redeliveries the store recognises as already processed.
type countingDeduper struct {
	webhook.Deduper
	rc *flakyReceiver
}

func (d countingDeduper) Claim(ctx context.Context, id string) (webhook.ClaimResult, error) {
	res, err := d.Deduper.Claim(ctx, id)
	if res == webhook.ClaimProcessed {
		d.rc.mu.Lock()
		d.rc.suppressed++
		d.rc.mu.Unlock()
	}
	return res, err
}

func (rc *flakyReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	roll := rc.rng.Float64()
	mode := modeOK
	switch {
	case roll < 0.30:
		mode = modeFailBefore
	case roll < 0.45:
		mode = modeFailAfter
	case roll < 0.50:
		mode = modeTimeout
	}
	rc.modes[mode]++
	rc.mu.Unlock()

	switch mode {
	case modeFailBefore:
		w.WriteHeader(http.StatusInternalServerError)
	case modeFailAfter:
		rc.handler.ServeHTTP(httptest.NewRecorder(), r)
		w.WriteHeader(http.StatusInternalServerError)
	case modeTimeout:
		rc.handler.ServeHTTP(httptest.NewRecorder(), r)
		// Not a sleep: the sender's per-attempt timeout ends the request.
		<-r.Context().Done()
	default:
		rc.handler.ServeHTTP(w, r)
	}
}

func (rc *flakyReceiver) snapshot() (processed []string, suppressed int, modes map[string]int, hookErrors []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	modes = map[string]int{}
	for k, v := range rc.modes {
		modes[k] = v
	}
	return append([]string(nil), rc.processed...), rc.suppressed, modes, append([]string(nil), rc.hookErrors...)
}

// TestWebhooksExactlyOnceInOrder: two receivers, each failing half the deliveries at
// random (see the modes above), still get every event the server emitted, in emission
// order, and with webhook.WithDeduper each event reaches the callback exactly once, although
// the redeliveries of events whose answer was lost would otherwise process it again.
// Retries run on the server's manual clock: the test advances it, it never sleeps.
func TestWebhooksExactlyOnceInOrder(t *testing.T) {
	t.Parallel()
	tasks := size(100, 2000)
	clk := mockserver.NewManualClock(t0)
	const secret = "whsec_e2e_reliability"
	var receivers []*flakyReceiver
	opts := []mockserver.Option{
		mockserver.WithClock(clk), mockserver.WithSigningSecret(secret),
		// 40 attempts: an event is given up only after 40 failures in a row, 0.5^40.
		// The timeout is real time; only the hanging deliveries wait for it.
		mockserver.WithDeliveryPolicy(mockserver.DeliveryPolicy{MaxAttempts: 40, InitialBackoff: time.Second, MaxBackoff: 4 * time.Second, Timeout: 150 * time.Millisecond}),
	}
	for seed := range uint64(2) {
		rc := newFlakyReceiver(t, secret, clk.Now, 100+seed)
		hook := httptest.NewServer(rc)
		t.Cleanup(hook.Close)
		receivers = append(receivers, rc)
		opts = append(opts, mockserver.WithWebhookURL(hook.URL))
	}
	srv := mockserver.Start(t, opts...)
	c := newClient(t, srv, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	// The events: every task is matched, accepted and completed; every fourth is first
	// rejected, which requeues it and makes a second match to another worker.
	for w := range 4 {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: fmt.Sprintf("agent_%d", w), Tags: []string{"x"}, Available: taskrouting.Ptr(true)})
		require.NoError(t, err)
	}
	for i := range tasks {
		ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"x"}})
		require.NoError(t, err)
		tk, err := c.Tasks.Get(ctx, ref.ID)
		require.NoError(t, err)
		if i%4 == 0 {
			_, err = c.Decisions.Reject(ctx, tk.ID, tk.WorkerID)
			require.NoError(t, err)
			tk, err = c.Tasks.Get(ctx, ref.ID)
			require.NoError(t, err)
		}
		_, err = c.Decisions.Accept(ctx, tk.ID, tk.WorkerID)
		require.NoError(t, err)
		_, err = c.Decisions.Complete(ctx, tk.ID, tk.WorkerID, nil)
		require.NoError(t, err)
	}
	events := srv.Events()
	want := make([]string, len(events))
	for i, ev := range events {
		want[i] = ev.ID
	}

	// Each Advance runs every retry that falls due, in order, before it returns; an event
	// needs at most 40 attempts 4s apart, so the bound below is far beyond what is needed.
	require.NoError(t, srv.Flush(ctx))
	for range 100 * len(events) {
		if settled(srv, len(events)*len(receivers)) {
			break
		}
		clk.Advance(time.Minute)
	}
	require.NoError(t, srv.WaitForDeliveries(ctx))

	delivered := map[string][]string{} // url -> event ids delivered, in order
	attempts, failed := 0, 0
	for _, d := range srv.Deliveries() {
		attempts++
		switch d.Outcome {
		case mockserver.OutcomeDelivered:
			delivered[d.URL] = append(delivered[d.URL], d.EventID)
		case mockserver.OutcomeFailed:
			failed++
		}
	}
	assert.Zero(t, failed, "no event given up")
	assert.Len(t, delivered, len(receivers))
	for url, ids := range delivered {
		assert.Empty(t, cmp.Diff(want, ids), "the server delivered every event once to %s, in order", url)
	}
	for i, rc := range receivers {
		processed, suppressed, modes, hookErrors := rc.snapshot()
		assert.Empty(t, cmp.Diff(want, processed), "receiver %d processed every event exactly once, in emission order", i)
		assert.Empty(t, hookErrors, "every delivery verified")
		assert.Positive(t, suppressed, "redeliveries of processed events happened and were absorbed")
		t.Logf("receiver %d: %d events, %d attempts by mode %v, %d processed, %d redeliveries of processed events suppressed by the deduper",
			i, len(want), sumModes(modes), modes, len(processed), suppressed)
	}
	t.Logf("%d tasks, %d events, %d delivery attempts to %d endpoints, %d given up, clock moved %v",
		tasks, len(events), attempts, len(receivers), failed, clk.Now().Sub(t0))
}

// settled reports whether every (event, endpoint) pair has a final delivery outcome.
func settled(srv *mockserver.Server, want int) bool {
	final := 0
	for _, d := range srv.Deliveries() {
		if d.Outcome == mockserver.OutcomeDelivered || d.Outcome == mockserver.OutcomeFailed {
			final++
		}
	}
	return final >= want
}

func sumModes(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
