package taskrouting

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const identityWire = `{"id":"wid_1","workerId":"agent_1","label":"Ada","email":"ada@example.com","status":"active","hasPin":false,
	"activatedAt":null,"createdAt":"2025-11-21T04:40:00.000Z","revokedAt":null}`

var identityDecoded = WorkerIdentity{ID: "wid_1", WorkerID: "agent_1", Label: "Ada", Email: "ada@example.com", Status: "active", CreatedAt: t0}

const inviteWire = `{"identity":` + identityWire + `,"workerCreated":true,"emailStatus":"mailer_unconfigured",
	"inviteUrl":"https://app.example/v1/worker-auth/invite?token=inv_t0k"}`

const joinLinkWire = `{"id":"jl_1","label":"Warehouse","teamId":null,"tags":["warehouse"],"requiresApproval":true,"maxUses":null,
	"useCount":7,"status":"active","createdAt":"2025-11-21T04:40:00.000Z","expiresAt":"2025-11-21T05:40:00.000Z","revokedAt":null}`

var joinLinkDecoded = JoinLink{ID: "jl_1", Label: "Warehouse", Status: "active", Tags: []string{"warehouse"}, RequiresApproval: true,
	UseCount: 7, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}

// onboardingWireCases are the onboarding calls of both planes on the wire: the request each
// sends (held to api/openapi.json) and how it decodes the platform's answer.
var onboardingWireCases = []struct {
	name, op, plane      string // plane: "workspace", "worker" or "none" (sent without a token)
	call                 func(ctx context.Context, c *Client, w *WorkerClient) (any, error)
	wantMethod, wantPath string
	wantBody             string // "" for none
	status               int
	answer               string
	want                 any
}{
	{"identities list", "identities.list", "workspace", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Workers.ListIdentities(ctx)
	}, "GET", "/worker-identities", "", 200, `{"identities":[` + identityWire + `]}`, []WorkerIdentity{identityDecoded}},
	{"invite sends only what is set", "identities.invite", "workspace", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Workers.Invite(ctx, InviteParams{Email: "ada@example.com", Label: "Ada", Skills: []SkillAssignment{{SkillID: "sk_1", Level: 3}}})
	}, "POST", "/worker-identities/invite", `{"email":"ada@example.com","label":"Ada","skills":[{"skillId":"sk_1","level":3}]}`, 200, inviteWire,
		&Invite{Identity: identityDecoded, WorkerCreated: true, EmailStatus: "mailer_unconfigured", InviteURL: NewSecret("https://app.example/v1/worker-auth/invite?token=inv_t0k")}},
	{"resend needs no body", "identities.resendInvite", "workspace", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Workers.ResendInvite(ctx, "agent 1")
	}, "POST", "/worker-identities/agent%201/invite/resend", "", 200, inviteWire,
		&Invite{Identity: identityDecoded, WorkerCreated: true, EmailStatus: "mailer_unconfigured", InviteURL: NewSecret("https://app.example/v1/worker-auth/invite?token=inv_t0k")}},
	{"update erases the email with null", "identities.update", "workspace", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Workers.UpdateIdentity(ctx, "agent_1", UpdateIdentityParams{Email: Null[string](), Status: "revoked"})
	}, "PATCH", "/workers/agent_1/identity", `{"email":null,"status":"revoked"}`, 200, `{"identity":` + identityWire + `}`, &identityDecoded},
	{"join link create", "joinLinks.create", "workspace", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.JoinLinks.Create(ctx, CreateJoinLinkParams{Label: "Warehouse", Tags: []string{"warehouse"}, RequiresApproval: true, MaxUses: 25, ExpiresIn: time.Hour})
	}, "POST", "/join-links", `{"label":"Warehouse","tags":["warehouse"],"requiresApproval":true,"maxUses":25,"expiresInMs":3600000}`, 200,
		`{"link":` + joinLinkWire + `,"joinUrl":"https://app.example/join/jt_abc"}`, &CreatedJoinLink{Link: joinLinkDecoded, JoinURL: NewSecret("https://app.example/join/jt_abc")}},
	{"join links list keeps an uncapped link nil", "joinLinks.list", "workspace", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.JoinLinks.List(ctx)
	}, "GET", "/join-links", "", 200, `{"links":[` + joinLinkWire + `]}`, []JoinLink{joinLinkDecoded}},
	{"join link revoke", "joinLinks.revoke", "workspace", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return nil, c.JoinLinks.Revoke(ctx, "jl_1")
	}, "DELETE", "/join-links/jl_1", "", 204, "", nil},
	{"portal without a bundle", "portal", "workspace", func(ctx context.Context, c *Client, _ *WorkerClient) (any, error) {
		return c.Portal(ctx)
	}, "GET", "/portal", "", 200, `{"portalEnabled":true,"portalUrl":"https://app.example/portal/ws_1/","exists":false,"version":null,"template":null,"publishedAt":null}`,
		&PortalLink{PortalEnabled: true, PortalURL: "https://app.example/portal/ws_1/"}},
	{"refresh rotates in place", "worker.refresh", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		ok, err := w.Refresh(ctx)
		s := w.Session()
		return []any{ok, s.Token(), s.ExpiresAt}, err
	}, "POST", "/worker-auth/refresh", "", 200, `{"token":"wt_rotated","expiresAt":"2025-11-21T04:40:00.000Z"}`, []any{true, "wt_rotated", t0}},
	{"join adopts the server-made worker", "worker.join", "none", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		j, err := w.Join(ctx, JoinParams{Token: NewSecret("jt_abc"), Name: "Ada", PIN: NewSecret("4821")})
		return []any{j, sessionOf(w)}, err
	}, "POST", "/worker-auth/join", `{"token":"jt_abc","name":"Ada","pin":"4821"}`, 200,
		`{"token":"wt_new","expiresAt":"2025-11-21T04:40:00.000Z","workspaceId":"ws_1","workerId":"agent_9","label":"Ada","pendingApproval":true,"portalUrl":"https://app.example/portal/ws_1/"}`,
		[]any{&JoinedWorker{WorkspaceID: "ws_1", WorkerID: "agent_9", Label: "Ada", PendingApproval: true, PortalURL: "https://app.example/portal/ws_1/", ExpiresAt: t0},
			session{"wt_new", "agent_9"}}},
	{"accept invite signs in", "worker.acceptInvite", "none", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		j, err := w.AcceptInvite(ctx, AcceptInviteParams{Token: NewSecret("inv_t0k"), PIN: NewSecret("4821")})
		return []any{j, sessionOf(w)}, err
	}, "POST", "/worker-auth/accept-invite", `{"token":"inv_t0k","pin":"4821"}`, 200,
		`{"token":"wt_invited","workspaceId":"ws_1","workerId":"agent_1"}`,
		[]any{&JoinedWorker{WorkspaceID: "ws_1", WorkerID: "agent_1"}, session{"wt_invited", "agent_1"}}},
	{"change PIN keeps the session", "worker.changePin", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		err := w.ChangePIN(ctx, ChangePINParams{CurrentPIN: NewSecret("1111"), NewPIN: NewSecret("4821")})
		return sessionOf(w), err
	}, "POST", "/portal/me/pin", `{"currentPin":"1111","newPin":"4821"}`, 204, "", session{testWorkerToken, "agent_1"}},
	{"preferences", "worker.setLocale", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.SetPreferences(ctx, WorkerPreferencesParams{Locale: Null[string](), EmailNotices: Ptr(false)})
	}, "PATCH", "/portal/me", `{"locale":null,"emailNotices":false}`, 200, `{"workerId":"agent_1","locale":null,"emailNotices":false}`,
		&WorkerPreferences{WorkerID: "agent_1"}},
	{"skill catalog", "worker.skillCatalog", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.SkillCatalog(ctx)
	}, "GET", "/portal/skills", "", 200, `{"skills":[{"id":"sk_1","key":"welsh","name":"Welsh","createdAt":"2025-11-21T04:40:00.000Z"}]}`,
		[]Skill{{ID: "sk_1", Key: "welsh", Name: "Welsh", CreatedAt: t0}}},
	{"set skills replaces the set", "worker.setSkills", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.SetSkills(ctx, []SkillLevel{{SkillID: "sk_1", Level: 4}})
	}, "PUT", "/portal/me/skills", `{"skills":[{"skillId":"sk_1","level":4}]}`, 200,
		`{"workerId":"agent_1","skills":[{"skillId":"sk_1","key":"welsh","name":"Welsh","level":4,"weightOverride":null,"weight":80}]}`,
		&WorkerSkills{WorkerID: "agent_1", Skills: []WorkerSkill{{SkillID: "sk_1", Key: "welsh", Name: "Welsh", Level: 4, Weight: 80}}}},
	{"set no skills sends an empty list", "worker.setSkills", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.SetSkills(ctx, nil)
	}, "PUT", "/portal/me/skills", `{"skills":[]}`, 200, `{"workerId":"agent_1","skills":[]}`, &WorkerSkills{WorkerID: "agent_1", Skills: []WorkerSkill{}}},
	{"location", "worker.updateLocation", "worker", func(ctx context.Context, _ *Client, w *WorkerClient) (any, error) {
		return w.UpdateLocation(ctx, 59.4, 24.7)
	}, "POST", "/portal/workers/me/location", `{"latitude":59.4,"longitude":24.7}`, 200, `{"workerId":"agent_1","latitude":59.4,"longitude":24.7}`,
		&WorkerLocation{WorkerID: "agent_1", Latitude: 59.4, Longitude: 24.7}},
}

func TestOnboardingWire(t *testing.T) {
	for _, tc := range onboardingWireCases {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, tc.status, map[string]string{"Content-Type": "application/json"}, tc.answer)
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
			if tc.plane == "worker" {
				signIn(w)
			}

			got, err := tc.call(context.Background(), c, w)
			require.NoError(t, err)

			reqs := rec.all()
			require.Len(t, reqs, 1)
			assert.Equal(t, tc.wantMethod+" "+tc.wantPath, reqs[0].Method+" "+reqs[0].Path)
			wantAuth := map[string]string{"workspace": "Bearer " + testKey, "worker": "Bearer " + testWorkerToken, "none": ""}[tc.plane]
			assert.Equal(t, wantAuth, reqs[0].Header.Get("Authorization"))
			if tc.plane != "workspace" {
				assert.Empty(t, reqs[0].Header.Get("Idempotency-Key"), "the worker plane takes no idempotency key")
			}
			var wantBody any
			if tc.wantBody != "" {
				wantBody = jsonValue(t, []byte(tc.wantBody))
			}
			diff(t, "request body", wantBody, jsonValue(t, reqs[0].Body))
			checkOperationReached(t, tc.op, checkRequestContract(t, reqs[0]))

			contract, err := wireContract()
			require.NoError(t, err)
			if tc.answer != "" {
				assert.NoError(t, contract.ValidateResponse(tc.op, tc.status, []byte(tc.answer)), "the served answer is not the platform's shape")
			}
			if tc.want != nil {
				diff(t, "decoded answer", tc.want, got)
			}
		})
	}
}

// TestOnboardingRefusedBeforeSending: input the platform would refuse is a *ParamError and
// nothing reaches the server.
func TestOnboardingRefusedBeforeSending(t *testing.T) {
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client, w *WorkerClient) error
		param string
	}{
		{"invite without email", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Invite(ctx, InviteParams{})
			return err
		}, "InviteParams.Email"},
		{"invite with a display name", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Invite(ctx, InviteParams{Email: "Ada <ada@example.com>"})
			return err
		}, "InviteParams.Email"},
		{"invite skill level 6", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.Invite(ctx, InviteParams{Email: "a@example.com", Skills: []SkillAssignment{{SkillID: "s", Level: 6}}})
			return err
		}, "InviteParams.Skills[0].Level"},
		{"resend without id", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.ResendInvite(ctx, "")
			return err
		}, "workerID"},
		{"update nothing", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.UpdateIdentity(ctx, "agent_1", UpdateIdentityParams{})
			return err
		}, "UpdateIdentityParams"},
		{"update short PIN", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.UpdateIdentity(ctx, "agent_1", UpdateIdentityParams{PIN: NewSecret("123")})
			return err
		}, "UpdateIdentityParams.PIN"},
		{"update unknown status", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.Workers.UpdateIdentity(ctx, "agent_1", UpdateIdentityParams{Status: "paused"})
			return err
		}, "UpdateIdentityParams.Status"},
		{"join link without label", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.JoinLinks.Create(ctx, CreateJoinLinkParams{})
			return err
		}, "CreateJoinLinkParams.Label"},
		{"join link living 30 s", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.JoinLinks.Create(ctx, CreateJoinLinkParams{Label: "x", ExpiresIn: 30 * time.Second})
			return err
		}, "CreateJoinLinkParams.ExpiresIn"},
		{"join link 10001 uses", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			_, err := c.JoinLinks.Create(ctx, CreateJoinLinkParams{Label: "x", MaxUses: 10_001})
			return err
		}, "CreateJoinLinkParams.MaxUses"},
		{"revoke dot segment", func(ctx context.Context, c *Client, _ *WorkerClient) error {
			return c.JoinLinks.Revoke(ctx, "..")
		}, "linkID"},
		{"join with a short PIN", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.Join(ctx, JoinParams{Token: NewSecret("jt"), Name: "Ada", PIN: NewSecret("12")})
			return err
		}, "JoinParams.PIN"},
		{"accept without token", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.AcceptInvite(ctx, AcceptInviteParams{PIN: NewSecret("4821")})
			return err
		}, "AcceptInviteParams.Token"},
		{"new PIN too short", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			return w.ChangePIN(ctx, ChangePINParams{CurrentPIN: NewSecret("4821"), NewPIN: NewSecret("1")})
		}, "ChangePINParams.NewPIN"},
		{"skill level 0", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.SetSkills(ctx, []SkillLevel{{SkillID: "sk_1"}})
			return err
		}, "skills[0].Level"},
		{"latitude 91", func(ctx context.Context, _ *Client, w *WorkerClient) error {
			_, err := w.UpdateLocation(ctx, 91, 0)
			return err
		}, "latitude"},
		{"resume with a spaced token", func(_ context.Context, _ *Client, w *WorkerClient) error {
			return w.Resume("agent_1", "wt_a b", time.Time{})
		}, "token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, http.StatusOK, nil, "{}")
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
			signIn(w)
			err := tc.call(context.Background(), c, w)
			var pe *ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.param, pe.Param)
			assert.Empty(t, rec.all(), "a refused call reached the server")
		})
	}
}

// TestRefreshOutcomes: a 4xx means "sign in again" (false, nil, token kept), a 5xx is an
// error that leaves the token usable, signed out sends nothing.
func TestRefreshOutcomes(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		answer    string
		wantOK    bool
		wantErr   error
		wantToken string
	}{
		{"rotated", 200, `{"token":"wt_new"}`, true, nil, "wt_new"},
		{"expired", 401, `{"error":{"code":"unauthorized","message":"expired"}}`, false, nil, testWorkerToken},
		{"rate limited is no reason to sign in again", 429, `{"error":{"code":"rate_limited","message":"slow down"}}`, false, ErrRateLimited, testWorkerToken},
		{"server down", 503, `{"error":{"code":"service_unavailable","message":"down"}}`, false, ErrServer, testWorkerToken},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serveOnce(t, tc.status, map[string]string{"Content-Type": "application/json"}, tc.answer)
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0))
			signIn(w)
			ok, err := w.Refresh(context.Background())
			assert.Equal(t, tc.wantOK, ok)
			if tc.wantErr == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tc.wantErr)
			}
			assert.Equal(t, tc.wantToken, w.Session().Token())
		})
	}
	srv, rec := serveOnce(t, 200, nil, `{"token":"wt_x"}`)
	w := newTestWorkerClient(t, srv.URL+"/v1")
	ok, err := w.Refresh(context.Background())
	assert.False(t, ok)
	assert.NoError(t, err)
	assert.Empty(t, rec.all(), "signed out, a refresh sends nothing")
}

// TestAutoRefreshWindow: a client refreshes before a call only in the last fifth of the
// session's life, and not after it ended.
func TestAutoRefreshWindow(t *testing.T) {
	issued := t0
	tests := []struct {
		name        string
		at          time.Duration // since the session was adopted; it lives 100 minutes
		wantRefresh bool
	}{
		{"early", 10 * time.Minute, false},
		{"just before the last fifth", 79 * time.Minute, false},
		{"in the last fifth", 80 * time.Minute, true},
		{"a minute left", 99 * time.Minute, true},
		{"expired", 100 * time.Minute, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := issued
			srv, rec := serveOnce(t, 200, map[string]string{"Content-Type": "application/json"}, `{"token":"wt_new","expiresAt":"2025-11-21T08:00:00.000Z"}`)
			w := newTestWorkerClient(t, srv.URL+"/v1", WithMaxRetries(0), WithClock(func() time.Time { return now }))
			require.NoError(t, w.Resume("agent_1", testWorkerToken, issued.Add(100*time.Minute)))
			now = issued.Add(tc.at)
			_, _ = w.Me(context.Background())
			var paths []string
			for _, r := range rec.all() {
				paths = append(paths, r.Method+" "+r.Path)
			}
			want := []string{"GET /portal/me"}
			if tc.wantRefresh {
				want = []string{"POST /worker-auth/refresh", "GET /portal/me"}
			}
			assert.Equal(t, want, paths)
		})
	}
}

// TestLinkToken reads the token of the platform's invite and join URLs.
func TestLinkToken(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://app.example/v1/worker-auth/invite?token=inv_t0k", "inv_t0k"},
		{"https://app.example/join/jt_abc", "jt_abc"},
		{"http://127.0.0.1:5/join/jt_a%2Fb", "jt_a/b"},
	}
	for _, tc := range tests {
		got, err := LinkToken(NewSecret(tc.in))
		require.NoError(t, err)
		assert.Equal(t, tc.want, got.Reveal())
	}
	for _, bad := range []string{"https://app.example/", "::not a url"} {
		_, err := LinkToken(NewSecret(bad))
		require.Error(t, err)
		assert.NotContains(t, err.Error(), strings.TrimPrefix(bad, "https://"))
	}
}
