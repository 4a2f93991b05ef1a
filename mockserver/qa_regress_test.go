package mockserver_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// TestQAEscapedSlashInIDIsNotASeparator: the client path-escapes every id, so an id holding a
// "/" arrives as %2F. The server must read it as one (invalid) id, never as two segments:
// DELETE /workers/w1%2Fidentity once removed w1's sign-in instead of failing.
func TestQAEscapedSlashInIDIsNotASeparator(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w1", Tags: []string{"english"}})
	require.NoError(t, err)
	_, err = c.Workers.SetIdentity(ctx, "w1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("1234")})
	require.NoError(t, err)

	tests := []struct {
		name string
		call func() error
	}{
		{"remove worker w1/identity", func() error { return c.Workers.Remove(ctx, "w1/identity") }},
		{"get task a/b", func() error { _, err := c.Tasks.Get(ctx, "a/b"); return err }},
		{"cancel task w1/accept", func() error { return c.Tasks.Cancel(ctx, "w1/accept") }},
		{"queue of w1/x", func() error { _, err := c.Workers.Queue(ctx, "w1/x"); return err }},
	}
	for _, tt := range tests {
		err := tt.call()
		var apiErr *taskrouting.APIError
		if assert.ErrorAs(t, err, &apiErr, tt.name) {
			assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode, tt.name)
			assert.Equal(t, taskrouting.CodeValidationFailed, apiErr.Code, tt.name)
		}
	}
	// The sign-in is still there.
	wc, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	assert.NoError(t, sessionErr(wc.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "w1", PIN: taskrouting.NewSecret("1234")})))
}

// TestQARecordedRequestsHidePIN: Requests() (and GET /_mock/requests) are meant to be printed
// in test failures, so a worker's PIN must not be in them, as the API key and the worker
// token are not.
func TestQARecordedRequestsHidePIN(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w1", Tags: []string{"english"}})
	require.NoError(t, err)
	const pin = "98765"
	_, err = c.Workers.SetIdentity(ctx, "w1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret(pin)})
	require.NoError(t, err)
	wc, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	require.NoError(t, sessionErr(wc.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "w1", PIN: taskrouting.NewSecret(pin)})))
	_, err = wc.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "w1", PIN: taskrouting.NewSecret(pin + "0")})
	require.ErrorIs(t, err, taskrouting.ErrInvalidCredentials)

	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	for _, r := range reqs {
		assert.NotContains(t, string(r.Body), pin, "%s %s", r.Method, r.Path)
		for name, v := range r.Header {
			assert.NotContains(t, strings.Join(v, " "), "wt_", "header %s", name)
			assert.NotContains(t, strings.Join(v, " "), srv.APIKey(), "header %s", name)
		}
	}
	// The rest of the body stays readable.
	assert.Contains(t, string(reqs[2].Body), `"workerId":"w1"`)

	a := rawRequest(t, srv, "GET", strings.TrimSuffix(srv.URL(), "/v1")+"/_mock/requests")
	assert.False(t, bytes.Contains(a, []byte(pin)), "admin requests dump: %s", a)
}

func rawRequest(t *testing.T, srv *mockserver.Server, method, url string) []byte {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", buf.Bytes())
	return buf.Bytes()
}

// TestQACloseIsPromptWithUnusedConnections: a client that dialled more connections than it
// used (16 concurrent calls) leaves connections that never sent a request. net/http's
// Shutdown waits 5 s for those, so every Close (and every Start's cleanup) took 5 s.
func TestQACloseIsPromptWithUnusedConnections(t *testing.T) {
	t.Parallel()
	for range 3 {
		srv, err := mockserver.New()
		require.NoError(t, err)
		c := newClient(t, srv, srv.APIKey())
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := c.Workers.List(context.Background())
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
		// Connections that never carry a request, as a pool that over-dialled leaves them.
		for range 4 {
			conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(srv.URL(), "http://"), "/v1"))
			require.NoError(t, err)
			defer conn.Close()
		}
		done := make(chan struct{})
		go func() { srv.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("Close still waiting after 2s for connections that never sent a request")
		}
	}
}

// TestQAWorkerBreakIsReadWhereThePlatformShowsIt: an open break is on the worker's own
// profile (worker.me onBreak) and on the mock's admin surface (Server.WorkerState), never on
// workers.get, whose platform model has no such member (docs/contract.md, "Platform answers
// carry only platform members"). A break keeps the worker's availability.
func TestQAWorkerBreakIsReadWhereThePlatformShowsIt(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "w1", Tags: []string{"english"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	_, err = c.Workers.SetIdentity(ctx, "w1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("1234")})
	require.NoError(t, err)
	wc, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	require.NoError(t, sessionErr(wc.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "w1", PIN: taskrouting.NewSecret("1234")})))

	before, err := srv.WorkerState("w1")
	require.NoError(t, err)
	_, err = wc.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
	require.NoError(t, err)
	me, err := wc.Me(ctx)
	require.NoError(t, err)
	during, err := srv.WorkerState("w1")
	require.NoError(t, err)
	detail, err := c.Workers.Get(ctx, "w1")
	require.NoError(t, err)
	assert.False(t, before.OnBreak)
	assert.True(t, me.OnBreak, "worker.me")
	assert.True(t, during.OnBreak, "Server.WorkerState")
	assert.Equal(t, "lunch", during.BreakReason, "Server.WorkerState")
	assert.True(t, detail.Available, "a break keeps the worker's availability")
	assert.NotContains(t, string(detail.Raw), `"onBreak"`, "workers.get is the platform's WorkerDetail")
	assert.NotContains(t, string(me.Raw), `"breakReason"`, "worker.me is the platform's WorkerMe")
}

// TestQARefusedCreateUsesNoTaskRate: a refused request changes no state, and the task-rate
// quota is state: a create refused as task_exists (409) or plan_limit_exceeded (402) used to
// spend one creation of the window, so a client retrying a duplicate got 429 for real ones.
func TestQARefusedCreateUsesNoTaskRate(t *testing.T) {
	t.Parallel()
	clk := mockserver.NewManualClock(time.UnixMilli(1763700000000))
	srv := mockserver.Start(t, mockserver.WithClock(clk), mockserver.WithLimits(mockserver.Limits{TaskRate: 2, QueuedTasks: 2}))
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"english"}})
	require.NoError(t, err)
	for range 3 {
		_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"english"}})
		require.ErrorIs(t, err, taskrouting.ErrTaskExists)
	}
	assert.Equal(t, 1, c.Quota().TaskRate.Remaining, "a 409 spends no task rate")
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t2", Tags: []string{"english"}})
	require.NoError(t, err, "the second real creation of the window")

	clk.Advance(time.Minute) // a new window; two tasks are open, the plan allows two
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t3", Tags: []string{"english"}})
	require.ErrorIs(t, err, taskrouting.ErrPlanLimit)
	assert.Equal(t, 2, c.Quota().TaskRate.Remaining, "a 402 spends no task rate")
}

// TestQAServerPrintsWithoutSecrets: printing a *Server (t.Logf("%v", srv) in a failing test)
// used to dump the whole struct: the API keys, the signing secret, and every guarded field
// read without its lock.
func TestQAServerPrintsWithoutSecrets(t *testing.T) {
	t.Parallel()
	const key, secret = "sk_test_qaPrintKey", "whsec_qaPrintSecret"
	srv := mockserver.Start(t, mockserver.WithAPIKey(key), mockserver.WithExtraAPIKey("sk_live_qaExtraKey"),
		mockserver.WithSigningSecret(secret))
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(format, srv)
		assert.NotContains(t, out, "qaPrintKey", format)
		assert.NotContains(t, out, "qaExtraKey", format)
		assert.NotContains(t, out, "qaPrintSecret", format)
		assert.Contains(t, out, srv.URL(), format)
	}
}

// TestQAInjectedFaultKeepsQuotaTruthful: an injected status answers with the quota headers of
// the caller's workspace. It used to report every limit as untouched, so one injected 503
// reset the client's Quota() snapshot; and worker-plane answers carry no quota headers at all.
func TestQAInjectedFaultKeepsQuotaTruthful(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t, mockserver.WithLimits(mockserver.Limits{TaskRate: 5, QueuedTasks: 10}))
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	for range 2 {
		_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
		require.NoError(t, err)
	}
	require.Equal(t, 3, c.Quota().TaskRate.Remaining)
	require.NoError(t, srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/workers", Status: http.StatusServiceUnavailable, Times: 1}))
	_, err := c.Workers.List(ctx)
	require.ErrorIs(t, err, taskrouting.ErrServer)
	assert.Equal(t, 3, c.Quota().TaskRate.Remaining, "task rate after an injected 503")
	assert.Equal(t, 8, c.Quota().QueuedTasks.Remaining, "queued tasks after an injected 503")

	require.NoError(t, srv.InjectFault(mockserver.Fault{Path: "/portal/*", Status: http.StatusServiceUnavailable, Times: 1}))
	req, err := http.NewRequest("GET", srv.URL()+"/portal/me", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	for name := range resp.Header {
		assert.False(t, strings.HasPrefix(name, "X-Quota-"), "worker plane answer carries %s", name)
	}
}

// TestQAMissingBasePathSaysSo: the first mistake a user makes is a base URL without /v1
// (the server's root instead of srv.URL()). The answer is the platform's plain 404, with no
// word of the mock's own; the hint goes to the server's log (and Start's test log).
func TestQAMissingBasePathSaysSo(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	srv := mockserver.Start(t, mockserver.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	root, err := taskrouting.NewClient(strings.TrimSuffix(srv.URL(), "/v1"), srv.APIKey(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = root.Tasks.Create(context.Background(), taskrouting.CreateTaskParams{Tags: []string{"english"}})
	require.ErrorIs(t, err, taskrouting.ErrNotFound)
	var apiErr *taskrouting.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "no route for /tasks", apiErr.Message, "the platform's plain 404")
	assert.Contains(t, log.String(), "request outside the base path", "the hint is in the log")
	assert.Contains(t, log.String(), "path=/tasks")
}
