package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testSupervisorToken is the session token of every signed-in test
// supervisor client; the secret tests look for it.
const testSupervisorToken = "sv_5ecret_SupervisorToken_DoNotLeak_9e2b"

func signedInSupervisor(t *testing.T, baseURL string, opts ...Option) *SupervisorClient {
	t.Helper()
	s, err := NewSupervisorClient(baseURL, opts...)
	require.NoError(t, err)
	require.NoError(t, s.SetSession(testSupervisorToken, t0.Add(12*time.Hour)))
	return s
}

var pushSub = PushSubscriptionParams{Endpoint: "https://push.example/abc", P256dh: "BPk3", Auth: NewSecret("au_5ecret")}

// sessionCases are the supervisor and worker push/voice calls on the wire:
// the request each sends, the credential it carries ("supervisor", "worker"
// or "none") and how it decodes the platform's answer. Every request and
// answer is also held to api/openapi.json.
var sessionCases = []struct {
	name       string
	op         string
	plane      string
	call       func(ctx context.Context, s *SupervisorClient, w *WorkerClient) (any, error)
	wantMethod string
	wantPath   string
	wantBody   string
	status     int
	answer     string
	want       any
}{
	{"entry is anonymous", "supervisor.entry", "none", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.Entry(ctx)
	}, "GET", "/supervisor-auth/entry", "", 200, `{"consoleUrl":"https://console.example"}`, &SupervisorEntry{ConsoleURL: "https://console.example"}},
	{"entry without a console", "supervisor.entry", "none", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.Entry(ctx)
	}, "GET", "/supervisor-auth/entry", "", 200, `{"consoleUrl":null}`, &SupervisorEntry{}},
	{"accept adopts the session", "supervisor.acceptInvite", "none", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.AcceptInvite(ctx, "svl_link")
	}, "POST", "/supervisor-auth/accept", `{"token":"svl_link"}`, 200,
		`{"token":"sv_new","expiresAt":1763700000000,"supervisor":{"id":"sup_1","label":"Dana","email":null,"teamId":"team_1"},"workspaceId":"ws_1"}`,
		&SupervisorSession{Supervisor: SupervisorIdentity{ID: "sup_1", Label: "Dana", TeamID: "team_1"}, WorkspaceID: "ws_1", ExpiresAt: time.UnixMilli(1763700000000)}},
	{"me with a team", "supervisor.me", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.Me(ctx)
	}, "GET", "/supervisor/me", "", 200, `{"supervisorId":"sup_1","label":"Dana","email":"dana@example.com","workspaceId":"ws_1","teamKey":"billing"}`,
		&SupervisorProfile{SupervisorID: "sup_1", Label: "Dana", Email: "dana@example.com", WorkspaceID: "ws_1", TeamKey: "billing"}},
	{"me for the whole workspace", "supervisor.me", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.Me(ctx)
	}, "GET", "/supervisor/me", "", 200, `{"supervisorId":"sup_1","teamKey":null}`, &SupervisorProfile{SupervisorID: "sup_1"}},
	{"overview", "supervisor.overview", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		b, err := s.Overview(ctx)
		if b != nil {
			b.Raw = nil
		}
		return b, err
	}, "GET", "/supervisor/overview", "", 200,
		`{"teamKey":"billing","counts":{"queued":4,"pending":2,"parked":1,"oldestWaitMs":90000},` +
			`"crew":[{"workerId":"agent_1","backlog":3,"available":true},{"workerId":"agent_2","backlog":0,"available":false}],` +
			`"parked":[{"id":"task_8fk2","tags":["billing"],"priority":90,"createdAt":1763700000000},{"id":"t2","tags":[],"priority":null,"createdAt":null}]}`,
		&SupervisorBoard{TeamKey: "billing", Counts: BoardCounts{Queued: 4, Pending: 2, Parked: 1, OldestWait: 90 * time.Second},
			Crew:   []CrewMember{{"agent_1", 3, true}, {"agent_2", 0, false}},
			Parked: []ParkedTask{{ID: "task_8fk2", Tags: []string{"billing"}, Priority: Ptr(90.0), CreatedAt: time.UnixMilli(1763700000000)}, {ID: "t2", Tags: []string{}}}}},
	{"set priority escapes the id", "supervisor.setPriority", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.SetPriority(ctx, "a/../b", 99)
	}, "POST", "/supervisor/tasks/a%2F..%2Fb/priority", `{"priority":99}`, 200, `{"id":"a/../b","priority":99}`, &TaskPriority{ID: "a/../b", Priority: 99}},
	{"unpark with clock resets", "supervisor.unpark", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.Unpark(ctx, "t1", UnparkTaskParams{ResetSLA: Ptr(true)})
	}, "POST", "/supervisor/tasks/t1/unpark", `{"resetSla":true}`, 200, `{"id":"t1","status":"queued"}`, &TaskRef{ID: "t1", Status: "queued"}},
	{"assign leaves force out unless set", "supervisor.assign", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.Assign(ctx, "t1", "agent_1", SupervisorAssignParams{})
	}, "POST", "/supervisor/tasks/t1/assign", `{"workerId":"agent_1"}`, 200, `{"id":"t1","workerId":"agent_1","status":"pending"}`,
		&SupervisorAssignment{ID: "t1", WorkerID: "agent_1", Status: "pending"}},
	{"assign with force", "supervisor.assign", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.Assign(ctx, "t1", "agent_1", SupervisorAssignParams{Force: true})
	}, "POST", "/supervisor/tasks/t1/assign", `{"workerId":"agent_1","force":true}`, 200, `{"id":"t1","workerId":"agent_1","status":"pending"}`,
		&SupervisorAssignment{ID: "t1", WorkerID: "agent_1", Status: "pending"}},
	{"pause keeps the backlog", "supervisor.setAvailability", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.SetAvailability(ctx, "agent_1", SupervisorAvailabilityParams{})
	}, "POST", "/supervisor/workers/agent_1/availability", `{"available":false}`, 200, `{"workerId":"agent_1","available":false}`,
		&SupervisorAvailability{WorkerID: "agent_1", ReleasedTaskIDs: []string{}}},
	{"pause and release", "supervisor.setAvailability", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.SetAvailability(ctx, "agent_1", SupervisorAvailabilityParams{ReleaseBacklog: true})
	}, "POST", "/supervisor/workers/agent_1/availability", `{"available":false,"releaseBacklog":true}`, 200,
		`{"workerId":"agent_1","available":false,"releasedTaskIds":["t1","t2"]}`,
		&SupervisorAvailability{WorkerID: "agent_1", ReleasedTaskIDs: []string{"t1", "t2"}}},
	{"supervisor voice", "supervisor.voiceIce", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		v, err := s.VoiceICE(ctx)
		if v != nil {
			v.Raw = Secret{}
		}
		return v, err
	}, "GET", "/supervisor/voice/ice", "", 200, `{"iceServers":[{"urls":"stun:stun.example:3478"},{"urls":["turn:turn.example:3478"],"username":"u","credential":"c"}]}`,
		&VoiceICE{ICEServers: []ICEServer{{URLs: []string{"stun:stun.example:3478"}}, {URLs: []string{"turn:turn.example:3478"}, Username: "u", Credential: NewSecret("c")}}}},
	{"supervisor push config off", "supervisor.pushConfig", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return s.PushConfig(ctx)
	}, "GET", "/supervisor/push/config", "", 200, `{"enabled":false,"publicKey":null}`, &PushConfig{}},
	{"supervisor subscribe nests the keys", "supervisor.pushSubscribe", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return nil, s.PushSubscribe(ctx, pushSub)
	}, "POST", "/supervisor/push/subscriptions", `{"endpoint":"https://push.example/abc","keys":{"p256dh":"BPk3","auth":"au_5ecret"}}`, 200, `{"ok":true}`, nil},
	{"supervisor unsubscribe sends the endpoint only", "supervisor.pushUnsubscribe", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		return nil, s.PushUnsubscribe(ctx, "https://push.example/abc")
	}, "DELETE", "/supervisor/push/subscriptions", `{"endpoint":"https://push.example/abc"}`, 204, "", nil},
	{"logout", "supervisor.logout", "supervisor", func(ctx context.Context, s *SupervisorClient, _ *WorkerClient) (any, error) {
		err := s.Logout(ctx)
		return s.SignedIn(), err
	}, "POST", "/supervisor-auth/logout", "", 204, "", false},
	{"worker voice", "worker.voiceIce", "worker", func(ctx context.Context, _ *SupervisorClient, w *WorkerClient) (any, error) {
		v, err := w.VoiceICE(ctx)
		if v != nil {
			v.Raw = Secret{}
		}
		return v, err
	}, "GET", "/portal/voice/ice", "", 200, `{"iceServers":[]}`, &VoiceICE{ICEServers: []ICEServer{}}},
	{"worker push config on", "worker.pushConfig", "worker", func(ctx context.Context, _ *SupervisorClient, w *WorkerClient) (any, error) {
		return w.PushConfig(ctx)
	}, "GET", "/portal/push/config", "", 200, `{"enabled":true,"publicKey":"BEl6"}`, &PushConfig{Enabled: true, PublicKey: "BEl6"}},
	{"worker subscribe", "worker.pushSubscribe", "worker", func(ctx context.Context, _ *SupervisorClient, w *WorkerClient) (any, error) {
		return w.PushSubscribe(ctx, pushSub)
	}, "POST", "/portal/push/subscriptions", `{"endpoint":"https://push.example/abc","keys":{"p256dh":"BPk3","auth":"au_5ecret"}}`, 200,
		`{"endpoint":"https://push.example/abc","createdAt":"2025-11-21T04:40:00.000Z"}`, &WorkerPushSubscription{Endpoint: "https://push.example/abc", CreatedAt: t0}},
	{"worker unsubscribe", "worker.pushUnsubscribe", "worker", func(ctx context.Context, _ *SupervisorClient, w *WorkerClient) (any, error) {
		return nil, w.PushUnsubscribe(ctx, "https://push.example/abc")
	}, "DELETE", "/portal/push/subscriptions", `{"endpoint":"https://push.example/abc"}`, 204, "", nil},
	{"worker registers a device", "worker.registerDevice", "worker", func(ctx context.Context, _ *SupervisorClient, w *WorkerClient) (any, error) {
		return w.RegisterDevice(ctx, "ExponentPushToken[x]", "ios")
	}, "POST", "/portal/devices", `{"token":"ExponentPushToken[x]","platform":"ios"}`, 200,
		`{"token":"ExponentPushToken[x]","platform":"ios","createdAt":"2025-11-21T04:40:00.000Z"}`, &WorkerDevice{Token: "ExponentPushToken[x]", Platform: "ios", CreatedAt: t0}},
	{"worker unregisters a device", "worker.unregisterDevice", "worker", func(ctx context.Context, _ *SupervisorClient, w *WorkerClient) (any, error) {
		return nil, w.UnregisterDevice(ctx, "ExponentPushToken[x]")
	}, "DELETE", "/portal/devices", `{"token":"ExponentPushToken[x]"}`, 204, "", nil},
}

func TestSupervisorAndPushWire(t *testing.T) {
	for _, tc := range sessionCases {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, tc.status, map[string]string{"Content-Type": "application/json"}, tc.answer)
			var s *SupervisorClient
			if tc.plane == "none" {
				var err error
				s, err = NewSupervisorClient(srv.URL+"/v1", WithMaxRetries(0))
				require.NoError(t, err)
			} else {
				s = signedInSupervisor(t, srv.URL+"/v1", WithMaxRetries(0))
			}
			w, err := NewWorkerClient(srv.URL+"/v1", WithMaxRetries(0))
			require.NoError(t, err)
			w.c.creds.set(testWorkerToken, "agent_1")

			got, err := tc.call(context.Background(), s, w)
			require.NoError(t, err)

			reqs := rec.all()
			require.Len(t, reqs, 1)
			assert.Equal(t, tc.wantMethod, reqs[0].Method)
			assert.Equal(t, tc.wantPath, reqs[0].Path)
			wantAuth := map[string]string{"none": "", "supervisor": "Bearer " + testSupervisorToken, "worker": "Bearer " + testWorkerToken}[tc.plane]
			assert.Equal(t, wantAuth, reqs[0].Header.Get("Authorization"))
			assert.Empty(t, reqs[0].Header.Get("Idempotency-Key"), "the session planes send no idempotency key")
			var wantBody any
			if tc.wantBody != "" {
				wantBody = jsonValue(t, []byte(tc.wantBody))
			}
			diff(t, "request body", wantBody, jsonValue(t, reqs[0].Body))
			checkOperationReached(t, tc.op, checkRequestContract(t, reqs[0]))

			contract, err := wireContract()
			require.NoError(t, err)
			assert.NoError(t, contract.ValidateResponse(tc.op, tc.status, []byte(tc.answer)), "the served answer is not the platform's shape")
			if tc.want != nil {
				diff(t, "decoded answer", tc.want, got)
			}
		})
	}
}

// TestSupervisorAcceptAdoptsSession checks the session a redeemed link leaves
// behind: later calls carry it, and ExpiresAt is the wire's epoch ms.
func TestSupervisorAcceptAdoptsSession(t *testing.T) {
	srv, rec := serveOnce(t, 200, map[string]string{"Content-Type": "application/json"},
		`{"token":"sv_new","expiresAt":1763700000000,"supervisor":{"id":"sup_1"},"workspaceId":"ws_1"}`)
	s, err := NewSupervisorClient(srv.URL + "/v1")
	require.NoError(t, err)
	assert.False(t, s.SignedIn())
	_, err = s.Me(context.Background())
	require.ErrorIs(t, err, ErrNotSignedIn, "no request without a session")
	assert.Empty(t, rec.all())

	_, err = s.AcceptInvite(context.Background(), "svl_link")
	require.NoError(t, err)
	assert.True(t, s.SignedIn())
	assert.Equal(t, time.UnixMilli(1763700000000).UTC(), s.ExpiresAt())
	_, _ = s.Me(context.Background())
	reqs := rec.all()
	require.Len(t, reqs, 2)
	assert.Equal(t, "Bearer sv_new", reqs[1].Header.Get("Authorization"))
}

// TestSupervisorActionsRetryOnlyWhenNotApplied: a supervisor action
// carries no idempotency key, so a 500 (which may come after the change)
// is returned at once even with retries on, while a read is retried; a 503
// with Retry-After (not run) is retried for both.
func TestSupervisorActionsRetryOnlyWhenNotApplied(t *testing.T) {
	tests := []struct {
		name     string
		call     func(ctx context.Context, s *SupervisorClient) error
		attempts int // after a 500, which may come after the change was made
	}{
		{"assign", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.Assign(ctx, "t1", "agent_1", SupervisorAssignParams{})
			return err
		}, 1},
		{"set priority", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.SetPriority(ctx, "t1", 5)
			return err
		}, 1},
		{"unpark", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.Unpark(ctx, "t1", UnparkTaskParams{})
			return err
		}, 1},
		{"set availability", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.SetAvailability(ctx, "agent_1", SupervisorAvailabilityParams{Available: true})
			return err
		}, 1},
		{"unsubscribe", func(ctx context.Context, s *SupervisorClient) error {
			return s.PushUnsubscribe(ctx, "https://push.example/abc")
		}, 1},
		{"accept", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.AcceptInvite(ctx, "svl_link")
			return err
		}, 1},
		{"overview is a read", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.Overview(ctx)
			return err
		}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 500, map[string]string{"Content-Type": "application/json"},
				`{"error":{"code":"internal_error","message":"boom"}}`)
			s := signedInSupervisor(t, srv.URL+"/v1", WithMaxRetries(2), WithRetryWait(time.Millisecond, time.Millisecond))
			err := tc.call(context.Background(), s)
			require.ErrorIs(t, err, ErrServer)
			assert.Len(t, rec.all(), tc.attempts)
		})
		// A 503 with Retry-After says the request was not run: every call
		// is retried, actions included.
		t.Run(tc.name+" after 503 with Retry-After", func(t *testing.T) {
			srv, rec := serveOnce(t, 503, map[string]string{"Content-Type": "application/json", "Retry-After": "0"},
				`{"error":{"code":"service_unavailable","message":"busy"}}`)
			s := signedInSupervisor(t, srv.URL+"/v1", WithMaxRetries(2), WithRetryWait(time.Millisecond, time.Millisecond))
			err := tc.call(context.Background(), s)
			require.ErrorIs(t, err, ErrServer)
			assert.Len(t, rec.all(), 3)
		})
	}
}

// TestSupervisorErrors maps the plane's answers to the sentinels, and a
// link token in a server's message is redacted.
func TestSupervisorErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		call   func(ctx context.Context, s *SupervisorClient) error
		want   error
	}{
		{"spent link", 400, `{"error":{"code":"invalid_token","message":"svl_link is spent"}}`, func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.AcceptInvite(ctx, "svl_link")
			return err
		}, ErrInvalidToken},
		{"out of scope", 403, `{"error":{"code":"forbidden","message":"not your crew"}}`, func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.SetPriority(ctx, "t1", 1)
			return err
		}, ErrForbidden},
		{"blocked", 400, `{"error":{"code":"assign_blocked","message":"worker is paused"}}`, func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.Assign(ctx, "t1", "agent_1", SupervisorAssignParams{})
			return err
		}, ErrAssignBlocked},
		{"no voice", 404, `{"error":{"code":"voice_disabled","message":"off"}}`, func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.VoiceICE(ctx)
			return err
		}, ErrVoiceDisabled},
		{"expired session", 401, `{"error":{"code":"unauthorized","message":"expired"}}`, func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.Me(ctx)
			return err
		}, ErrUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serveOnce(t, tc.status, map[string]string{"Content-Type": "application/json"}, tc.body)
			s := signedInSupervisor(t, srv.URL+"/v1")
			err := tc.call(context.Background(), s)
			require.ErrorIs(t, err, tc.want)
			assert.NotContains(t, err.Error(), "svl_link")
			assert.NotContains(t, err.Error(), testSupervisorToken)
		})
	}
}

// TestSupervisorRefusedBeforeSending: caller mistakes are *ParamError and
// nothing reaches the server.
func TestSupervisorRefusedBeforeSending(t *testing.T) {
	tests := []struct {
		name  string
		call  func(ctx context.Context, s *SupervisorClient) error
		param string
	}{
		{"empty link", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.AcceptInvite(ctx, "")
			return err
		}, "linkToken"},
		{"priority without task", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.SetPriority(ctx, "", 1)
			return err
		}, "taskID"},
		{"priority not finite", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.SetPriority(ctx, "t1", posInf())
			return err
		}, "priority"},
		{"assign without worker", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.Assign(ctx, "t1", "", SupervisorAssignParams{})
			return err
		}, "workerID"},
		{"assign worker id too long", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.Assign(ctx, "t1", strings.Repeat("w", 129), SupervisorAssignParams{})
			return err
		}, "workerID"},
		{"release with available", func(ctx context.Context, s *SupervisorClient) error {
			_, err := s.SetAvailability(ctx, "agent_1", SupervisorAvailabilityParams{Available: true, ReleaseBacklog: true})
			return err
		}, "SupervisorAvailabilityParams.ReleaseBacklog"},
		{"subscribe without auth", func(ctx context.Context, s *SupervisorClient) error {
			return s.PushSubscribe(ctx, PushSubscriptionParams{Endpoint: "https://p", P256dh: "k"})
		}, "PushSubscriptionParams.Auth"},
		{"unsubscribe without endpoint", func(ctx context.Context, s *SupervisorClient) error {
			return s.PushUnsubscribe(ctx, "")
		}, "endpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, `{}`)
			s := signedInSupervisor(t, srv.URL+"/v1")
			err := tc.call(context.Background(), s)
			var pe *ParamError
			require.True(t, errors.As(err, &pe), "got %v", err)
			assert.Equal(t, tc.param, pe.Param)
			assert.Empty(t, rec.all())
		})
	}
	s, err := NewSupervisorClient("http://127.0.0.1:1/v1")
	require.NoError(t, err)
	for _, bad := range []string{"", "wt_x", "sk_test_x", "sv_a b"} {
		assert.ErrorIs(t, s.SetSession(bad, time.Time{}), ErrInvalidParams, "%q", bad)
	}
}

func posInf() float64 { return math.Inf(1) }

// TestSupervisorSecretsNeverPrinted: the session token, a subscription's
// auth secret and a TURN credential appear under no fmt verb and in no
// slog output.
func TestSupervisorSecretsNeverPrinted(t *testing.T) {
	s := signedInSupervisor(t, "http://127.0.0.1:1/v1")
	ice := ICEServer{URLs: []string{"turn:t"}, Username: "u", Credential: NewSecret("turn_5ecret")}
	values := map[string]any{"client": s, "client value": *s, "subscription": pushSub, "ice": ice, "in a struct": struct{ S *SupervisorClient }{s}}
	secrets := []string{testSupervisorToken, pushSub.Auth.Reveal(), ice.Credential.Reveal()}
	for name, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%T"} {
			out := fmt.Sprintf(verb, v)
			for _, secret := range secrets {
				assert.NotContains(t, out, secret, "%s under %s", name, verb)
				assert.NotContains(t, out, fmt.Sprintf("%x", secret), "%s under %s (hex)", name, verb)
			}
		}
	}
	var sb syncBuffer
	debugLogger(&sb).Info("state", "client", s, "subscription", pushSub, "ice", ice)
	for _, secret := range secrets {
		assert.NotContains(t, sb.String(), secret)
	}
	assert.Contains(t, s.String(), "signedIn: true")
}
