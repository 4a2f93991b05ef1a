package mockserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// sessionErr keeps the error of Login, for tests that check only the error.
func sessionErr(_ *taskrouting.WorkerSession, err error) error { return err }

var onboardT0 = time.UnixMilli(1763700000000).UTC()

// onboardingServer is a server on a manual clock, a workspace client and a fresh worker
// client reading the same clock.
func onboardingServer(t *testing.T, opts ...mockserver.Option) (*mockserver.Server, *mockserver.ManualClock, *taskrouting.Client, func() *taskrouting.WorkerClient) {
	t.Helper()
	clk := mockserver.NewManualClock(onboardT0)
	srv := mockserver.Start(t, append([]mockserver.Option{mockserver.WithClock(clk)}, opts...)...)
	c := newClient(t, srv, srv.APIKey())
	newWorker := func() *taskrouting.WorkerClient {
		w, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0), taskrouting.WithClock(clk.Now))
		require.NoError(t, err)
		return w
	}
	return srv, clk, c, newWorker
}

func statusOf(err error) int {
	if apiErr, ok := err.(*taskrouting.APIError); ok {
		return apiErr.StatusCode
	}
	return 0
}

// TestInviteLifecycle: an invite creates the worker and a sign-in without a PIN, the mail is
// in the outbox, the token works once, a resend replaces it, and the identity is listed.
func TestInviteLifecycle(t *testing.T) {
	t.Parallel()
	srv, clk, c, newWorker := onboardingServer(t)
	ctx := context.Background()

	inv, err := c.Workers.Invite(ctx, taskrouting.InviteParams{Email: "ada@example.com", WorkerID: "agent_1", Label: "Ada", Tags: []string{"english"}})
	require.NoError(t, err)
	assert.True(t, inv.WorkerCreated)
	assert.Equal(t, "sent", inv.EmailStatus)
	assert.False(t, inv.Identity.HasPIN)
	assert.True(t, inv.Identity.ActivatedAt.IsZero())
	wd, err := c.Workers.Get(ctx, "agent_1")
	require.NoError(t, err)
	assert.Equal(t, []string{"english"}, wd.Tags)
	assert.False(t, wd.Available, "an invited worker starts off shift")
	assert.True(t, wd.InvitePending)

	mail := srv.Outbox()
	require.Len(t, mail, 1)
	assert.Equal(t, "ada@example.com", mail[0].To)
	fromURL, err := taskrouting.LinkToken(inv.InviteURL)
	require.NoError(t, err)
	assert.Equal(t, mail[0].Token, fromURL.Reveal(), "the answer's URL and the mail carry the same token")

	// Sign-in is refused until a PIN is set.
	w := newWorker()
	err = sessionErr(w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4821")}))
	assert.ErrorIs(t, err, taskrouting.ErrInvalidCredentials)

	// A resend replaces the token: the first stops working.
	clk.Advance(time.Hour)
	again, err := c.Workers.ResendInvite(ctx, "agent_1")
	require.NoError(t, err)
	assert.False(t, again.WorkerCreated)
	mail = srv.Outbox()
	require.Len(t, mail, 2)
	_, err = w.AcceptInvite(ctx, taskrouting.AcceptInviteParams{Token: taskrouting.NewSecret(mail[0].Token), PIN: taskrouting.NewSecret("4821")})
	assert.ErrorIs(t, err, taskrouting.ErrInvalidToken)
	assert.False(t, w.SignedIn())

	joined, err := w.AcceptInvite(ctx, taskrouting.AcceptInviteParams{Token: taskrouting.NewSecret(mail[1].Token), PIN: taskrouting.NewSecret("4821")})
	require.NoError(t, err)
	assert.Equal(t, "agent_1", joined.WorkerID)
	assert.Equal(t, srv.WorkspaceID(), joined.WorkspaceID)
	assert.Equal(t, "Ada", joined.Label)
	assert.Equal(t, clk.Now().Add(mockserver.DefaultWorkerSessionTTL), joined.ExpiresAt)
	assert.Equal(t, "agent_1", w.WorkerID(), "accepting signs the worker in")
	me, err := w.Me(ctx)
	require.NoError(t, err)
	assert.Equal(t, "Ada", me.Label)
	wd, err = c.Workers.Get(ctx, "agent_1")
	require.NoError(t, err)
	assert.False(t, wd.InvitePending, "accepted")

	// The token is single use, and the PIN now signs in.
	_, err = newWorker().AcceptInvite(ctx, taskrouting.AcceptInviteParams{Token: taskrouting.NewSecret(mail[1].Token), PIN: taskrouting.NewSecret("9999")})
	assert.ErrorIs(t, err, taskrouting.ErrInvalidToken)
	assert.Equal(t, http.StatusBadRequest, statusOf(err))
	require.NoError(t, sessionErr(newWorker().Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4821")})))

	// With a PIN set there is nothing to resend, and a second invite is refused.
	_, err = c.Workers.ResendInvite(ctx, "agent_1")
	assert.ErrorIs(t, err, taskrouting.ErrInvalidState)
	_, err = c.Workers.Invite(ctx, taskrouting.InviteParams{Email: "ada@example.com", WorkerID: "agent_1"})
	assert.ErrorIs(t, err, taskrouting.ErrConflict)
	_, err = c.Workers.ResendInvite(ctx, "nobody")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)

	ids, err := c.Workers.ListIdentities(ctx)
	require.NoError(t, err)
	require.Len(t, ids, 1)
	want := taskrouting.WorkerIdentity{ID: inv.Identity.ID, WorkerID: "agent_1", Label: "Ada", Status: "active",
		Email: "ada@example.com", HasPIN: true, CreatedAt: onboardT0, ActivatedAt: onboardT0.Add(time.Hour)}
	if d := cmp.Diff(want, ids[0]); d != "" {
		t.Errorf("listed identity (-want +got):\n%s", d)
	}
}

// TestInviteExpires: an invite token is refused once its week is over.
func TestInviteExpires(t *testing.T) {
	t.Parallel()
	srv, clk, c, newWorker := onboardingServer(t)
	ctx := context.Background()
	_, err := c.Workers.Invite(ctx, taskrouting.InviteParams{Email: "bo@example.com"})
	require.NoError(t, err)
	clk.Advance(7 * 24 * time.Hour)
	_, err = newWorker().AcceptInvite(ctx, taskrouting.AcceptInviteParams{Token: taskrouting.NewSecret(srv.Outbox()[0].Token), PIN: taskrouting.NewSecret("4821")})
	assert.ErrorIs(t, err, taskrouting.ErrInvalidToken)
}

// TestUpdateIdentity: label and email change, email can be erased, revoking ends sessions
// and sign-ins until the identity is active again; an unknown worker is 404.
func TestUpdateIdentity(t *testing.T) {
	t.Parallel()
	srv, clk, c, newWorker := onboardingServer(t)
	ctx := context.Background()
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1"})
	require.NoError(t, err)
	_, err = c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921"), Email: "a@example.com"})
	require.NoError(t, err)
	login := taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")}
	w := newWorker()
	require.NoError(t, sessionErr(w.Login(ctx, login)))

	got, err := c.Workers.UpdateIdentity(ctx, "agent_1", taskrouting.UpdateIdentityParams{Label: "desk 5", Email: taskrouting.Null[string]()})
	require.NoError(t, err)
	assert.Equal(t, "desk 5", got.Label)
	assert.Empty(t, got.Email)

	clk.Advance(time.Minute)
	got, err = c.Workers.UpdateIdentity(ctx, "agent_1", taskrouting.UpdateIdentityParams{Status: "revoked"})
	require.NoError(t, err)
	assert.Equal(t, "revoked", got.Status)
	assert.Equal(t, onboardT0.Add(time.Minute), got.RevokedAt)
	_, err = w.Me(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized, "revoking ends the worker's sessions")
	assert.ErrorIs(t, sessionErr(newWorker().Login(ctx, login)), taskrouting.ErrInvalidCredentials)

	got, err = c.Workers.UpdateIdentity(ctx, "agent_1", taskrouting.UpdateIdentityParams{Status: "active", PIN: taskrouting.NewSecret("5555")})
	require.NoError(t, err)
	assert.True(t, got.RevokedAt.IsZero())
	assert.ErrorIs(t, sessionErr(newWorker().Login(ctx, login)), taskrouting.ErrInvalidCredentials, "the old PIN is replaced")
	login.PIN = taskrouting.NewSecret("5555")
	require.NoError(t, sessionErr(newWorker().Login(ctx, login)))

	_, err = c.Workers.UpdateIdentity(ctx, "ghost", taskrouting.UpdateIdentityParams{Label: "x"})
	assert.ErrorIs(t, err, taskrouting.ErrNotFound)
}

// TestJoinLinks: a link creates workers with its tags; approval holds them off shift until an
// operator puts them on; a revoked, used-up or expired link is 400 invalid_token.
func TestJoinLinks(t *testing.T) {
	t.Parallel()
	srv, clk, c, newWorker := onboardingServer(t)
	ctx := context.Background()
	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "floor", Name: "Floor"})
	require.NoError(t, err)

	created, err := c.JoinLinks.Create(ctx, taskrouting.CreateJoinLinkParams{
		Label: "Warehouse", TeamID: team.ID, Tags: []string{"warehouse"}, RequiresApproval: true, MaxUses: 1, ExpiresIn: time.Hour,
	})
	require.NoError(t, err)
	want := taskrouting.JoinLink{ID: created.Link.ID, Label: "Warehouse", Status: "active", TeamID: team.ID, Tags: []string{"warehouse"},
		RequiresApproval: true, MaxUses: taskrouting.Ptr(1), CreatedAt: onboardT0, ExpiresAt: onboardT0.Add(time.Hour)}
	if d := cmp.Diff(want, created.Link); d != "" {
		t.Errorf("created link (-want +got):\n%s", d)
	}
	token, err := taskrouting.LinkToken(created.JoinURL)
	require.NoError(t, err)

	w := newWorker()
	joined, err := w.Join(ctx, taskrouting.JoinParams{Token: token, Name: "Ada", PIN: taskrouting.NewSecret("4821")})
	require.NoError(t, err)
	assert.True(t, joined.PendingApproval)
	assert.Equal(t, joined.WorkerID, w.WorkerID())
	wd, err := c.Workers.Get(ctx, joined.WorkerID)
	require.NoError(t, err)
	assert.Equal(t, []string{"warehouse"}, wd.Tags)
	members, err := c.Teams.Members(ctx, team.ID)
	require.NoError(t, err)
	require.Len(t, members.Members, 1)
	assert.Equal(t, joined.WorkerID, members.Members[0].WorkerID)

	wd, err = c.Workers.Get(ctx, joined.WorkerID)
	require.NoError(t, err)
	assert.True(t, wd.PendingApproval)
	_, err = w.SetAvailability(ctx, true)
	assert.ErrorIs(t, err, taskrouting.ErrApprovalPending)
	assert.Equal(t, http.StatusForbidden, statusOf(err))
	_, err = c.Workers.SetAvailability(ctx, joined.WorkerID, taskrouting.SetAvailabilityParams{Available: true})
	require.NoError(t, err)
	me, err := w.Me(ctx)
	require.NoError(t, err)
	assert.False(t, me.PendingApproval, "an operator putting the worker on shift admits them")
	_, err = w.SetAvailability(ctx, true)
	require.NoError(t, err)

	// Used up after one join.
	_, err = newWorker().Join(ctx, taskrouting.JoinParams{Token: token, Name: "Bo", PIN: taskrouting.NewSecret("4821")})
	assert.ErrorIs(t, err, taskrouting.ErrInvalidToken)
	links, err := c.JoinLinks.List(ctx)
	require.NoError(t, err)
	require.Len(t, links, 1)
	assert.Equal(t, "exhausted", links[0].Status)
	assert.Equal(t, 1, links[0].UseCount)

	// Revoked, and expired.
	open, err := c.JoinLinks.Create(ctx, taskrouting.CreateJoinLinkParams{Label: "Open"})
	require.NoError(t, err)
	openToken, err := taskrouting.LinkToken(open.JoinURL)
	require.NoError(t, err)
	require.NoError(t, c.JoinLinks.Revoke(ctx, open.Link.ID))
	require.NoError(t, c.JoinLinks.Revoke(ctx, open.Link.ID), "revoking twice changes nothing")
	_, err = newWorker().Join(ctx, taskrouting.JoinParams{Token: openToken, Name: "Bo", PIN: taskrouting.NewSecret("4821")})
	assert.ErrorIs(t, err, taskrouting.ErrInvalidToken)
	assert.ErrorIs(t, c.JoinLinks.Revoke(ctx, "jl_nope"), taskrouting.ErrNotFound)

	short, err := c.JoinLinks.Create(ctx, taskrouting.CreateJoinLinkParams{Label: "Short", ExpiresIn: time.Minute})
	require.NoError(t, err)
	shortToken, err := taskrouting.LinkToken(short.JoinURL)
	require.NoError(t, err)
	clk.Advance(time.Minute)
	_, err = newWorker().Join(ctx, taskrouting.JoinParams{Token: shortToken, Name: "Cy", PIN: taskrouting.NewSecret("4821")})
	assert.ErrorIs(t, err, taskrouting.ErrInvalidToken)

	links, err = c.JoinLinks.List(ctx)
	require.NoError(t, err)
	var statuses []string
	for _, l := range links {
		statuses = append(statuses, l.Status)
	}
	assert.Equal(t, []string{"exhausted", "revoked", "expired"}, statuses)

	_, err = c.JoinLinks.Create(ctx, taskrouting.CreateJoinLinkParams{Label: "x", TeamID: "team_nope"})
	assert.ErrorIs(t, err, taskrouting.ErrValidation)
	_ = srv
}

// TestSessionExpiryAndRefresh: a session lapses on the server's clock; Refresh rotates it;
// the client refreshes on its own in the last fifth of the lifetime; Resume adopts a saved
// token; the replaced token works for a minute only; logout ends the rotated family.
func TestSessionExpiryAndRefresh(t *testing.T) {
	t.Parallel()
	srv, clk, c, newWorker := onboardingServer(t, mockserver.WithWorkerSessionTTL(time.Hour))
	ctx := context.Background()
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1"})
	require.NoError(t, err)
	_, err = c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)
	login := taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")}

	w := newWorker()
	sess, err := w.Login(ctx, login)
	require.NoError(t, err)
	assert.Equal(t, onboardT0.Add(time.Hour), sess.ExpiresAt)
	first := sess.Token()

	// Explicit refresh: a new token, a new expiry.
	clk.Advance(10 * time.Minute)
	ok, err := w.Refresh(ctx)
	require.NoError(t, err)
	assert.True(t, ok)
	second := w.Session()
	assert.NotEqual(t, first, second.Token())
	assert.Equal(t, onboardT0.Add(70*time.Minute), second.ExpiresAt)

	// The replaced token keeps working for a minute, for calls in flight, then stops.
	old := newWorker()
	require.NoError(t, old.Resume("agent_1", first, time.Time{}))
	_, err = old.Me(ctx)
	require.NoError(t, err)
	clk.Advance(time.Minute)
	_, err = old.Me(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized)
	ok, err = old.Refresh(ctx)
	require.NoError(t, err, "a 4xx on refresh means: sign in again")
	assert.False(t, ok)

	// Automatic refresh: nothing before the last fifth, a rotation within it.
	clk.Advance(30 * time.Minute) // 41 min into a session issued at 10 min, expiring at 70
	_, err = w.Me(ctx)
	require.NoError(t, err)
	assert.Equal(t, second.Token(), w.Session().Token(), "too early to refresh")
	clk.Advance(18 * time.Minute) // 59 of 70: 11 minutes left, less than a fifth of the hour
	_, err = w.Me(ctx)
	require.NoError(t, err)
	third := w.Session()
	assert.NotEqual(t, second.Token(), third.Token(), "refreshed before the call")
	assert.Equal(t, clk.Now().Add(time.Hour), third.ExpiresAt)

	// A saved session resumes in another client, and lapses at its expiry.
	resumed := newWorker()
	require.NoError(t, resumed.Resume(third.WorkerID, third.Token(), third.ExpiresAt))
	_, err = resumed.Queue(ctx, "")
	require.NoError(t, err)

	// Logout ends every token of the sign-in, the rotated ones included.
	require.NoError(t, resumed.Logout(ctx))
	_, err = w.Me(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized)

	// Without a refresh a session lapses at its expiry.
	lapsing := newWorker()
	_, err = lapsing.Login(ctx, login)
	require.NoError(t, err)
	clk.Advance(time.Hour)
	_, err = lapsing.Me(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized)
	ok, err = lapsing.Refresh(ctx)
	require.NoError(t, err)
	assert.False(t, ok, "an expired session cannot be refreshed")
}

// TestChangePIN: a wrong current PIN is 400 and changes nothing; a change keeps the session
// that made it and ends the worker's other sessions; the old PIN stops signing in.
func TestChangePIN(t *testing.T) {
	t.Parallel()
	srv, _, c, newWorker := onboardingServer(t)
	ctx := context.Background()
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1"})
	require.NoError(t, err)
	_, err = c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)
	login := taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")}
	phone, desk := newWorker(), newWorker()
	require.NoError(t, sessionErr(phone.Login(ctx, login)))
	require.NoError(t, sessionErr(desk.Login(ctx, login)))

	err = desk.ChangePIN(ctx, taskrouting.ChangePINParams{CurrentPIN: taskrouting.NewSecret("0000"), NewPIN: taskrouting.NewSecret("5555")})
	assert.ErrorIs(t, err, taskrouting.ErrInvalidCurrentPIN)
	assert.Equal(t, http.StatusBadRequest, statusOf(err))
	_, err = phone.Me(ctx)
	require.NoError(t, err, "a refused change ends nothing")

	require.NoError(t, desk.ChangePIN(ctx, taskrouting.ChangePINParams{CurrentPIN: taskrouting.NewSecret("4921"), NewPIN: taskrouting.NewSecret("5555")}))
	_, err = desk.Me(ctx)
	require.NoError(t, err, "the session that changed the PIN goes on")
	_, err = phone.Me(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized, "other sessions end")
	assert.ErrorIs(t, sessionErr(newWorker().Login(ctx, login)), taskrouting.ErrInvalidCredentials)
	login.PIN = taskrouting.NewSecret("5555")
	require.NoError(t, sessionErr(newWorker().Login(ctx, login)))
}

// TestWorkerSelfService: preferences, the skill catalogue, the worker's own skills and the
// location (rate-limited on the server's clock), each seen from the workspace plane too.
func TestWorkerSelfService(t *testing.T) {
	t.Parallel()
	srv, clk, c, newWorker := onboardingServer(t)
	ctx := context.Background()
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1"})
	require.NoError(t, err)
	_, err = c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)
	for _, key := range []string{"welsh", "billing"} {
		_, err = c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: key, Name: key})
		require.NoError(t, err)
	}
	w := newWorker()
	require.NoError(t, sessionErr(w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})))

	prefs, err := w.SetPreferences(ctx, taskrouting.WorkerPreferencesParams{Locale: taskrouting.Some("de"), EmailNotices: taskrouting.Ptr(false)})
	require.NoError(t, err)
	assert.Equal(t, taskrouting.WorkerPreferences{WorkerID: "agent_1", Locale: "de"}, *prefs)
	wd, err := c.Workers.Get(ctx, "agent_1")
	require.NoError(t, err)
	assert.Equal(t, "de", wd.Locale)
	prefs, err = w.SetPreferences(ctx, taskrouting.WorkerPreferencesParams{Locale: taskrouting.Null[string]()})
	require.NoError(t, err)
	assert.Equal(t, taskrouting.WorkerPreferences{WorkerID: "agent_1"}, *prefs, "null returns to the default; notices stay off")

	catalog, err := w.SkillCatalog(ctx)
	require.NoError(t, err)
	var keys []string
	for _, s := range catalog {
		keys = append(keys, s.Key)
	}
	assert.Equal(t, []string{"billing", "welsh"}, keys)

	_, err = c.Workers.Patch(ctx, "agent_1", taskrouting.PatchWorkerParams{Skills: []taskrouting.SkillAssignment{
		{SkillID: "welsh", Level: 2, WeightOverride: taskrouting.Ptr(90.0)}, {SkillID: "billing", Level: 1},
	}})
	require.NoError(t, err)
	mine, err := w.SetSkills(ctx, []taskrouting.SkillLevel{{SkillID: "welsh", Level: 4}})
	require.NoError(t, err)
	require.Len(t, mine.Skills, 1, "the whole set is replaced")
	assert.Equal(t, "welsh", mine.Skills[0].Key)
	assert.Equal(t, 4, mine.Skills[0].Level)
	assert.Equal(t, taskrouting.Ptr(90.0), mine.Skills[0].WeightOverride, "a kept skill keeps the operator's override")
	me, err := w.Me(ctx)
	require.NoError(t, err)
	require.Len(t, me.Skills, 1)
	assert.False(t, me.Available, "setting skills does not change the shift")
	_, err = w.SetSkills(ctx, []taskrouting.SkillLevel{{SkillID: "klingon", Level: 2}})
	assert.ErrorIs(t, err, taskrouting.ErrValidation)
	mine, err = w.SetSkills(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, mine.Skills)

	loc, err := w.UpdateLocation(ctx, 59.4, 24.7)
	require.NoError(t, err)
	assert.Equal(t, taskrouting.WorkerLocation{WorkerID: "agent_1", Latitude: 59.4, Longitude: 24.7}, *loc)
	clk.Advance(4 * time.Second)
	_, err = w.UpdateLocation(ctx, 59.5, 24.7)
	assert.ErrorIs(t, err, taskrouting.ErrRateLimited)
	var apiErr *taskrouting.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 6*time.Second, apiErr.RetryAfter)
	clk.Advance(6 * time.Second)
	_, err = w.UpdateLocation(ctx, 59.5, 24.7)
	require.NoError(t, err)
}

// TestWorkerTokenScope: a worker token reaches the worker plane only, and only its own
// worker; onboarding answers hand out no token in the recorded requests.
func TestWorkerTokenScope(t *testing.T) {
	t.Parallel()
	srv, _, c, newWorker := onboardingServer(t)
	ctx := context.Background()
	for _, id := range []string{"agent_1", "agent_2"} {
		_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id})
		require.NoError(t, err)
		_, err = c.Workers.SetIdentity(ctx, id, taskrouting.SetIdentityParams{Label: id, PIN: taskrouting.NewSecret("4921")})
		require.NoError(t, err)
	}
	w := newWorker()
	sess, err := w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)

	_, err = w.Queue(ctx, "agent_2")
	assert.ErrorIs(t, err, taskrouting.ErrNotFound, "another worker's queue")
	// The worker token used as an API key reaches nothing of the workspace plane.
	asKey := newClient(t, srv, sess.Token())
	_, err = asKey.Workers.ListIdentities(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized)
	_, err = asKey.JoinLinks.Create(ctx, taskrouting.CreateJoinLinkParams{Label: "x"})
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized)
	// The API key is no worker token.
	keyed := newWorker()
	require.NoError(t, keyed.Resume("agent_1", srv.APIKey(), time.Time{}))
	_, err = keyed.Me(ctx)
	assert.ErrorIs(t, err, taskrouting.ErrUnauthorized)

	// PINs and tokens sent are redacted in what the server records.
	_, err = c.JoinLinks.Create(ctx, taskrouting.CreateJoinLinkParams{Label: "x"})
	require.NoError(t, err)
	require.NoError(t, w.ChangePIN(ctx, taskrouting.ChangePINParams{CurrentPIN: taskrouting.NewSecret("4921"), NewPIN: taskrouting.NewSecret("77771")}))
	for _, r := range srv.Requests() {
		assert.NotContains(t, string(r.Body), "4921", "%s %s", r.Method, r.Path)
		assert.NotContains(t, string(r.Body), "77771", "%s %s", r.Method, r.Path)
	}
}

// TestPortal: no published bundle is a normal answer, with the portal's address.
func TestPortal(t *testing.T) {
	t.Parallel()
	srv, _, c, _ := onboardingServer(t)
	p, err := c.Portal(context.Background())
	require.NoError(t, err)
	assert.False(t, p.Exists)
	assert.True(t, p.PortalEnabled)
	assert.Nil(t, p.Version)
	assert.Contains(t, p.PortalURL, "/portal/"+srv.WorkspaceID()+"/")
}

// TestAutoRefreshConcurrent: calls racing into the refresh window refresh the session once,
// and every one of them succeeds (the replaced token works through its grace minute).
func TestAutoRefreshConcurrent(t *testing.T) {
	t.Parallel()
	srv, clk, c, newWorker := onboardingServer(t, mockserver.WithWorkerSessionTTL(time.Hour))
	ctx := context.Background()
	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1"})
	require.NoError(t, err)
	_, err = c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")})
	require.NoError(t, err)
	w := newWorker()
	require.NoError(t, sessionErr(w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})))
	clk.Advance(55 * time.Minute)

	const callers = 8
	errs := make(chan error, callers)
	for range callers {
		go func() {
			_, err := w.Me(ctx)
			errs <- err
		}()
	}
	for range callers {
		assert.NoError(t, <-errs)
	}
	refreshes := 0
	for _, r := range srv.Requests() {
		if r.Path == "/v1/worker-auth/refresh" {
			refreshes++
		}
	}
	assert.Equal(t, 1, refreshes)
	assert.Equal(t, clk.Now().Add(time.Hour), w.Session().ExpiresAt)
}

// TestAdminOutbox: tests in any language read the invites sent from GET /_mock/outbox; Reset
// forgets them.
func TestAdminOutbox(t *testing.T) {
	t.Parallel()
	srv, _, c, _ := onboardingServer(t)
	ctx := context.Background()
	_, err := c.Workers.Invite(ctx, taskrouting.InviteParams{Email: "ada@example.com", WorkerID: "agent_1"})
	require.NoError(t, err)

	var got struct {
		Mail []struct {
			Kind, To, WorkerID, Token, URL string
			At                             int64
		}
	}
	require.NoError(t, json.Unmarshal(rawRequest(t, srv, "GET", strings.TrimSuffix(srv.URL(), "/v1")+"/_mock/outbox"), &got))
	require.Len(t, got.Mail, 1)
	m := got.Mail[0]
	assert.Equal(t, []string{"invite", "ada@example.com", "agent_1", srv.Outbox()[0].Token}, []string{m.Kind, m.To, m.WorkerID, m.Token})
	assert.Contains(t, m.URL, m.Token)
	assert.Equal(t, onboardT0.UnixMilli(), m.At)

	srv.Reset()
	assert.Empty(t, srv.Outbox())
}
