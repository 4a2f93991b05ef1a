package taskrouting

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// elsewhere is a server on another origin that records everything that
// reaches it.
type elsewhere struct {
	mu   sync.Mutex
	seen []string // method, path, Authorization, Idempotency-Key and body of each request
}

func (e *elsewhere) start(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.seen = append(e.seen, fmt.Sprintf("%s %s auth=%q key=%q body=%q",
			r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Idempotency-Key"), body))
		e.mu.Unlock()
		fmt.Fprint(w, `{"id":"task_elsewhere","status":"queued","workers":[],"count":0,"token":"wt_x","workerId":"w1"}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (e *elsewhere) requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

// redirector is the API's origin: it answers every request with status
// and a Location on target, and counts the requests.
func redirector(t *testing.T, status int, target string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Location", target+r.URL.Path)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestCrossOriginRedirectRefused: a 302 or 307 to another origin (here the
// same host on another port) is refused before anything is sent there, so
// neither the API key, nor a worker's PIN or token, nor a body or
// Idempotency-Key leaves for it; also with the caller's own http.Client,
// even one whose CheckRedirect follows everything. The refusal is not
// retried.
func TestCrossOriginRedirectRefused(t *testing.T) {
	httpClients := map[string]func() *http.Client{
		"own http.Client":      func() *http.Client { return nil },
		"caller's http.Client": func() *http.Client { return &http.Client{} },
		"caller follows anything": func() *http.Client {
			return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
		},
	}
	calls := map[string]func(ctx context.Context, base string, opts []RequestOption) error{
		"tasks.create POST": func(ctx context.Context, base string, opts []RequestOption) error {
			c, err := NewClient(base, testKey, opts...)
			require.NoError(t, err)
			_, err = c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"billing"}})
			return err
		},
		"workers.list GET": func(ctx context.Context, base string, opts []RequestOption) error {
			c, err := NewClient(base, testKey, opts...)
			require.NoError(t, err)
			_, err = c.Workers.List(ctx)
			return err
		},
		"worker login POST": func(ctx context.Context, base string, opts []RequestOption) error {
			w, err := NewWorkerClient(base, opts...)
			require.NoError(t, err)
			return sessionErr(w.Login(ctx, WorkerLoginParams{WorkspaceID: "ws_1", WorkerID: "w1", PIN: NewSecret("4921")}))
		},
	}
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		for hcName, hc := range httpClients {
			for callName, call := range calls {
				t.Run(fmt.Sprintf("%d/%s/%s", status, hcName, callName), func(t *testing.T) {
					var other elsewhere
					otherSrv := other.start(t)
					apiSrv, hits := redirector(t, status, otherSrv.URL)
					opts := []RequestOption{WithRetryWait(0, 0)}
					if given := hc(); given != nil {
						opts = append(opts, WithHTTPClient(given))
					}

					err := call(context.Background(), apiSrv.URL+"/v1", opts)
					require.ErrorIs(t, err, ErrCrossOriginRedirect)
					assert.Empty(t, other.requests(), "a request reached the other origin")
					assert.Equal(t, int32(1), hits.Load(), "the refused redirect was retried")
					assert.NotContains(t, err.Error(), testKey)
				})
			}
		}
	}
}

// TestSameOriginRedirectFollowed: a redirect within the API's origin is
// followed with the key, as before; the caller's CheckRedirect is still
// consulted there.
func TestSameOriginRedirectFollowed(t *testing.T) {
	var auth atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/workers", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v2/workers", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/v2/workers", func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		fmt.Fprint(w, `{"workers":[],"count":0}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	c := newTestClient(t, srv.URL+"/v1")
	_, err := c.Workers.List(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "Bearer "+testKey, auth.Load())

	stop := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	c = newTestClient(t, srv.URL+"/v1", WithHTTPClient(stop), WithMaxRetries(0))
	_, err = c.Workers.List(context.Background())
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusTemporaryRedirect, apiErr.StatusCode, "the caller's CheckRedirect was not consulted")
}

// TestOrigin: the origin is scheme, host and port, with default ports
// made explicit.
func TestOrigin(t *testing.T) {
	tests := []struct{ a, b string }{
		{"https://API.example.com/v1", "https://api.example.com:443/other"},
		{"http://127.0.0.1/v1", "http://127.0.0.1:80/v1"},
	}
	for _, tt := range tests {
		assert.Equal(t, originOf(mustURL(t, tt.a)), originOf(mustURL(t, tt.b)), "%s vs %s", tt.a, tt.b)
	}
	different := []struct{ a, b string }{
		{"https://api.example.com/v1", "http://api.example.com/v1"},
		{"https://api.example.com:8443/v1", "http://api.example.com:8443/v1"},
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1"},
		{"https://api.example.com/v1", "https://api.example.com.evil.test/v1"},
		{"https://api.example.com/v1", "https://eu.api.example.com/v1"},
	}
	for _, tt := range different {
		assert.NotEqual(t, originOf(mustURL(t, tt.a)), originOf(mustURL(t, tt.b)), "%s vs %s", tt.a, tt.b)
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

// TestSchemeDowngradeRedirectRefused: an https API answering with a redirect to plain http
// on the same host and port is another origin: the key would travel in clear text, so the
// redirect is refused before anything is sent.
func TestSchemeDowngradeRedirectRefused(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host // same host and port, scheme downgraded
		w.Header().Set("Location", u.String())
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/v1", WithHTTPClient(srv.Client()), WithRetryWait(0, 0))
	_, err := c.Workers.List(context.Background())
	require.ErrorIs(t, err, ErrCrossOriginRedirect)
	assert.Equal(t, int32(1), hits.Load(), "the refused redirect was followed or retried")
	assert.NotContains(t, err.Error(), testKey)
}
