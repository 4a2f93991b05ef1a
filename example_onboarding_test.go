package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// newWorkerOn returns a signed-out worker client for the sandbox, reading
// the sandbox's clock for session expiry.
func (sb *sandbox) newWorkerOn() *taskrouting.WorkerClient {
	w, err := taskrouting.NewWorkerClient(sb.srv.URL(), taskrouting.WithClock(sb.clock.Now))
	if err != nil {
		panic(err)
	}
	return w
}

// An invite creates the worker and mails a link; the worker chooses a PIN
// with the link's token and is signed in. The mock server keeps the mail
// in its outbox, where a test reads the token.
func ExampleWorkersService_Invite() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()

	inv, err := c.Workers.Invite(ctx, taskrouting.InviteParams{Email: "ada@example.com", WorkerID: "agent_1", Label: "Ada"})
	if err != nil {
		panic(err)
	}
	fmt.Println(inv.Identity.WorkerID, inv.WorkerCreated, inv.EmailStatus, inv.Identity.HasPIN)
	fmt.Println(inv) // the invite URL signs in, so it is never printed

	mail := sb.srv.Outbox()[0]
	w := sb.newWorkerOn()
	joined, err := w.AcceptInvite(ctx, taskrouting.AcceptInviteParams{Token: taskrouting.NewSecret(mail.Token), PIN: taskrouting.NewSecret("4821")})
	if err != nil {
		panic(err)
	}
	fmt.Println(joined.WorkerID, joined.Label, w.SignedIn())
	// Output:
	// agent_1 true sent false
	// {WorkerID:"agent_1" WorkerCreated:true EmailStatus:"sent" InviteURL:[redacted]}
	// agent_1 Ada true
}

// ListIdentities shows every sign-in, oldest first, with whether a PIN is
// set but never the PIN.
func ExampleWorkersService_ListIdentities() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1")
	if _, err := c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")}); err != nil {
		panic(err)
	}
	if _, err := c.Workers.Invite(ctx, taskrouting.InviteParams{Email: "bo@example.com", WorkerID: "agent_2"}); err != nil {
		panic(err)
	}

	ids, err := c.Workers.ListIdentities(ctx)
	if err != nil {
		panic(err)
	}
	for _, id := range ids {
		fmt.Println(id.WorkerID, id.Label, id.HasPIN)
	}
	// Output:
	// agent_1 desk 4 true
	// agent_2 bo@example.com false
}

// A resent invite carries a new token; the first one stops working.
func ExampleWorkersService_ResendInvite() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Workers.Invite(ctx, taskrouting.InviteParams{Email: "ada@example.com", WorkerID: "agent_1"}); err != nil {
		panic(err)
	}
	if _, err := c.Workers.ResendInvite(ctx, "agent_1"); err != nil {
		panic(err)
	}

	mail := sb.srv.Outbox()
	_, err := sb.newWorkerOn().AcceptInvite(ctx, taskrouting.AcceptInviteParams{Token: taskrouting.NewSecret(mail[0].Token), PIN: taskrouting.NewSecret("4821")})
	fmt.Println(len(mail), errors.Is(err, taskrouting.ErrInvalidToken))
	_, err = sb.newWorkerOn().AcceptInvite(ctx, taskrouting.AcceptInviteParams{Token: taskrouting.NewSecret(mail[1].Token), PIN: taskrouting.NewSecret("4821")})
	fmt.Println(err)
	// Output:
	// 2 true
	// <nil>
}

// Revoking a sign-in is a status change; it ends the worker's sessions.
func ExampleWorkersService_UpdateIdentity() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1")
	w := sb.signIn("agent_1")

	id, err := c.Workers.UpdateIdentity(ctx, "agent_1", taskrouting.UpdateIdentityParams{Status: "revoked"})
	if err != nil {
		panic(err)
	}
	_, err = w.Me(ctx)
	fmt.Println(id.Status, errors.Is(err, taskrouting.ErrUnauthorized))
	// Output: revoked true
}

// A join link lets workers join by themselves; its URL is answered once.
// Workers who join get the link's tags, and with RequiresApproval wait for
// an operator to put them on shift.
func ExampleJoinLinksService_Create() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()

	created, err := c.JoinLinks.Create(ctx, taskrouting.CreateJoinLinkParams{
		Label: "Warehouse", Tags: []string{"warehouse"}, RequiresApproval: true, MaxUses: 25, ExpiresIn: 24 * time.Hour,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(created.Link.Label, created.Link.Status, *created.Link.MaxUses, created.Link.ExpiresAt.Sub(created.Link.CreatedAt))
	fmt.Println(created) // the join URL admits anyone, so it is never printed
	// Output:
	// Warehouse active 25 24h0m0s
	// {Link:{ID:"jl_iympoc0r06ni" Label:"Warehouse" Status:"active"} JoinURL:[redacted]}
}

// List shows every link with how it stands: a used-up link is "exhausted".
func ExampleJoinLinksService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	created, err := c.JoinLinks.Create(ctx, taskrouting.CreateJoinLinkParams{Label: "One hire", MaxUses: 1})
	if err != nil {
		panic(err)
	}
	token, err := taskrouting.LinkToken(created.JoinURL)
	if err != nil {
		panic(err)
	}
	if _, err := sb.newWorkerOn().Join(ctx, taskrouting.JoinParams{Token: token, Name: "Ada", PIN: taskrouting.NewSecret("4821")}); err != nil {
		panic(err)
	}

	links, err := c.JoinLinks.List(ctx)
	if err != nil {
		panic(err)
	}
	for _, l := range links {
		fmt.Println(l.Label, l.Status, l.UseCount)
	}
	// Output: One hire exhausted 1
}

// A revoked link refuses joins with ErrInvalidToken and stays listed.
func ExampleJoinLinksService_Revoke() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	created, err := c.JoinLinks.Create(ctx, taskrouting.CreateJoinLinkParams{Label: "Open"})
	if err != nil {
		panic(err)
	}
	if err := c.JoinLinks.Revoke(ctx, created.Link.ID); err != nil {
		panic(err)
	}

	token, _ := taskrouting.LinkToken(created.JoinURL)
	_, err = sb.newWorkerOn().Join(ctx, taskrouting.JoinParams{Token: token, Name: "Ada", PIN: taskrouting.NewSecret("4821")})
	links, _ := c.JoinLinks.List(ctx)
	fmt.Println(errors.Is(err, taskrouting.ErrInvalidToken), links[0].Status)
	// Output: true revoked
}

// Join signs the new worker in; the worker id is the server's, and is what
// the worker signs in with next time.
func ExampleWorkerClient_Join() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	created, err := c.JoinLinks.Create(ctx, taskrouting.CreateJoinLinkParams{Label: "Kiosk", Tags: []string{"english"}})
	if err != nil {
		panic(err)
	}
	token, err := taskrouting.LinkToken(created.JoinURL)
	if err != nil {
		panic(err)
	}

	w := sb.newWorkerOn()
	joined, err := w.Join(ctx, taskrouting.JoinParams{Token: token, Name: "Ada", PIN: taskrouting.NewSecret("4821")})
	if err != nil {
		panic(err)
	}
	me, err := w.Me(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(joined.WorkerID == w.WorkerID(), me.Label, joined.PendingApproval)
	// Output: true Ada false
}

// AcceptInvite is the worker's side of Workers.Invite: the token works once.
func ExampleWorkerClient_AcceptInvite() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Workers.Invite(ctx, taskrouting.InviteParams{Email: "ada@example.com", WorkerID: "agent_1"}); err != nil {
		panic(err)
	}
	token := sb.srv.Outbox()[0].Token

	w := sb.newWorkerOn()
	if _, err := w.AcceptInvite(ctx, taskrouting.AcceptInviteParams{Token: taskrouting.NewSecret(token), PIN: taskrouting.NewSecret("4821")}); err != nil {
		panic(err)
	}
	_, err := sb.newWorkerOn().AcceptInvite(ctx, taskrouting.AcceptInviteParams{Token: taskrouting.NewSecret(token), PIN: taskrouting.NewSecret("1111")})
	fmt.Println(w.WorkerID(), errors.Is(err, taskrouting.ErrInvalidToken))
	// Output: agent_1 true
}

// The portal's address; without a published bundle Exists is false, which
// is not an error.
func ExampleClient_Portal() {
	c, sb := newSandbox()
	defer sb.Close()
	p, err := c.Portal(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(p.PortalEnabled, p.Exists)
	// Output: true false
}

// Login returns the session's expiry. Refresh rotates the token; a client
// also refreshes on its own in the last fifth of the session's life, on the
// clock given with WithClock (here the mock server's manual clock).
func ExampleWorkerClient_Refresh() {
	c, sb := newSandbox(mockserver.WithWorkerSessionTTL(time.Hour))
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1")
	if _, err := c.Workers.SetIdentity(ctx, "agent_1", taskrouting.SetIdentityParams{Label: "desk 4", PIN: taskrouting.NewSecret("4921")}); err != nil {
		panic(err)
	}
	w := sb.newWorkerOn()
	sess, err := w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: sb.srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")})
	if err != nil {
		panic(err)
	}
	fmt.Println(sess.ExpiresAt.Sub(sb.clock.Now()))

	ok, err := w.Refresh(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(ok, w.Session().Token() != sess.Token())

	sb.clock.Advance(50 * time.Minute) // ten minutes left: the next call refreshes first
	if _, err := w.Me(ctx); err != nil {
		panic(err)
	}
	fmt.Println(w.Session().ExpiresAt.Sub(sb.clock.Now()))
	// Output:
	// 1h0m0s
	// true true
	// 1h0m0s
}

// Resume adopts a session saved by an earlier process, without signing in
// again.
func ExampleWorkerClient_Resume() {
	_, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1")
	first := sb.signIn("agent_1")
	saved := first.Session()

	later := sb.newWorkerOn()
	if err := later.Resume(saved.WorkerID, saved.Token(), saved.ExpiresAt); err != nil {
		panic(err)
	}
	me, err := later.Me(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(me.WorkerID, saved) // the token is never printed
	// Output: agent_1 {WorkerID:"agent_1" ExpiresAt:2025-11-21T16:40:00Z Token:[redacted]}
}

// ChangePIN keeps the session that made the change and ends the others.
func ExampleWorkerClient_ChangePIN() {
	_, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1")
	desk := sb.signIn("agent_1")
	phone := sb.newWorkerOn()
	if err := phone.Resume("agent_1", desk.Session().Token(), time.Time{}); err != nil {
		panic(err)
	}
	other := sb.newWorkerOn()
	if _, err := other.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: sb.srv.WorkspaceID(), WorkerID: "agent_1", PIN: taskrouting.NewSecret("4921")}); err != nil {
		panic(err)
	}

	err := desk.ChangePIN(ctx, taskrouting.ChangePINParams{CurrentPIN: taskrouting.NewSecret("0000"), NewPIN: taskrouting.NewSecret("5555")})
	fmt.Println(errors.Is(err, taskrouting.ErrInvalidCurrentPIN))
	if err := desk.ChangePIN(ctx, taskrouting.ChangePINParams{CurrentPIN: taskrouting.NewSecret("4921"), NewPIN: taskrouting.NewSecret("5555")}); err != nil {
		panic(err)
	}
	_, errDesk := desk.Me(ctx)
	_, errOther := other.Me(ctx)
	fmt.Println(errDesk, errors.Is(errOther, taskrouting.ErrUnauthorized))
	// Output:
	// true
	// <nil> true
}

// SetPreferences sets the worker's language and email notices; Null
// returns the language to the workspace default.
func ExampleWorkerClient_SetPreferences() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1")
	w := sb.signIn("agent_1")

	p, err := w.SetPreferences(context.Background(), taskrouting.WorkerPreferencesParams{
		Locale: taskrouting.Some("de"), EmailNotices: taskrouting.Ptr(false),
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %q %t\n", p.WorkerID, p.Locale, p.EmailNotices)
	// Output: agent_1 "de" false
}

// SkillCatalog lists the skills an operator has created, for the worker
// to pick from with SetSkills.
func ExampleWorkerClient_SkillCatalog() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	for _, key := range []string{"welsh", "billing"} {
		if _, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: key, Name: strings.ToUpper(key[:1]) + key[1:]}); err != nil {
			panic(err)
		}
	}
	sb.worker("agent_1")

	catalog, err := sb.signIn("agent_1").SkillCatalog(ctx)
	if err != nil {
		panic(err)
	}
	for _, s := range catalog {
		fmt.Println(s.Key, s.Name)
	}
	// Output:
	// billing Billing
	// welsh Welsh
}

// A worker picks their own skills from the catalogue, with levels.
func ExampleWorkerClient_SetSkills() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	for _, key := range []string{"welsh", "billing"} {
		if _, err := c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: key, Name: key}); err != nil {
			panic(err)
		}
	}
	sb.worker("agent_1")
	w := sb.signIn("agent_1")

	catalog, err := w.SkillCatalog(ctx)
	if err != nil {
		panic(err)
	}
	var keys []string
	for _, s := range catalog {
		keys = append(keys, s.Key)
	}
	fmt.Println(strings.Join(keys, " "))
	mine, err := w.SetSkills(ctx, []taskrouting.SkillLevel{{SkillID: "welsh", Level: 4}})
	if err != nil {
		panic(err)
	}
	fmt.Println(mine.Skills[0].Key, mine.Skills[0].Level)
	// Output:
	// billing welsh
	// welsh 4
}

// UpdateLocation takes about one update per 10 seconds.
func ExampleWorkerClient_UpdateLocation() {
	_, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1")
	w := sb.signIn("agent_1")

	loc, err := w.UpdateLocation(ctx, 59.437, 24.745)
	if err != nil {
		panic(err)
	}
	fmt.Println(loc.Latitude, loc.Longitude)
	_, err = w.UpdateLocation(ctx, 59.438, 24.745, taskrouting.WithMaxRetries(0))
	fmt.Println(errors.Is(err, taskrouting.ErrRateLimited))
	// Output:
	// 59.437 24.745
	// true
}
