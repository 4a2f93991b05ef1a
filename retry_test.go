package taskrouting

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
)

const mockBase = "https://api.test/v1"

// attempts records what the mock transport saw, one entry per attempt.
type attempts struct {
	mu   sync.Mutex
	keys []string
	at   []time.Time
}

func (a *attempts) add(r *http.Request) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.keys = append(a.keys, r.Header.Get("Idempotency-Key"))
	a.at = append(a.at, time.Now())
	return len(a.keys)
}

func (a *attempts) snapshot() ([]string, []time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.keys...), append([]time.Time(nil), a.at...)
}

// step is one scripted answer: a response, or a transport error.
type step struct {
	status int
	header map[string]string
	body   string
	err    error
}

// scriptedClient returns a client whose transport answers attempt n with
// script[n] (the last step repeats), with tiny backoff so tests stay fast.
func scriptedClient(t *testing.T, script []step, opts ...Option) (*Client, *attempts) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	rec := &attempts{}
	responder := func(r *http.Request) (*http.Response, error) {
		n := rec.add(r)
		s := script[min(n, len(script))-1]
		if s.err != nil {
			return nil, s.err
		}
		resp := httpmock.NewStringResponse(s.status, s.body)
		for k, v := range s.header {
			resp.Header.Set(k, v)
		}
		resp.Request = r
		return resp, nil
	}
	mt.RegisterNoResponder(responder)
	base := []Option{WithHTTPClient(&http.Client{Transport: mt}), WithRetryWait(time.Microsecond, time.Millisecond)}
	return newTestClient(t, mockBase, append(base, opts...)...), rec
}

var (
	created     = step{status: 202, body: `{"id":"task_8fk2","status":"queued"}`}
	unavailable = step{status: 503, body: `{"error":{"code":"unavailable","message":"try again"}}`}
)

func createTask(c *Client, ctx context.Context, opts ...RequestOption) (*TaskRef, error) {
	return c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"english", "billing"}}, opts...)
}

func TestRetryServerErrorsReuseOneKey(t *testing.T) {
	c, rec := scriptedClient(t, []step{unavailable, unavailable, created})
	ref, err := createTask(c, context.Background())
	noError(t, err)
	diff(t, "answer", &TaskRef{ID: "task_8fk2", Status: "queued"}, ref)
	keys, _ := rec.snapshot()
	if len(keys) != 3 {
		t.Fatalf("%d attempts, want 3", len(keys))
	}
	if keys[0] == "" || keys[1] != keys[0] || keys[2] != keys[0] {
		t.Errorf("idempotency keys %q: want one non-empty key on every attempt", keys)
	}
}

func TestRetryCallerKeyIsKept(t *testing.T) {
	c, rec := scriptedClient(t, []step{unavailable, created})
	_, err := createTask(c, context.Background(), WithIdempotencyKey("order-o_123"))
	noError(t, err)
	keys, _ := rec.snapshot()
	diff(t, "keys", []string{"order-o_123", "order-o_123"}, keys)
}

func TestRetryEachCallHasItsOwnKey(t *testing.T) {
	c, rec := scriptedClient(t, []step{created})
	for range 3 {
		_, err := createTask(c, context.Background())
		noError(t, err)
	}
	keys, _ := rec.snapshot()
	seen := map[string]bool{}
	for _, k := range keys {
		if len(k) != 36 || k[14] != '4' {
			t.Errorf("key %q is not a version 4 UUID", k)
		}
		seen[k] = true
	}
	diff(t, "distinct keys", 3, len(seen))
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	const unit = 20 * time.Millisecond
	c, rec := scriptedClient(t, []step{
		{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"error":{"code":"rate_limited","message":"slow down"}}`},
		created,
	})
	c.retryAfterUnit = unit // one "second" of Retry-After lasts 20ms in this test
	_, err := createTask(c, context.Background())
	noError(t, err)
	keys, at := rec.snapshot()
	if len(keys) != 2 {
		t.Fatalf("%d attempts, want 2", len(keys))
	}
	// The backoff alone is at most 1ms; a gap of a full unit shows the
	// Retry-After was what the client waited for.
	if gap := at[1].Sub(at[0]); gap < unit {
		t.Errorf("waited %v between attempts, want at least the Retry-After of %v", gap, unit)
	}
	diff(t, "keys", keys[0], keys[1])
}

// TestRetryAfterAboveCapReturnsAtOnce: a Retry-After above WithMaxRetryAfter is not waited
// for. Retry-After is scaled to milliseconds and the context's deadline lies well past it,
// so a client that ignored the cap would retry after 3.6s and fail the attempt count, never
// hang the run.
func TestRetryAfterAboveCapReturnsAtOnce(t *testing.T) {
	c, rec := scriptedClient(t, []step{
		{status: 429, header: map[string]string{"Retry-After": "3600"}, body: `{"error":{"code":"rate_limited","message":"slow down"}}`},
		created,
	}, WithMaxRetryAfter(time.Second))
	c.retryAfterUnit = time.Millisecond // Retry-After 3600 lasts 3.6s here, above the 1s cap
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := createTask(c, ctx)
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("got %v, want *APIError", err)
	}
	diff(t, "RetryAfter", 3600*time.Millisecond, apiErr.RetryAfter)
	diff(t, "status", 429, apiErr.StatusCode)
	keys, _ := rec.snapshot()
	diff(t, "attempts", 1, len(keys))
}

func TestRetryAfterBeyondDeadlineReturnsAtOnce(t *testing.T) {
	c, rec := scriptedClient(t, []step{
		{status: 429, header: map[string]string{"Retry-After": "30"}, body: `{"error":{"code":"rate_limited","message":"slow down"}}`},
		created,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := createTask(c, ctx)
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("got %v, want the 429 as *APIError", err)
	}
	diff(t, "RetryAfter", 30*time.Second, apiErr.RetryAfter)
	keys, _ := rec.snapshot()
	diff(t, "attempts", 1, len(keys))
}

func TestRetryAfterOn503(t *testing.T) {
	c, rec := scriptedClient(t, []step{
		{status: 503, header: map[string]string{"Retry-After": "7200"}},
		created,
	})
	_, err := createTask(c, context.Background())
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("got %v, want *APIError", err)
	}
	diff(t, "RetryAfter", 2*time.Hour, apiErr.RetryAfter)
	keys, _ := rec.snapshot()
	diff(t, "attempts", 1, len(keys))
}

func TestRetryNotForClientErrors(t *testing.T) {
	for _, status := range []int{400, 401, 402, 404, 409, 413, 501} {
		c, rec := scriptedClient(t, []step{{status: status, body: `{"error":{"code":"x","message":"y"}}`}, created})
		_, err := createTask(c, context.Background())
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
			t.Errorf("%d: got %v", status, err)
		}
		keys, _ := rec.snapshot()
		if len(keys) != 1 {
			t.Errorf("%d: %d attempts, want 1", status, len(keys))
		}
	}
}

func TestRetryGivesUpWithLastResponse(t *testing.T) {
	c, rec := scriptedClient(t, []step{unavailable}, WithMaxRetries(3))
	_, err := createTask(c, context.Background())
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("got %v, want *APIError", err)
	}
	diff(t, "code", "unavailable", apiErr.Code)
	keys, _ := rec.snapshot()
	diff(t, "attempts", 4, len(keys))
}

func TestRetryOff(t *testing.T) {
	c, rec := scriptedClient(t, []step{unavailable, created}, WithMaxRetries(0))
	_, err := createTask(c, context.Background())
	if !errors.Is(err, ErrServer) {
		t.Errorf("got %v, want ErrServer", err)
	}
	keys, _ := rec.snapshot()
	diff(t, "attempts", 1, len(keys))
}

func TestRetryDroppedConnectionOnPost(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	c, rec := scriptedClient(t, []step{{err: reset}, created})
	ref, err := createTask(c, context.Background())
	noError(t, err)
	diff(t, "id", "task_8fk2", ref.ID)
	keys, _ := rec.snapshot()
	if len(keys) != 2 || keys[0] != keys[1] || keys[0] == "" {
		t.Errorf("keys %q: want two attempts with the same key", keys)
	}
}

// TestRetryDroppedConnectionReal drops a real TCP connection after the
// server has read the request, the case where the server may have committed.
func TestRetryDroppedConnectionReal(t *testing.T) {
	rec := &attempts{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec.add(r) == 1 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.WriteHeader(202)
		_, _ = w.Write([]byte(`{"id":"task_8fk2","status":"queued"}`))
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithRetryWait(time.Microsecond, time.Millisecond))
	_, err := createTask(c, context.Background())
	noError(t, err)
	keys, _ := rec.snapshot()
	if len(keys) < 2 {
		t.Fatalf("%d attempts, want a retry", len(keys))
	}
	for _, k := range keys[1:] {
		if k != keys[0] {
			t.Errorf("keys %q differ", keys)
		}
	}
}

func TestRetryStopsOnCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mt := httpmock.NewMockTransport()
	calls := 0
	mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		calls++
		// The server asks for a long wait; the caller gives up meanwhile.
		resp := httpmock.NewStringResponse(503, `{"error":{"code":"unavailable","message":"later"}}`)
		resp.Header.Set("Retry-After", "30")
		cancel()
		return resp, nil
	})
	c := newTestClient(t, mockBase, WithHTTPClient(&http.Client{Transport: mt}))
	start := time.Now()
	_, err := createTask(c, ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	// Generous bound for a loaded CI machine; without the stop it is 30s.
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("returned after %v", elapsed)
	}
	diff(t, "attempts", 1, calls)
}

func TestRetryCancelledDuringBackoff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answered := make(chan struct{}, 1)
	mt := httpmock.NewMockTransport()
	mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(500, `{"error":{"code":"internal_error","message":"oops"}}`)
		answered <- struct{}{}
		return resp, nil
	})
	// An hour of backoff: only the cancel can end this call in time.
	c := newTestClient(t, mockBase, WithHTTPClient(&http.Client{Transport: mt}), WithRetryWait(time.Hour, time.Hour))
	done := make(chan error, 1)
	go func() {
		_, err := createTask(c, ctx)
		done <- err
	}()
	<-answered
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("call did not return after cancel")
	}
}

func TestBackoff(t *testing.T) {
	c := newTestClient(t, mockBase)
	for attempt := range 6 {
		d := c.backoff(100*time.Millisecond, time.Second, attempt, nil)
		step := min(100*time.Millisecond<<attempt, time.Second)
		if d < step/2 || d > step {
			t.Errorf("attempt %d: %v outside [%v, %v]", attempt, d, step/2, step)
		}
	}
	resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"2"}}}
	diff(t, "Retry-After wins", 2*time.Second, c.backoff(time.Millisecond, time.Millisecond, 0, resp))
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"3", 3 * time.Second, true},
		{" 3 ", 3 * time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"99999999999999", 24 * time.Hour, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}
	for _, tc := range tests {
		got, ok := parseRetryAfter(tc.in, time.Second, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %t; want %v, %t", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
