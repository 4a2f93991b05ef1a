package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// alwaysUnavailable is a real server that answers every request with 503
// and counts the requests.
func alwaysUnavailable(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":{"code":"internal_error","message":"down"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestPerCallMaxRetries: a call's WithMaxRetries overrides the client's for
// that call only; the next call is back to the client's setting.
func TestPerCallMaxRetries(t *testing.T) {
	tests := []struct {
		name       string
		clientOpts []RequestOption
		callOpts   []RequestOption
		wantHits   []int32 // attempts of the call with callOpts, then of a plain call
	}{
		{"default client, call without retries", nil, []RequestOption{WithMaxRetries(0)}, []int32{1, 3}},
		{"default client, call with more", nil, []RequestOption{WithMaxRetries(4)}, []int32{5, 3}},
		{"no-retry client, call with one", []RequestOption{WithMaxRetries(0)}, []RequestOption{WithMaxRetries(1)}, []int32{2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hits := alwaysUnavailable(t)
			opts := append([]RequestOption{WithRetryWait(0, time.Millisecond)}, tt.clientOpts...)
			c := newTestClient(t, srv.URL+"/v1", opts...)
			var got []int32
			for _, callOpts := range [][]RequestOption{tt.callOpts, nil} {
				hits.Store(0)
				_, err := c.Workers.List(context.Background(), callOpts...)
				require.ErrorIs(t, err, ErrServer)
				got = append(got, hits.Load())
			}
			diff(t, "attempts per call", tt.wantHits, got)
		})
	}
}

// TestPerCallTimeout: WithTimeout bounds each attempt of one call (or of
// every call, at the client) without changing the other calls.
func TestPerCallTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Slow") != "" {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		fmt.Fprint(w, `{"workers":[],"count":0}`)
	}))
	t.Cleanup(srv.Close)

	tests := []struct {
		name       string
		clientOpts []RequestOption
		callOpts   []RequestOption
	}{
		{"per call", nil, []RequestOption{WithTimeout(20 * time.Millisecond)}},
		{"at the client", []RequestOption{WithTimeout(20 * time.Millisecond)}, nil},
		{"call shortens a long client timeout", []RequestOption{WithTimeout(time.Hour)}, []RequestOption{WithTimeout(20 * time.Millisecond)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, srv.URL+"/v1", append([]RequestOption{WithMaxRetries(0)}, tt.clientOpts...)...)
			ctx := context.Background()
			_, err := c.Workers.List(ctx, append([]RequestOption{WithHeader("X-Slow", "1")}, tt.callOpts...)...)
			var netErr net.Error
			require.ErrorAs(t, err, &netErr)
			assert.True(t, netErr.Timeout(), "error is not a timeout: %v", err)

			// The next call still works. It gets a minute: 20 ms is too short for a loaded
			// machine (a call's timeout replaces the client's).
			_, err = c.Workers.List(ctx, WithTimeout(time.Minute))
			assert.NoError(t, err, "a fast call after the timed-out one")
		})
	}
}

// TestPerCallTimeoutLeavesClient: a call's WithTimeout does not change the
// client's, nor the http.Client the caller passed in.
func TestPerCallTimeoutLeavesClient(t *testing.T) {
	srv, _ := serveOnce(t, 200, nil, `{"workers":[],"count":0}`)
	given := &http.Client{Timeout: 7 * time.Second}
	c := newTestClient(t, srv.URL+"/v1", WithHTTPClient(given))
	_, err := c.Workers.List(context.Background(), WithTimeout(time.Millisecond*500))
	require.NoError(t, err)
	assert.Equal(t, 7*time.Second, c.cfg.httpClient.Timeout)
	assert.Equal(t, 7*time.Second, given.Timeout)
	assert.Nil(t, given.CheckRedirect, "the caller's http.Client was changed")
}

// TestResponseInto: WithResponseInto reports the last attempt's status,
// headers, request id and the number of attempts, for successes and for
// API errors.
func TestResponseInto(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempt := n.Add(1)
		w.Header().Set("X-Request-Id", fmt.Sprintf("req_%d", attempt))
		switch {
		case r.URL.Path == "/v1/tasks/missing":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"not_found","message":"no task"}}`)
		case attempt == 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprint(w, `{"id":"task_1","status":"queued"}`)
		}
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithRetryWait(0, time.Millisecond))
	ctx := context.Background()

	var created Response
	_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"billing"}}, WithResponseInto(&created))
	require.NoError(t, err)
	assert.Equal(t, "req_2", created.Header.Get("X-Request-Id"))
	created.Header = nil
	diff(t, "create response", Response{StatusCode: 202, RequestID: "req_2", Attempts: 2}, created)

	var missing Response
	_, err = c.Tasks.Get(ctx, "missing", WithResponseInto(&missing))
	require.ErrorIs(t, err, ErrNotFound)
	missing.Header = nil
	diff(t, "error response", Response{StatusCode: 404, RequestID: "req_3", Attempts: 1}, missing)
}

// TestOptionPlace: an option that only means something at the client, or
// only at a call, is refused with a *ParamError in the other place, and a
// refused call sends nothing.
func TestOptionPlace(t *testing.T) {
	srv, rec := serveOnce(t, 200, nil, `{"workers":[],"count":0}`)
	c := newTestClient(t, srv.URL+"/v1")

	clientOnly := map[string]RequestOption{
		"WithHTTPClient": WithHTTPClient(http.DefaultClient),
		"WithLogger":     WithLogger(nil),
		"WithUserAgent":  WithUserAgent("app/1"),
	}
	for name, opt := range clientOnly {
		_, err := c.Workers.List(context.Background(), opt)
		var pe *ParamError
		if assert.ErrorAs(t, err, &pe, name) {
			assert.Equal(t, name, pe.Param)
		}
	}
	assert.Empty(t, rec.all(), "a refused call reached the server")

	callOnly := map[string]RequestOption{
		"WithIdempotencyKey": WithIdempotencyKey("key_1"),
		"WithResponseInto":   WithResponseInto(&Response{}),
	}
	for name, opt := range callOnly {
		_, err := NewClient(srv.URL+"/v1", testKey, opt)
		var pe *ParamError
		if assert.ErrorAs(t, err, &pe, name) {
			assert.Equal(t, name, pe.Param)
		}
		_, err = NewWorkerClient(srv.URL+"/v1", opt)
		assert.ErrorIs(t, err, ErrInvalidParams, name)
	}
}

// TestHeaderClientAndCall: a client's WithHeader goes on every call; a
// call's WithHeader replaces it for that call only.
func TestHeaderClientAndCall(t *testing.T) {
	seen := make(chan string, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("X-Team")
		fmt.Fprint(w, `{"workers":[],"count":0}`)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithHeader("X-Team", "support"))
	ctx := context.Background()
	for _, opts := range [][]RequestOption{nil, {WithHeader("x-team", "sales")}, nil} {
		_, err := c.Workers.List(ctx, opts...)
		require.NoError(t, err)
	}
	diff(t, "X-Team per call", []string{"support", "sales", "support"}, []string{<-seen, <-seen, <-seen})
}

// TestNilOptionsIgnored: nil options are skipped at the client and at a call.
func TestNilOptionsIgnored(t *testing.T) {
	srv, _ := serveOnce(t, 200, nil, `{"workers":[],"count":0}`)
	c := newTestClient(t, srv.URL+"/v1", nil)
	_, err := c.Workers.List(context.Background(), nil)
	assert.NoError(t, err)
	assert.False(t, errors.Is(err, ErrInvalidParams))
}

// TestPerCallOptionsConcurrent: calls with their own headers and retry
// settings run at once on one client without sharing state (run with
// -race): the server sees each call's own header once, and the client's
// header is unchanged afterwards.
func TestPerCallOptionsConcurrent(t *testing.T) {
	const calls = 16
	seen := make(chan string, calls)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- strings.Join(r.Header.Values("X-Call"), ",")
		fmt.Fprint(w, `{"workers":[],"count":0}`)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithHeader("X-Call", "client"))

	errs := make(chan error, calls)
	want := make([]string, 0, calls)
	for i := range calls {
		want = append(want, fmt.Sprintf("call-%02d", i))
		go func() {
			_, err := c.Workers.List(context.Background(), WithHeader("X-Call", fmt.Sprintf("call-%02d", i)), WithMaxRetries(i%3))
			errs <- err
		}()
	}
	got := make([]string, 0, calls)
	for range calls {
		require.NoError(t, <-errs)
		got = append(got, <-seen)
	}
	slices.Sort(got)
	diff(t, "X-Call per request", want, got)
	diff(t, "client header after the calls", []string{"client"}, c.cfg.header.Values("X-Call"))
}

// TestTimeoutIsPerAttempt: WithTimeout bounds each attempt, so an attempt
// that hangs is cut and retried, and the call succeeds on the next one.
func TestTimeoutIsPerAttempt(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			<-r.Context().Done() // the first attempt hangs until the client gives up on it
			return
		}
		fmt.Fprint(w, `{"workers":[],"count":0}`)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithRetryWait(0, time.Millisecond))

	var resp Response
	// Long enough that the second attempt always fits under a loaded race detector; the first
	// attempt still hangs until this timeout cuts it.
	_, err := c.Workers.List(context.Background(), WithTimeout(500*time.Millisecond), WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, 2, resp.Attempts)
	assert.Equal(t, int32(2), n.Load())
}
