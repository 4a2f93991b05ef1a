package taskrouting

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testWorkerToken is the session token of every signed-in test worker
// client; the secret-leak test looks for it.
const testWorkerToken = "wt_5ecret_WorkerToken_DoNotLeak_4c1a"

// isWorkerPlaneFixture reports the worker-plane fixtures: the workspace's
// identity calls and the worker plane. TestWorkerWireFixtures checks them,
// TestWireFixtures the rest.
func isWorkerPlaneFixture(op string) bool {
	return strings.HasPrefix(op, "worker.") || strings.HasPrefix(op, "identity.")
}

// session is what a worker client holds after a call, for the cases that
// change it (Login, Logout).
type session struct{ Token, WorkerID string }

func sessionOf(w *WorkerClient) session {
	token, id := w.c.creds.session()
	return session{token, id}
}

// workerWireCases are the worker-plane calls, made as a user would; plane says
// which credential the request must carry: "workspace" (the API key),
// "worker" (testWorkerToken) or "none" (the sign-in itself).
var workerWireCases = []struct {
	op    string
	plane string
	call  func(ctx context.Context, c *Client, w *WorkerClient) (any, error)
	want  any
}{
	{"identity.set", "workspace", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Workers.SetIdentity(ctx, "agent_1", SetIdentityParams{Label: "desk 4", PIN: NewSecret("4921")})
	}, &WorkerIdentity{ID: "wid_3kq8", WorkerID: "agent_1", Label: "desk 4", Status: "active", HasPIN: true, CreatedAt: t0}},
	{"worker.login", "none", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		_, err := w.Login(ctx, WorkerLoginParams{WorkspaceID: "ws_sandbox", WorkerID: "agent_1", PIN: NewSecret("4921")})
		return sessionOf(w), err
	}, session{"wt_7Qm2xK9pLs4vB1", "agent_1"}},
	{"worker.me", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.Me(ctx)
	}, &WorkerProfile{WorkerID: "agent_1", Label: "desk 4", Available: true, Skills: []WorkerSkill{}}},
	{"worker.setAvailability", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.SetAvailability(ctx, true)
	}, &WorkerAvailability{WorkerID: "agent_1", Available: true}},
	{"worker.queue", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.Queue(ctx, "") // the signed-in worker
	}, &WorkerQueue{WorkerID: "agent_1", TaskIDs: []string{"task_c3d4"}}},
	{"worker.task", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.Task(ctx, "task_c3d4")
	}, &Task{ID: "task_c3d4", Tags: []string{"english"}, Status: TaskStatusPending, CreatedAt: t0}},
	{"worker.accept", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.Accept(ctx, "task_c3d4")
	}, &TaskRef{ID: "task_c3d4", Status: TaskStatusAccepted}},
	{"worker.complete", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.Complete(ctx, "task_c3d4", map[string]any{"resolved": true})
	}, &TaskRef{ID: "task_c3d4", Status: TaskStatusCompleted}},
	{"worker.reject", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.Reject(ctx, "task_e5f6")
	}, &TaskRef{ID: "task_e5f6", Status: TaskStatusQueued}},
	{"worker.startBreak", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.StartBreak(ctx, StartBreakParams{Reason: "lunch"})
	}, &BreakState{WorkerID: "agent_1", OnBreak: true, Since: t0}},
	{"worker.endBreak", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.EndBreak(ctx)
	}, &BreakState{WorkerID: "agent_1", EndedAt: t0.Add(15 * time.Minute)}},
	{"worker.logout", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		err := w.Logout(ctx)
		return sessionOf(w), err
	}, session{}},
	{"identity.remove", "workspace", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return nil, c.Workers.RemoveIdentity(ctx, "agent_1")
	}, nil},
}

func newTestWorkerClient(t *testing.T, baseURL string, opts ...Option) *WorkerClient {
	t.Helper()
	w, err := NewWorkerClient(baseURL, opts...)
	require.NoError(t, err)
	return w
}

// signIn installs a session without a sign-in round trip, for tests of
// the calls after Login.
func signIn(w *WorkerClient) { w.c.creds.set(testWorkerToken, "agent_1") }

func TestWorkerWireFixtures(t *testing.T) {
	for _, tc := range workerWireCases {
		t.Run(tc.op, func(t *testing.T) {
			fx := loadFixture(t, tc.op)
			srv, rec := serveFixture(t, fx)
			c := newTestClient(t, srv.URL+"/v1/", WithMaxRetries(0))
			w := newTestWorkerClient(t, srv.URL+"/v1/", WithMaxRetries(0))
			wantAuth := map[string]string{"workspace": "Bearer " + testKey, "worker": "Bearer " + testWorkerToken, "none": ""}[tc.plane]
			if tc.plane == "worker" {
				signIn(w)
			}

			got, err := tc.call(context.Background(), c, w)
			require.NoError(t, err)

			reqs := rec.all()
			require.Len(t, reqs, 1, "requests the server saw")
			r := reqs[0]
			checkSentRequest(t, fx, r, wantAuth)
			checkRequestContract(t, r)
			diff(t, "decoded answer", tc.want, got, rawOpts(), cmpopts.IgnoreFields(WorkerProfile{}, "Raw"))
		})
	}
}

// TestWorkerWireFixturesComplete keeps the table and the directory in step
// and the story's seq numbers unique across both planes.
func TestWorkerWireFixturesComplete(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "wire", "*.json"))
	require.NoError(t, err)
	var onDisk, inTable []string
	seqs := map[int]string{}
	for _, f := range files {
		op := strings.TrimSuffix(filepath.Base(f), ".json")
		if isWorkerPlaneFixture(op) {
			onDisk = append(onDisk, op)
		}
		fx := loadFixture(t, op)
		if prev, dup := seqs[fx.Seq]; dup {
			t.Errorf("seq %d used by %s and %s", fx.Seq, prev, op)
		}
		seqs[fx.Seq] = op
	}
	for _, tc := range workerWireCases {
		inTable = append(inTable, tc.op)
	}
	sort.Strings(onDisk)
	sort.Strings(inTable)
	diff(t, "worker-plane fixtures on disk vs test cases", onDisk, inTable)
	for seq := 1; seq <= len(files); seq++ {
		assert.Contains(t, seqs, seq, "the story has a gap")
	}
}

func TestWorkerProfileRawKept(t *testing.T) {
	srv, _ := serveOnce(t, 200, nil, `{"workerId":"agent_1","available":true,"onBreak":true,"breakSince":1763700000000}`)
	w := newTestWorkerClient(t, srv.URL+"/v1")
	signIn(w)
	me, err := w.Me(context.Background())
	require.NoError(t, err)
	diff(t, "profile", &WorkerProfile{WorkerID: "agent_1", Available: true, OnBreak: true}, me, cmpopts.IgnoreFields(WorkerProfile{}, "Raw"))
	diff(t, "Raw", map[string]any{"workerId": "agent_1", "available": true, "onBreak": true, "breakSince": float64(1763700000000)}, jsonValue(t, me.Raw))
}

func TestBreakStateRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   BreakState
		wire string
	}{
		{"started", BreakState{WorkerID: "agent_1", OnBreak: true, Since: t0}, `{"workerId":"agent_1","onBreak":true,"since":"2025-11-21T04:40:00.000Z"}`},
		{"ended", BreakState{WorkerID: "agent_1", EndedAt: t0}, `{"workerId":"agent_1","onBreak":false,"endedAt":"2025-11-21T04:40:00.000Z"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.in.MarshalJSON()
			require.NoError(t, err)
			diff(t, "wire", jsonValue(t, []byte(tc.wire)), jsonValue(t, b))
			var back BreakState
			require.NoError(t, back.UnmarshalJSON(b))
			diff(t, "round trip", tc.in, back)
		})
	}
}
