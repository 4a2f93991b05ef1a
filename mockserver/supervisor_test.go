package mockserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// supervise invites a supervisor and redeems the link with a fresh client.
func supervise(t *testing.T, srv *mockserver.Server, in mockserver.SupervisorInvite) (*taskrouting.SupervisorClient, mockserver.SupervisorLink) {
	t.Helper()
	link, err := srv.InviteSupervisor(in)
	require.NoError(t, err)
	s, err := taskrouting.NewSupervisorClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = s.AcceptInvite(context.Background(), link.Token)
	require.NoError(t, err)
	return s, link
}

func supervisorEvents(evs []mockserver.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Kind)+" "+e.TaskID+" "+e.WorkerID)
	}
	return out
}

// TestSupervisorSession: a link is single-use, every failure is one answer, the session
// lasts 12 hours on the server's clock, and logout ends it.
func TestSupervisorSession(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	ctx := context.Background()

	entry, err := mustSupervisorClient(t, srv).Entry(ctx)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.SupervisorEntry{}, entry, "the mock has no console")

	link, err := srv.InviteSupervisor(mockserver.SupervisorInvite{Label: "Dana", Email: "dana@example.com"})
	require.NoError(t, err)
	assert.NotContains(t, link.String(), link.Token)
	s := mustSupervisorClient(t, srv)
	sess, err := s.AcceptInvite(ctx, link.Token)
	require.NoError(t, err)
	if d := cmp.Diff(&taskrouting.SupervisorSession{
		Supervisor:  taskrouting.SupervisorIdentity{ID: link.SupervisorID, Label: "Dana", Email: "dana@example.com"},
		WorkspaceID: srv.WorkspaceID(), ExpiresAt: t0.Add(12 * time.Hour),
	}, sess); d != "" {
		t.Errorf("session (-want +got):\n%s", d)
	}
	me, err := s.Me(ctx)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.SupervisorProfile{SupervisorID: link.SupervisorID, Label: "Dana", Email: "dana@example.com", WorkspaceID: srv.WorkspaceID()}, me)
	links := srv.SupervisorLinks()
	require.Len(t, links, 1)
	assert.True(t, t0.Equal(links[0].RedeemedAt))

	// Used, unknown and expired links are one answer.
	expiring, err := srv.InviteSupervisor(mockserver.SupervisorInvite{})
	require.NoError(t, err)
	clk.Advance(7*24*time.Hour + time.Millisecond)
	for name, token := range map[string]string{"used": link.Token, "unknown": "svl_nope", "expired": expiring.Token} {
		_, err := mustSupervisorClient(t, srv).AcceptInvite(ctx, token)
		var apiErr *taskrouting.APIError
		require.ErrorAs(t, err, &apiErr, name)
		assert.Equal(t, 400, apiErr.StatusCode, name)
		assert.Equal(t, taskrouting.CodeInvalidToken, apiErr.Code, name)
		assert.Equal(t, "the link is invalid, used or expired; ask for a new one", apiErr.Message, name)
	}
	_, err = s.Me(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized, "the session lapsed after 12 hours")

	fresh, _ := supervise(t, srv, mockserver.SupervisorInvite{})
	require.NoError(t, fresh.Logout(ctx))
	assert.False(t, fresh.SignedIn())
	require.NoError(t, fresh.SetSession(sessTokenOf(t, srv, ctx), time.Time{}))
	_, err = fresh.Me(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized)
}

// sessTokenOf redeems a new link over raw HTTP and returns the session token, then logs it
// out, so the token is a revoked one.
func sessTokenOf(t *testing.T, srv *mockserver.Server, ctx context.Context) string {
	t.Helper()
	link, err := srv.InviteSupervisor(mockserver.SupervisorInvite{})
	require.NoError(t, err)
	var out struct{ Token string }
	svPost(t, srv.URL()+"/supervisor-auth/accept", "", map[string]string{"token": link.Token}, 200, &out)
	svPost(t, srv.URL()+"/supervisor-auth/logout", out.Token, nil, 204, nil)
	return out.Token
}

func mustSupervisorClient(t *testing.T, srv *mockserver.Server) *taskrouting.SupervisorClient {
	t.Helper()
	s, err := taskrouting.NewSupervisorClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	return s
}

// TestSupervisorBoardAndActions: the board is computed from the workspace's state, and the
// actions emit the events the workspace plane's calls emit.
func TestSupervisorBoardAndActions(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk))
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	for _, id := range []string{"agent_1", "agent_2"} {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"english"}, Available: taskrouting.Ptr(true), MaxBacklogSize: taskrouting.Ptr(1)})
		require.NoError(t, err)
	}
	for _, id := range []string{"t1", "t2", "t3"} {
		_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: id, Tags: []string{"english"}})
		require.NoError(t, err)
		clk.Advance(10 * time.Second)
	}
	s, _ := supervise(t, srv, mockserver.SupervisorInvite{})

	board, err := s.Overview(ctx)
	require.NoError(t, err)
	board.Raw = nil
	if d := cmp.Diff(&taskrouting.SupervisorBoard{
		Counts: taskrouting.BoardCounts{Queued: 1, Pending: 2, OldestWait: 10 * time.Second},
		Crew:   []taskrouting.CrewMember{{WorkerID: "agent_1", Backlog: 1, Available: true}, {WorkerID: "agent_2", Backlog: 1, Available: true}},
	}, board); d != "" {
		t.Errorf("board (-want +got):\n%s", d)
	}

	before := len(srv.Events())
	// Priority: the workspace plane's call, same events (none for a queued task).
	pr, err := s.SetPriority(ctx, "t3", 50)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TaskPriority{ID: "t3", Priority: 50}, pr)
	got, err := c.Tasks.Get(ctx, "t3")
	require.NoError(t, err)
	assert.Equal(t, 50.0, got.Priority)

	// Pausing agent_2 and releasing its offer requeues t2; t3 (priority 50) still waits.
	av, err := s.SetAvailability(ctx, "agent_2", taskrouting.SupervisorAvailabilityParams{ReleaseBacklog: true})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.SupervisorAvailability{WorkerID: "agent_2", ReleasedTaskIDs: []string{"t2"}}, av)
	kept, err := s.SetAvailability(ctx, "agent_1", taskrouting.SupervisorAvailabilityParams{Available: true})
	require.NoError(t, err)
	assert.Equal(t, []string{}, kept.ReleasedTaskIDs)

	// agent_1 is full (cap 1): assign is blocked until forced; a forced assign moves t3.
	_, err = s.Assign(ctx, "t3", "agent_1", taskrouting.SupervisorAssignParams{})
	assert.ErrorIs(t, err, taskrouting.ErrAssignBlocked)
	_, err = s.Assign(ctx, "t3", "agent_2", taskrouting.SupervisorAssignParams{})
	assert.ErrorIs(t, err, taskrouting.ErrAssignBlocked, "agent_2 is paused")
	as, err := s.Assign(ctx, "t3", "agent_1", taskrouting.SupervisorAssignParams{Force: true})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.SupervisorAssignment{ID: "t3", WorkerID: "agent_1", Status: "pending"}, as)
	q, err := c.Workers.Queue(ctx, "agent_1")
	require.NoError(t, err)
	assert.Equal(t, []string{"t1", "t3"}, q.TaskIDs)

	assert.Equal(t, []string{"task.released t2 agent_2", "task.matched t3 agent_1"}, supervisorEvents(srv.Events()[before:]),
		"the events of workers.setAvailability and tasks.assign")

	// Terminal tasks and unknown ids.
	_, err = c.Decisions.Accept(ctx, "t1", "agent_1")
	require.NoError(t, err)
	_, err = c.Decisions.Complete(ctx, "t1", "agent_1", nil)
	require.NoError(t, err)
	_, err = s.SetPriority(ctx, "t1", 1)
	assert.ErrorIs(t, err, taskrouting.ErrInvalidState)
	_, err = s.SetPriority(ctx, "nope", 1)
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
	_, err = s.Assign(ctx, "t2", "nobody", taskrouting.SupervisorAssignParams{Force: true})
	assert.ErrorIs(t, err, taskrouting.ErrNotFound, "force never skips worker existence")

	clk.Advance(5 * time.Second)
	board, err = s.Overview(ctx)
	require.NoError(t, err)
	assert.Equal(t, taskrouting.BoardCounts{Queued: 1, Pending: 1, OldestWait: 25 * time.Second}, board.Counts,
		"t2 keeps its first-queued time across the release")
	assert.Equal(t, []taskrouting.CrewMember{{WorkerID: "agent_1", Backlog: 1, Available: true}, {WorkerID: "agent_2", Backlog: 0, Available: false}}, board.Crew)
}

// TestSupervisorTeamScope: a team supervisor sees and acts on the team's members and the
// tasks addressed to the team; everything else of the workspace is 403, another
// workspace's ids are 404.
func TestSupervisorTeamScope(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t, mockserver.WithExtraAPIKey("sk_test_other_workspace_key"))
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing"})
	require.NoError(t, err)
	for _, id := range []string{"in_1", "out_1"} {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"english", team.Tag}, MaxBacklogSize: taskrouting.Ptr(0)})
		require.NoError(t, err)
		_, err = c.Workers.SetAvailability(ctx, id, taskrouting.SetAvailabilityParams{Available: true})
		require.NoError(t, err)
	}
	_, err = c.Teams.SetMembers(ctx, team.ID, []string{"in_1"})
	require.NoError(t, err)
	for id, tags := range map[string][]string{"team_task": {"english", team.Tag}, "other_task": {"english"}} {
		_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: id, Tags: tags})
		require.NoError(t, err)
	}
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "by_team_id", Tags: []string{"english"}, TeamID: team.ID})
	require.NoError(t, err)
	other := newClient(t, srv, "sk_test_other_workspace_key")
	_, err = other.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "foreign", Tags: []string{"english"}})
	require.NoError(t, err)
	_, err = other.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "foreign_w"})
	require.NoError(t, err)

	_, err = srv.InviteSupervisor(mockserver.SupervisorInvite{TeamID: "team_nope"})
	assert.Error(t, err, "an unknown team")
	s, _ := supervise(t, srv, mockserver.SupervisorInvite{TeamID: team.ID})
	me, err := s.Me(ctx)
	require.NoError(t, err)
	assert.Equal(t, "billing", me.TeamKey)
	board, err := s.Overview(ctx)
	require.NoError(t, err)
	assert.Equal(t, "billing", board.TeamKey)
	assert.Equal(t, 2, board.Counts.Queued, "team_task and by_team_id")
	assert.Equal(t, []taskrouting.CrewMember{{WorkerID: "in_1", Available: true}}, board.Crew)

	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"priority on the team's task", func() error { _, err := s.SetPriority(ctx, "team_task", 3); return err }, nil},
		{"priority on a task named by teamId", func() error { _, err := s.SetPriority(ctx, "by_team_id", 3); return err }, nil},
		{"priority outside the team", func() error { _, err := s.SetPriority(ctx, "other_task", 3); return err }, taskrouting.ErrForbidden},
		{"assign to a worker outside the team", func() error {
			_, err := s.Assign(ctx, "team_task", "out_1", taskrouting.SupervisorAssignParams{Force: true})
			return err
		}, taskrouting.ErrForbidden},
		{"assign a task outside the team", func() error {
			_, err := s.Assign(ctx, "other_task", "in_1", taskrouting.SupervisorAssignParams{Force: true})
			return err
		}, taskrouting.ErrForbidden},
		{"pause a worker outside the team", func() error {
			_, err := s.SetAvailability(ctx, "out_1", taskrouting.SupervisorAvailabilityParams{})
			return err
		}, taskrouting.ErrForbidden},
		{"another workspace's task", func() error { _, err := s.SetPriority(ctx, "foreign", 3); return err }, taskrouting.ErrNotFound},
		{"another workspace's worker", func() error {
			_, err := s.SetAvailability(ctx, "foreign_w", taskrouting.SupervisorAvailabilityParams{})
			return err
		}, taskrouting.ErrNotFound},
		{"assign within the team", func() error {
			_, err := s.Assign(ctx, "team_task", "in_1", taskrouting.SupervisorAssignParams{Force: true})
			return err
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tc.want)
		})
	}
	for _, id := range []string{"other_task", "foreign"} {
		task, err := c.Tasks.Get(ctx, id)
		if err == nil {
			assert.Equal(t, 0.0, task.Priority, "a refused action changed nothing")
		}
	}
}

// TestSupervisorCrossPlane: each plane's credential is refused on the other planes, with the
// answers the platform gives an unknown credential.
func TestSupervisorCrossPlane(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1"})
	require.NoError(t, err)
	_, err = c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)
	var login struct{ Token string }
	svPost(t, srv.URL()+"/worker-auth/login", "", map[string]string{"workspaceId": srv.WorkspaceID(), "workerId": "agent_1", "pin": "4921"}, 200, &login)
	link, err := srv.InviteSupervisor(mockserver.SupervisorInvite{})
	require.NoError(t, err)
	var sess struct{ Token string }
	svPost(t, srv.URL()+"/supervisor-auth/accept", "", map[string]string{"token": link.Token}, 200, &sess)

	creds := map[string]string{"api key": srv.APIKey(), "worker token": login.Token, "supervisor token": sess.Token, "none": ""}
	routes := []struct {
		plane, method, path string
		body                any
	}{
		{"supervisor", "GET", "/supervisor/me", nil},
		{"supervisor", "GET", "/supervisor/overview", nil},
		{"supervisor", "POST", "/supervisor/tasks/t1/priority", map[string]any{"priority": 1}},
		{"supervisor", "POST", "/supervisor/tasks/t1/assign", map[string]any{"workerId": "agent_1"}},
		{"supervisor", "POST", "/supervisor/workers/agent_1/availability", map[string]any{"available": true}},
		{"supervisor", "GET", "/supervisor/voice/ice", nil},
		{"supervisor", "GET", "/supervisor/push/config", nil},
		{"supervisor", "POST", "/supervisor/push/subscriptions", map[string]any{"endpoint": "https://p", "keys": map[string]string{"p256dh": "k", "auth": "a"}}},
		{"supervisor", "DELETE", "/supervisor/push/subscriptions", map[string]any{"endpoint": "https://p"}},
		{"supervisor", "POST", "/supervisor-auth/logout", nil},
		{"worker", "GET", "/portal/me", nil},
		{"worker", "GET", "/portal/push/config", nil},
		{"worker", "GET", "/portal/voice/ice", nil},
		{"worker", "POST", "/portal/devices", map[string]any{"token": "x", "platform": "ios"}},
		{"worker", "POST", "/portal/push/subscriptions", map[string]any{"endpoint": "https://p", "keys": map[string]string{"p256dh": "k", "auth": "a"}}},
		{"worker", "DELETE", "/portal/push/subscriptions", map[string]any{"endpoint": "https://p"}},
		{"worker", "DELETE", "/portal/devices", map[string]any{"token": "x"}},
		{"worker", "POST", "/portal/me/availability", map[string]any{"available": true}},
		{"workspace", "GET", "/workers", nil},
		{"workspace", "PATCH", "/tasks/t1", map[string]any{"priority": 1}},
		{"workspace", "POST", "/workers/agent_1/availability", map[string]any{"available": true}},
	}
	own := map[string]string{"supervisor": "supervisor token", "worker": "worker token", "workspace": "api key"}
	for _, rt := range routes {
		for name, cred := range creds {
			if name == own[rt.plane] {
				continue
			}
			t.Run(rt.method+" "+rt.path+" with "+name, func(t *testing.T) {
				status, code := svCall(t, rt.method, srv.URL()+rt.path, cred, rt.body)
				assert.Equal(t, http.StatusUnauthorized, status)
				assert.Equal(t, "unauthorized", code)
			})
		}
	}
	// The sessions still work after all that.
	svPost(t, srv.URL()+"/supervisor-auth/logout", sess.Token, nil, 204, nil)
}

// TestSessionPlanePush: subscriptions and devices are stored (and replaced, and dropped)
// but never delivered; a supervisor's go with its session.
func TestSessionPlanePush(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	clk := mockserver.NewManualClock(t0)
	srv := mockserver.Start(t, mockserver.WithClock(clk), mockserver.WithPushPublicKey("BEl6_vapid"),
		mockserver.WithVoiceICEServers(json.RawMessage(`[{"urls":"stun:stun.example:3478"}]`)))
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1"})
	require.NoError(t, err)
	_, err = c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)
	w, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)
	s, link := supervise(t, srv, mockserver.SupervisorInvite{})

	cfg, err := w.PushConfig(ctx)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.PushConfig{Enabled: true, PublicKey: "BEl6_vapid"}, cfg)
	ice, err := s.VoiceICE(ctx)
	require.NoError(t, err)
	assert.Equal(t, []taskrouting.ICEServer{{URLs: []string{"stun:stun.example:3478"}}}, ice.ICEServers)

	sub := taskrouting.PushSubscriptionParams{Endpoint: "https://push.example/w", P256dh: "k", Auth: taskrouting.NewSecret("a")}
	ws, err := w.PushSubscribe(ctx, sub)
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.WorkerPushSubscription{Endpoint: sub.Endpoint, CreatedAt: t0}, ws)
	clk.Advance(time.Minute)
	ws, err = w.PushSubscribe(ctx, sub)
	require.NoError(t, err)
	assert.True(t, t0.Equal(ws.CreatedAt), "subscribing again keeps one entry")
	dev, err := w.RegisterDevice(ctx, "ExponentPushToken[x]", "ios")
	require.NoError(t, err)
	assert.Equal(t, "ios", dev.Platform)
	require.NoError(t, s.PushSubscribe(ctx, taskrouting.PushSubscriptionParams{Endpoint: "https://push.example/s", P256dh: "k", Auth: taskrouting.NewSecret("a")}))

	want := []mockserver.PushRegistration{
		{WorkspaceID: srv.WorkspaceID(), Plane: "worker", OwnerID: "agent_1", Kind: "web", Endpoint: "https://push.example/w", CreatedAt: t0},
		{WorkspaceID: srv.WorkspaceID(), Plane: "worker", OwnerID: "agent_1", Kind: "device", Token: "ExponentPushToken[x]", Platform: "ios", CreatedAt: t0.Add(time.Minute)},
		{WorkspaceID: srv.WorkspaceID(), Plane: "supervisor", OwnerID: link.SupervisorID, Kind: "web", Endpoint: "https://push.example/s", CreatedAt: t0.Add(time.Minute)},
	}
	if d := cmp.Diff(want, srv.PushRegistrations()); d != "" {
		t.Errorf("stored (-want +got):\n%s", d)
	}

	require.NoError(t, w.PushUnsubscribe(ctx, "https://push.example/w"))
	require.NoError(t, w.PushUnsubscribe(ctx, "https://push.example/never"), "an unknown endpoint is fine")
	require.NoError(t, w.UnregisterDevice(ctx, "ExponentPushToken[x]"))
	require.NoError(t, s.Logout(ctx))
	assert.Empty(t, srv.PushRegistrations(), "the supervisor's subscription ends with the session")
	assert.Empty(t, srv.Deliveries(), "nothing is pushed")
}

// TestVoiceAndPushOff: without the options, push reports off and voice is 404 voice_disabled.
func TestVoiceAndPushOff(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	s, _ := supervise(t, srv, mockserver.SupervisorInvite{})
	cfg, err := s.PushConfig(context.Background())
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.PushConfig{}, cfg)
	_, err = s.VoiceICE(context.Background())
	assert.ErrorIs(t, err, taskrouting.ErrVoiceDisabled)
	_, err = mockserver.New(mockserver.WithVoiceICEServers(json.RawMessage(`{"urls":"stun:x"}`)))
	assert.Error(t, err, "ICE servers must be a list")
}

// TestSupervisorAdminLinks: tests in any language get a link from /_mock/supervisor-links,
// and only with the server's key.
func TestSupervisorAdminLinks(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	var link mockserver.SupervisorLink
	svPost(t, srv.AdminURL()+"/supervisor-links", srv.APIKey(), map[string]string{"label": "Dana"}, 201, &link)
	assert.Equal(t, "Dana", link.Label)
	status, _ := svCall(t, "POST", srv.AdminURL()+"/supervisor-links", "", map[string]string{})
	assert.Equal(t, 401, status)
	status, _ = svCall(t, "POST", srv.AdminURL()+"/supervisor-links", srv.APIKey(), map[string]string{"teamId": "team_nope"})
	assert.Equal(t, 404, status)
	s := mustSupervisorClient(t, srv)
	_, err := s.AcceptInvite(context.Background(), link.Token)
	require.NoError(t, err)
	var listed struct{ Links []mockserver.SupervisorLink }
	svGet(t, srv.AdminURL()+"/supervisor-links", srv.APIKey(), &listed)
	require.Len(t, listed.Links, 1)
	assert.False(t, listed.Links[0].RedeemedAt.IsZero())
}

// svCall sends one request with a bearer (none when cred is "") and returns the status and
// the envelope's code.
func svCall(t *testing.T, method, url, cred string, body any) (int, string) {
	t.Helper()
	status, raw := svDo(t, method, url, cred, body)
	var env struct{ Error struct{ Code string } }
	_ = json.Unmarshal(raw, &env)
	return status, env.Error.Code
}

func svDo(t *testing.T, method, url, cred string, body any) (int, []byte) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	var req *http.Request
	var err error
	if rd != nil {
		req, err = http.NewRequest(method, url, rd)
	} else {
		req, err = http.NewRequest(method, url, nil)
	}
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if cred != "" {
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, buf.Bytes()
}

// svPost posts body and decodes the answer into out (when not nil) after checking the status.
func svPost(t *testing.T, url, cred string, body any, want int, out any) {
	t.Helper()
	if body == nil && want == http.StatusNoContent {
		status, raw := svDo(t, "POST", url, cred, nil)
		require.Equal(t, want, status, "%s", raw)
		return
	}
	status, raw := svDo(t, "POST", url, cred, body)
	require.Equal(t, want, status, "%s", raw)
	if out != nil {
		require.NoError(t, json.Unmarshal(raw, out))
	}
}

func svGet(t *testing.T, url, cred string, out any) {
	t.Helper()
	status, raw := svDo(t, "GET", url, cred, nil)
	require.Equal(t, http.StatusOK, status, "%s", raw)
	require.NoError(t, json.Unmarshal(raw, out))
}

// TestSupervisorReset: Reset forgets links, sessions and push registrations.
func TestSupervisorReset(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	s, link := supervise(t, srv, mockserver.SupervisorInvite{})
	require.NoError(t, s.PushSubscribe(context.Background(), taskrouting.PushSubscriptionParams{Endpoint: "https://p", P256dh: "k", Auth: taskrouting.NewSecret("a")}))
	srv.Reset()
	assert.Empty(t, srv.SupervisorLinks())
	assert.Empty(t, srv.PushRegistrations())
	_, err := s.Me(context.Background())
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized)
	_, err = mustSupervisorClient(t, srv).AcceptInvite(context.Background(), link.Token)
	assert.ErrorIs(t, err, taskrouting.ErrInvalidToken)
}

// TestSupervisorActionsMatchWorkspacePlane runs one story twice, acting once with the API key
// and once as a supervisor: the webhook events (payload bytes included) and the resulting
// tasks and queues are the same.
func TestSupervisorActionsMatchWorkspacePlane(t *testing.T) {
	t.Parallel()
	story := func(t *testing.T, asSupervisor bool) ([]string, []string) {
		t0 := time.UnixMilli(1763700000000).UTC()
		clk := mockserver.NewManualClock(t0)
		srv := mockserver.Start(t, mockserver.WithClock(clk), mockserver.WithSeed(7))
		ctx := context.Background()
		c := newClient(t, srv, srv.APIKey())
		for _, id := range []string{"a1", "a2", "a3"} {
			_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"english"}, Available: taskrouting.Ptr(true), MaxBacklogSize: taskrouting.Ptr(1)})
			require.NoError(t, err)
		}
		for _, id := range []string{"t1", "t2", "t3", "t4"} {
			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: id, Tags: []string{"english"}})
			require.NoError(t, err)
			clk.Advance(time.Second)
		}
		var s *taskrouting.SupervisorClient
		if asSupervisor {
			s, _ = supervise(t, srv, mockserver.SupervisorInvite{})
		}
		var err error
		if asSupervisor {
			_, err = s.SetPriority(ctx, "t4", 9)
		} else {
			_, err = c.Tasks.SetPriority(ctx, "t4", 9)
		}
		require.NoError(t, err)
		if asSupervisor {
			_, err = s.SetAvailability(ctx, "a2", taskrouting.SupervisorAvailabilityParams{ReleaseBacklog: true})
		} else {
			_, err = c.Workers.SetAvailability(ctx, "a2", taskrouting.SetAvailabilityParams{ReleaseBacklog: true})
		}
		require.NoError(t, err)
		if asSupervisor {
			_, err = s.Assign(ctx, "t2", "a3", taskrouting.SupervisorAssignParams{Force: true})
		} else {
			_, err = c.Tasks.Assign(ctx, "t2", taskrouting.AssignTaskParams{WorkerID: "a3", Force: true})
		}
		require.NoError(t, err)
		var evs, state []string
		for _, e := range srv.Events() {
			evs = append(evs, string(e.Payload))
		}
		for _, id := range []string{"t1", "t2", "t3", "t4"} {
			task, err := c.Tasks.Get(ctx, id)
			require.NoError(t, err)
			state = append(state, id+" "+string(task.Status)+" "+task.WorkerID)
		}
		return evs, state
	}
	wsEvents, wsState := story(t, false)
	svEvents, svState := story(t, true)
	if d := cmp.Diff(wsEvents, svEvents); d != "" {
		t.Errorf("events (-workspace plane +supervisor plane):\n%s", d)
	}
	assert.Equal(t, wsState, svState)
	assert.Greater(t, len(wsEvents), 4, "the story emits events")
}

// TestSupervisorSecretsNotRecorded: the recorded requests show neither a link, a session
// token nor a subscription's keys.
func TestSupervisorSecretsNotRecorded(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	s, link := supervise(t, srv, mockserver.SupervisorInvite{})
	require.NoError(t, s.PushSubscribe(context.Background(), taskrouting.PushSubscriptionParams{Endpoint: "https://p", P256dh: "k", Auth: taskrouting.NewSecret("auth_5ecret")}))
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	for _, r := range reqs {
		all := string(r.Body) + r.Header.Get("Authorization")
		assert.NotContains(t, all, link.Token)
		assert.NotContains(t, all, "sv_")
		assert.NotContains(t, all, "auth_5ecret")
	}
	assert.Contains(t, string(reqs[1].Body), "https://p", "the endpoint is kept")
}

// TestSupervisorBoardParked: a task whose rejection budget is spent parks, and the board
// counts and lists it (not as queued).
func TestSupervisorBoardParked(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	srv := mockserver.Start(t, mockserver.WithClock(mockserver.NewManualClock(t0)))
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"billing"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "t1", Tags: []string{"billing"}, Priority: 7,
		SLA: taskrouting.Some(taskrouting.SLA{MaxRejections: 1, OnMaxRejections: taskrouting.MaxRejectionsPark})})
	require.NoError(t, err)
	_, err = c.Decisions.Reject(ctx, "t1", "agent_1")
	require.NoError(t, err)
	s, _ := supervise(t, srv, mockserver.SupervisorInvite{})
	board, err := s.Overview(ctx)
	require.NoError(t, err)
	assert.Equal(t, taskrouting.BoardCounts{Parked: 1}, board.Counts)
	if d := cmp.Diff([]taskrouting.ParkedTask{{ID: "t1", Tags: []string{"billing"}, Priority: taskrouting.Ptr(7.0), CreatedAt: t0}}, board.Parked); d != "" {
		t.Errorf("parked (-want +got):\n%s", d)
	}
}

// TestSupervisorUnpark: a supervisor unparks a parked task of its team as tasks.unpark does
// (same answer, same task.unparked event, the task offered again); a task of another team is
// 403 and stays parked; a task that is not parked is 409.
func TestSupervisorUnpark(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1763700000000).UTC()
	srv := mockserver.Start(t, mockserver.WithClock(mockserver.NewManualClock(t0)))
	ctx := context.Background()
	c := newClient(t, srv, srv.APIKey())
	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing"})
	require.NoError(t, err)
	for _, id := range []string{"agent_1", "agent_2"} {
		_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{"billing", team.Tag}, Available: taskrouting.Ptr(true)})
		require.NoError(t, err)
	}
	_, err = c.Teams.SetMembers(ctx, team.ID, []string{"agent_1", "agent_2"})
	require.NoError(t, err)
	parkOnReject := taskrouting.Some(taskrouting.SLA{MaxRejections: 1, OnMaxRejections: taskrouting.MaxRejectionsPark})
	for id, tags := range map[string][]string{"ours": {"billing", team.Tag}, "theirs": {"billing"}} {
		_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: id, Tags: tags, SLA: parkOnReject})
		require.NoError(t, err)
		task, err := c.Tasks.Get(ctx, id)
		require.NoError(t, err)
		_, err = c.Decisions.Reject(ctx, id, task.WorkerID)
		require.NoError(t, err)
	}
	parked, err := c.Tasks.Parked(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, parked.Count)

	s, _ := supervise(t, srv, mockserver.SupervisorInvite{TeamID: team.ID})
	before := len(srv.Events())
	ref, err := s.Unpark(ctx, "ours", taskrouting.UnparkTaskParams{ResetSLA: taskrouting.Ptr(true)})
	require.NoError(t, err)
	assert.Equal(t, &taskrouting.TaskRef{ID: "ours", Status: "queued"}, ref)
	kinds := supervisorEvents(srv.Events()[before:])
	require.NotEmpty(t, kinds)
	assert.Equal(t, "task.unparked ours ", kinds[0])
	task, err := c.Tasks.Get(ctx, "ours")
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusPending, task.Status, "offered again: the rejecting worker is out, the other one is free")

	_, err = s.Unpark(ctx, "theirs", taskrouting.UnparkTaskParams{})
	assert.ErrorIs(t, err, taskrouting.ErrForbidden)
	_, err = s.Unpark(ctx, "ours", taskrouting.UnparkTaskParams{})
	assert.ErrorIs(t, err, taskrouting.ErrInvalidState, "no longer parked")
	parked, err = c.Tasks.Parked(ctx)
	require.NoError(t, err)
	require.Len(t, parked.Tasks, 1)
	assert.Equal(t, "theirs", parked.Tasks[0].ID)
}
