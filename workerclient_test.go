package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewWorkerClientValidates(t *testing.T) {
	tests := []struct {
		name, baseURL string
		opts          []Option
		param         string // "" when valid
	}{
		{"ok", "https://api.example.com/v1/", nil, ""},
		{"empty url", "", nil, "baseURL"},
		{"no scheme", "api.example.com/v1", nil, "baseURL"},
		{"nil http client", "https://api.example.com/v1", []Option{WithHTTPClient(nil)}, "WithHTTPClient"},
		{"negative retries", "https://api.example.com/v1", []Option{WithMaxRetries(-1)}, "WithMaxRetries"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWorkerClient(tc.baseURL, tc.opts...)
			if tc.param == "" {
				require.NoError(t, err)
				assert.Equal(t, "https://api.example.com/v1", w.BaseURL())
				assert.False(t, w.SignedIn(), "a new client is signed out")
				assert.Empty(t, w.WorkerID())
				return
			}
			var pe *ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.param, pe.Param)
			assert.Nil(t, w)
		})
	}
}

// TestWorkerCallerMistakes checks every caller mistake is refused before a
// request is sent, with a *ParamError naming the argument or ErrNotSignedIn.
func TestWorkerCallerMistakes(t *testing.T) {
	login := WorkerLoginParams{WorkspaceID: "ws_sandbox", WorkerID: "agent_1", PIN: NewSecret("4921")}
	tests := []struct {
		name     string
		signedIn bool
		call     func(ctx context.Context, c *Client, w *WorkerClient) error
		param    string // the *ParamError's Param, or "" for ErrNotSignedIn
	}{
		{"login without workspace", false, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			p := login
			p.WorkspaceID = ""
			return sessionErr(w.Login(ctx, p))
		}, "WorkerLoginParams.WorkspaceID"},
		{"login without worker", false, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			p := login
			p.WorkerID = ""
			return sessionErr(w.Login(ctx, p))
		}, "WorkerLoginParams.WorkerID"},
		{"login as a dot segment", false, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			p := login
			p.WorkerID = ".."
			return sessionErr(w.Login(ctx, p))
		}, "WorkerLoginParams.WorkerID"},
		{"login without PIN", false, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			p := login
			p.PIN = NewSecret("")
			return sessionErr(w.Login(ctx, p))
		}, "WorkerLoginParams.PIN"},
		{"login with a nil context", false, func(_ context.Context, _ *Client, w *WorkerClient) error {
			//lint:ignore SA1012 checking the nil-context guard on purpose
			return sessionErr(w.Login(nil, login))
		}, "ctx"},
		{"queue of nobody", false, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.Queue(ctx, "")
			return err
		}, "workerID"},
		{"task without id", true, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.Task(ctx, "")
			return err
		}, "taskID"},
		{"accept without id", true, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.Accept(ctx, "")
			return err
		}, "taskID"},
		{"idempotency key on the worker plane", true, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.StartBreak(ctx, StartBreakParams{}, WithIdempotencyKey("k1"))
			return err
		}, "WithIdempotencyKey"},
		{"token smuggled in a header", true, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.Me(ctx, WithHeader("Authorization", "Bearer wt_other"))
			return err
		}, "WithHeader"},
		{"me signed out", false, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.Me(ctx)
			return err
		}, ""},
		{"queue of someone signed out", false, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.Queue(ctx, "agent_2")
			return err
		}, ""},
		{"accept signed out", false, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.Accept(ctx, "task_c3d4")
			return err
		}, ""},
		{"end break signed out", false, func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.EndBreak(ctx)
			return err
		}, ""},
		{"identity without PIN", false, func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.SetIdentity(ctx, "agent_1", SetIdentityParams{Label: "desk 4"})
			return err
		}, "SetIdentityParams.PIN"},
		{"identity of nobody", false, func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.SetIdentity(ctx, "", SetIdentityParams{PIN: NewSecret("4921")})
			return err
		}, "workerID"},
		{"remove identity of a dot segment", false, func(ctx context.Context, c *Client, _ *WorkerClient) error {
			return c.Workers.RemoveIdentity(ctx, ".")
		}, "workerID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, `{}`)
			c := newTestClient(t, srv.URL+"/v1")
			w := newTestWorkerClient(t, srv.URL+"/v1")
			if tc.signedIn {
				signIn(w)
			}
			err := tc.call(context.Background(), c, w)
			if tc.param == "" {
				assert.ErrorIs(t, err, ErrNotSignedIn)
			} else {
				var pe *ParamError
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, tc.param, pe.Param)
				assert.ErrorIs(t, err, ErrInvalidParams)
			}
			assert.Empty(t, rec.all(), "a request was sent")
		})
	}
}

func TestWorkerErrorMapping(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		call   func(ctx context.Context, w *WorkerClient) error
		want   APIError
		is     []error
		isNot  []error
	}{
		{
			name: "wrong PIN", status: 401,
			body: `{"error":{"code":"invalid_credentials","message":"wrong PIN for agent_1"}}`,
			call: func(ctx context.Context, w *WorkerClient) error {
				return sessionErr(w.Login(ctx, WorkerLoginParams{WorkspaceID: "ws_sandbox", WorkerID: "agent_1", PIN: NewSecret("0000")}))
			},
			want: APIError{StatusCode: 401, Code: "invalid_credentials", Message: "wrong PIN for agent_1", Method: "POST", Path: "/worker-auth/login"},
			is:   []error{ErrInvalidCredentials, ErrUnauthorized}, isNot: []error{ErrNotFound, ErrBreakAlreadyOpen},
		},
		{
			name: "revoked token", status: 401,
			body: `{"error":{"code":"unauthorized","message":"invalid worker token"}}`,
			call: func(ctx context.Context, w *WorkerClient) error { _, err := w.Me(ctx); return err },
			want: APIError{StatusCode: 401, Code: "unauthorized", Message: "invalid worker token", Method: "GET", Path: "/portal/me"},
			is:   []error{ErrUnauthorized}, isNot: []error{ErrInvalidCredentials},
		},
		{
			name: "second break", status: 409,
			body: `{"error":{"code":"break_already_open","message":"a break is open"}}`,
			call: func(ctx context.Context, w *WorkerClient) error {
				_, err := w.StartBreak(ctx, StartBreakParams{})
				return err
			},
			want: APIError{StatusCode: 409, Code: "break_already_open", Message: "a break is open", Method: "POST", Path: "/portal/breaks/start"},
			is:   []error{ErrBreakAlreadyOpen, ErrConflict}, isNot: []error{ErrInvalidState, ErrUnauthorized},
		},
		{
			name: "another worker's task", status: 404,
			body: `{"error":{"code":"not_found","message":"task not found"}}`,
			call: func(ctx context.Context, w *WorkerClient) error { _, err := w.Task(ctx, "task_other"); return err },
			want: APIError{StatusCode: 404, Code: "not_found", Message: "task not found", Method: "GET", Path: "/portal/tasks/task_other"},
			is:   []error{ErrNotFound}, isNot: []error{ErrConflict},
		},
		{
			name: "accept out of turn", status: 409,
			body: `{"error":{"code":"invalid_state","message":"not offered to agent_1"}}`,
			call: func(ctx context.Context, w *WorkerClient) error { _, err := w.Accept(ctx, "task_c3d4"); return err },
			want: APIError{StatusCode: 409, Code: "invalid_state", Message: "not offered to agent_1", Method: "POST", Path: "/portal/tasks/task_c3d4/accept"},
			is:   []error{ErrInvalidState, ErrConflict}, isNot: []error{ErrBreakAlreadyOpen},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Quota headers on a worker-plane answer are not tracked.
			srv, _ := serveOnce(t, tc.status, map[string]string{"X-Quota-Task-Rate-Limit": "600"}, tc.body)
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
			signIn(w)
			before := sessionOf(w)
			err := tc.call(context.Background(), w)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			diff(t, "APIError", tc.want, *apiErr)
			for _, target := range tc.is {
				assert.ErrorIs(t, err, target)
			}
			for _, target := range tc.isNot {
				assert.NotErrorIs(t, err, target)
			}
			diff(t, "session after a failed call", before, sessionOf(w))
		})
	}
}

func TestEndBreakWithNoneOpen(t *testing.T) {
	srv, rec := serveOnce(t, http.StatusNoContent, nil, "")
	w := newTestWorkerClient(t, srv.URL+"/v1")
	signIn(w)
	got, err := w.EndBreak(context.Background())
	require.NoError(t, err)
	assert.Nil(t, got, "no break was open")
	reqs := rec.all()
	require.Len(t, reqs, 1)
	assert.Empty(t, reqs[0].Body, "EndBreak sends no body")
	assert.Empty(t, reqs[0].Header.Get("Content-Type"))
}

func TestLoginAdoptsSession(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   session // zero: still signed out
		err    bool
	}{
		{"token adopted", `{"token":"wt_abc"}`, session{"wt_abc", "agent_1"}, false},
		{"no token", `{}`, session{}, true},
		{"token with a line break", `{"token":"wt_abc\r\nX-Evil: 1"}`, session{}, true},
		{"token with a space", `{"token":"wt abc"}`, session{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, tc.answer)
			w := newTestWorkerClient(t, srv.URL+"/v1")
			_, err := w.Login(context.Background(), WorkerLoginParams{WorkspaceID: "ws_sandbox", WorkerID: "agent_1", PIN: NewSecret("4921")})
			if tc.err {
				require.Error(t, err)
				assert.NotContains(t, err.Error(), "wt_abc", "the error echoes the token")
			} else {
				require.NoError(t, err)
			}
			diff(t, "session", tc.want, sessionOf(w))
			assert.Equal(t, tc.want.WorkerID, w.WorkerID())
			assert.Equal(t, tc.want.Token != "", w.SignedIn())
			require.Len(t, rec.all(), 1)
			assert.Empty(t, rec.all()[0].Header.Get("Authorization"), "the sign-in is sent without a token")
		})
	}
}

func TestLogout(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		wantErr  error
		signedIn bool // after the call
	}{
		{"revoked", 204, "", nil, false},
		{"already revoked", 401, `{"error":{"code":"unauthorized","message":"invalid worker token"}}`, ErrUnauthorized, false},
		{"server failure keeps the token for a retry", 500, `{"error":{"code":"internal_error","message":"boom"}}`, ErrServer, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, tc.status, nil, tc.body)
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
			signIn(w)
			err := w.Logout(context.Background())
			if tc.wantErr == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.wantErr)
			}
			assert.Equal(t, tc.signedIn, w.SignedIn())
			require.Len(t, rec.all(), 1)
			assert.Equal(t, "Bearer "+testWorkerToken, rec.all()[0].Header.Get("Authorization"))
			if !tc.signedIn {
				// Signed out, nothing more is sent.
				_, err = w.Me(context.Background())
				assert.ErrorIs(t, err, ErrNotSignedIn)
				assert.NoError(t, w.Logout(context.Background()), "a second Logout is a no-op")
				assert.Len(t, rec.all(), 1)
			}
		})
	}
}

// TestWorkerRetryCarriesNoKey retries a worker-plane POST: each attempt has
// the session token and none an Idempotency-Key.
func TestWorkerRetryCarriesNoKey(t *testing.T) {
	rec := &recorder{}
	var mu sync.Mutex
	attempts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		mu.Lock()
		attempts++
		first := attempts == 1
		mu.Unlock()
		if first {
			// Retry-After: the request was not run, so even a keyless
			// write is retried.
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"code":"unavailable","message":"try again"}}`)
			return
		}
		fmt.Fprint(w, `{"workerId":"agent_1","onBreak":true,"since":1763700000000}`)
	}))
	t.Cleanup(srv.Close)
	w := newTestWorkerClient(t, srv.URL+"/v1", WithRetryWait(0, time.Millisecond))
	signIn(w)
	got, err := w.StartBreak(context.Background(), StartBreakParams{})
	require.NoError(t, err)
	diff(t, "break", &BreakState{WorkerID: "agent_1", OnBreak: true, Since: t0}, got)
	reqs := rec.all()
	require.Len(t, reqs, 2)
	for i, r := range reqs {
		assert.Empty(t, r.Header.Get("Idempotency-Key"), "attempt %d", i+1)
		assert.Equal(t, "Bearer "+testWorkerToken, r.Header.Get("Authorization"), "attempt %d", i+1)
		diff(t, "body", map[string]any{}, jsonValue(t, r.Body))
	}
}

// TestWorkerClientConcurrent signs in and out while other goroutines call;
// run with -race. Every request carries one whole token or is refused
// before sending.
func TestWorkerClientConcurrent(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := rec.record(r)
		switch seen.Path {
		case "/worker-auth/login":
			fmt.Fprint(w, `{"token":"wt_session_b"}`)
		case "/worker-auth/logout":
			w.WriteHeader(http.StatusNoContent)
		default:
			fmt.Fprint(w, `{"workerId":"agent_1","available":true,"onBreak":false}`)
		}
	}))
	t.Cleanup(srv.Close)
	w := newTestWorkerClient(t, srv.URL+"/v1")
	w.c.creds.set("wt_session_a", "agent_1")
	ctx := context.Background()

	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if _, err := w.Me(ctx); err != nil && !errors.Is(err, ErrNotSignedIn) {
					t.Error(err)
					return
				}
				_ = w.String()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 10 {
			if err := w.Logout(ctx); err != nil {
				t.Error(err)
				return
			}
			if _, err := w.Login(ctx, WorkerLoginParams{WorkspaceID: "ws_sandbox", WorkerID: "agent_1", PIN: NewSecret("4921")}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()

	diff(t, "final session", session{"wt_session_b", "agent_1"}, sessionOf(w))
	for _, r := range rec.all() {
		auth := r.Header.Get("Authorization")
		if r.Path == "/worker-auth/login" {
			assert.Empty(t, auth)
			continue
		}
		assert.Contains(t, []string{"Bearer wt_session_a", "Bearer wt_session_b"}, auth, "%s %s", r.Method, r.Path)
	}
}
