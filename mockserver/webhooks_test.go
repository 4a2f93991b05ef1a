package mockserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// receiver is a webhook endpoint for tests: it verifies every delivery and records the
// events it accepted. fail decides, per request number (1-based), whether to answer 500.
type receiver struct {
	verify func(body []byte, header string) error
	fail   func(n int) bool

	mu       sync.Mutex
	requests int
	rejected int // deliveries whose signature did not verify
	accepted []map[string]any
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.requests++
	if err := rc.verify(body, r.Header.Get(webhook.SignatureHeader)); err != nil {
		rc.rejected++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if rc.fail != nil && rc.fail(rc.requests) {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	var ev map[string]any
	if json.Unmarshal(body, &ev) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rc.accepted = append(rc.accepted, ev)
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) acceptedIDs() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	ids := make([]string, len(rc.accepted))
	for i, ev := range rc.accepted {
		ids[i], _ = ev["id"].(string)
	}
	return ids
}

func eventIDs(evs []Event) []string {
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	return ids
}

// runLoop drives one worker through match, accept and complete of a task.
func runLoop(t *testing.T, srv *Server, taskID string) {
	t.Helper()
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": taskID, "tags": []string{"english"}})
	mustAPI(t, srv, 200, "POST", "/tasks/"+taskID+"/accept", map[string]any{"workerId": "agent_1"})
	mustAPI(t, srv, 200, "POST", "/tasks/"+taskID+"/complete", map[string]any{"workerId": "agent_1", "result": map[string]any{"ok": true}})
}

func TestWebhooksAreSignedAndFlat(t *testing.T) {
	t.Parallel()
	rc := &receiver{}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	srv := Start(t, WithWebhookURL(hook.URL))
	rc.verify = func(body []byte, header string) error { return webhook.Verify(body, header, srv.SigningSecret()) }

	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
	runLoop(t, srv, "task_1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitForDeliveries(ctx))

	assert.Zero(t, rc.rejected, "every delivery verifies with webhook.Verify")
	require.Len(t, rc.accepted, 3)
	var kinds []string
	for _, ev := range rc.accepted {
		kinds = append(kinds, ev["event"].(string))
		assert.Equal(t, "task_1", ev["taskId"])
		assert.Equal(t, "agent_1", ev["workerId"])
		assert.Contains(t, ev, "createdAt")
		assert.Regexp(t, `^evt_`, ev["id"])
	}
	assert.Empty(t, cmp.Diff([]string{"task.matched", "task.accepted", "task.completed"}, kinds))
	assert.Equal(t, map[string]any{"ok": true}, rc.accepted[2]["result"])
	for _, k := range []string{"decisionId", "matchedAt", "expiresAt", "priority", "tags"} {
		assert.Contains(t, rc.accepted[0], k, "task.matched carries %s", k)
	}
	assert.Empty(t, cmp.Diff(eventIDs(srv.Events()), rc.acceptedIDs()))
	for _, d := range srv.Deliveries() {
		assert.Equal(t, OutcomeDelivered, d.Outcome)
	}

	// The webhook package's parser reads the payloads the server sends.
	ev, err := webhook.ParseEvent(srv.Events()[0].Payload)
	require.NoError(t, err)
	m, err := ev.TaskMatched()
	require.NoError(t, err)
	assert.Equal(t, "task_1", m.TaskID)
	assert.Equal(t, "agent_1", m.WorkerID)
	assert.Equal(t, "dec_1", m.DecisionID)
	assert.Equal(t, []string{"english"}, m.Tags)
	assert.Equal(t, m.MatchedAt.Add(time.Minute), m.ExpiresAt, "default offer timeout")
	done, err := webhook.ParseEvent(srv.Events()[2].Payload)
	require.NoError(t, err)
	c, err := done.TaskCompleted()
	require.NoError(t, err)
	assert.JSONEq(t, `{"ok":true}`, string(c.Result))
}

// A receiver failing every other delivery still gets every event, in order, and each retry
// happens exactly one backoff later on the manual clock.
func TestWebhookRetriesInOrderOnManualClock(t *testing.T) {
	t.Parallel()
	clk := NewManualClock(time.Now())
	rc := &receiver{fail: func(n int) bool { return n%2 == 1 }}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	policy := DeliveryPolicy{MaxAttempts: 4, InitialBackoff: time.Second, MaxBackoff: 8 * time.Second}
	srv := Start(t, WithClock(clk), WithWebhookURL(hook.URL), WithDeliveryPolicy(policy))
	v, err := webhook.NewVerifier(srv.SigningSecret(), webhook.WithClock(clk.Now))
	require.NoError(t, err)
	rc.verify = v.Verify

	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
	for _, id := range []string{"task_1", "task_2", "task_3"} {
		runLoop(t, srv, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.Flush(ctx))
	require.Len(t, srv.Deliveries(), 1, "head of line: only the first event was tried before the clock moved")

	clk.Advance(time.Minute)
	require.NoError(t, srv.WaitForDeliveries(ctx), "Advance ran every retry before it returned")

	assert.Zero(t, rc.rejected)
	assert.Empty(t, cmp.Diff(eventIDs(srv.Events()), rc.acceptedIDs()), "all events, in emission order")
	ds := srv.Deliveries()
	require.Len(t, ds, 2*len(srv.Events()))
	for i := 0; i+1 < len(ds); i += 2 {
		first, retry := ds[i], ds[i+1]
		assert.Equal(t, first.EventID, retry.EventID)
		assert.Equal(t, []int{1, 2}, []int{first.Attempt, retry.Attempt})
		assert.Equal(t, []string{OutcomeRetrying, OutcomeDelivered}, []string{first.Outcome, retry.Outcome})
		assert.Equal(t, time.Second, retry.At.Sub(first.At), "retry after one backoff on the server clock")
	}
}

func TestWebhookKeptAsFailedAfterLastAttempt(t *testing.T) {
	t.Parallel()
	clk := NewManualClock(time.Now())
	rc := &receiver{fail: func(int) bool { return true }}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	policy := DeliveryPolicy{MaxAttempts: 3, InitialBackoff: time.Second, MaxBackoff: time.Minute}
	srv := Start(t, WithClock(clk), WithWebhookURL(hook.URL), WithDeliveryPolicy(policy))
	rc.verify = func([]byte, string) error { return nil }

	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	// 10s: past every retry, before the offer expires (60s) and makes more events.
	clk.Advance(10 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitForDeliveries(ctx))

	ds := srv.Deliveries()
	var got []string
	var waits []time.Duration
	for i, d := range ds {
		got = append(got, d.Outcome)
		assert.Equal(t, 500, d.StatusCode)
		if i > 0 {
			waits = append(waits, d.At.Sub(ds[i-1].At))
		}
	}
	assert.Empty(t, cmp.Diff([]string{OutcomeRetrying, OutcomeRetrying, OutcomeFailed}, got))
	assert.Empty(t, cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, waits), "exponential backoff")
}

// An offer nobody answers expires on the manual clock: task.expired, then a new match.
func TestOfferExpiryOnManualClock(t *testing.T) {
	t.Parallel()
	clk := NewManualClock(t0)
	srv := Start(t, WithClock(clk))
	for _, id := range []string{"agent_1", "agent_2"} {
		mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": id, "tags": []string{"english"}, "available": true})
	}
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"},
		"escalation": map[string]any{"respondWithinMs": 5000, "onNoResponse": "block"}})
	first := mustAPI(t, srv, 200, "GET", "/tasks/task_1", nil).json(t)
	require.Equal(t, "pending", first["status"])

	clk.Advance(4999 * time.Millisecond)
	assert.Equal(t, first["workerId"], mustAPI(t, srv, 200, "GET", "/tasks/task_1", nil).json(t)["workerId"], "not yet expired")
	clk.Advance(time.Millisecond)

	var kinds []string
	for _, e := range srv.Events() {
		kinds = append(kinds, string(e.Kind))
	}
	assert.Empty(t, cmp.Diff([]string{"task.matched", "task.expired", "task.matched"}, kinds))
	after := mustAPI(t, srv, 200, "GET", "/tasks/task_1", nil).json(t)
	assert.Equal(t, "pending", after["status"])
	assert.NotEqual(t, first["workerId"], after["workerId"], "blocked worker is not offered the task again")
	evs := srv.Events()
	assert.Equal(t, t0.Add(5*time.Second), evs[1].CreatedAt, "expiry happens exactly at the deadline")
	decs := mustAPI(t, srv, 200, "GET", "/decisions?taskId=task_1", nil).json(t)["decisions"].([]any)
	assert.Len(t, decs, 2)
}

// With the real clock a failed delivery is retried after the (real, short) backoff.
func TestWebhookRetryOnRealClock(t *testing.T) {
	t.Parallel()
	rc := &receiver{fail: func(n int) bool { return n == 1 }, verify: func([]byte, string) error { return nil }}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	srv := Start(t, WithWebhookURL(hook.URL), WithDeliveryPolicy(DeliveryPolicy{InitialBackoff: 5 * time.Millisecond}))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitForDeliveries(ctx))
	var outcomes []string
	for _, d := range srv.Deliveries() {
		outcomes = append(outcomes, d.Outcome)
	}
	assert.Empty(t, cmp.Diff([]string{OutcomeRetrying, OutcomeDelivered}, outcomes))
}

// Close waits for a webhook attempt in flight: once it returns, the attempt is recorded.
func TestCloseWaitsForInFlightDelivery(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(arrived)
		<-release
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(hook.Close)
	srv, err := New(WithWebhookURL(hook.URL))
	require.NoError(t, err)
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_1", "tags": []string{"english"}})
	<-arrived
	closed := make(chan struct{})
	go func() {
		srv.Close()
		close(closed)
	}()
	close(release)
	<-closed
	require.Len(t, srv.Deliveries(), 1, "the attempt in flight finished before Close returned")
	assert.Equal(t, OutcomeDelivered, srv.Deliveries()[0].Outcome)
}
