package taskrouting_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// supervisor makes a whole-workspace supervisor link on the mock server (the platform's
// owner does this in its console) and redeems it.
func (sb *sandbox) supervisor() *taskrouting.SupervisorClient {
	link, err := sb.srv.InviteSupervisor(mockserver.SupervisorInvite{Label: "Dana"})
	if err != nil {
		panic(err)
	}
	s, err := taskrouting.NewSupervisorClient(sb.srv.URL())
	if err != nil {
		panic(err)
	}
	if _, err := s.AcceptInvite(context.Background(), link.Token); err != nil {
		panic(err)
	}
	return s
}

func ExampleSupervisorClient_AcceptInvite() {
	_, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	link, err := sb.srv.InviteSupervisor(mockserver.SupervisorInvite{Label: "Dana"})
	if err != nil {
		panic(err)
	}

	s, err := taskrouting.NewSupervisorClient(sb.srv.URL())
	if err != nil {
		panic(err)
	}
	sess, err := s.AcceptInvite(ctx, link.Token)
	if err != nil {
		panic(err)
	}
	fmt.Println("signed in as", sess.Supervisor.Label, "until", sess.ExpiresAt.Format(time.RFC3339))

	// The link is single-use.
	_, err = s.AcceptInvite(ctx, link.Token)
	fmt.Println("again:", errors.Is(err, taskrouting.ErrInvalidToken))
	// Output:
	// signed in as Dana until 2025-11-21T16:40:00Z
	// again: true
}

func ExampleSupervisorClient_Entry() {
	_, sb := newSandbox()
	defer sb.Close()
	s, err := taskrouting.NewSupervisorClient(sb.srv.URL())
	if err != nil {
		panic(err)
	}
	entry, err := s.Entry(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Printf("console: %q\n", entry.ConsoleURL)
	// Output:
	// console: ""
}

func ExampleSupervisorClient_Logout() {
	_, sb := newSandbox()
	defer sb.Close()
	s := sb.supervisor()
	if err := s.Logout(context.Background()); err != nil {
		panic(err)
	}
	fmt.Println("signed in:", s.SignedIn())
	// Output:
	// signed in: false
}

func ExampleSupervisorClient_Me() {
	_, sb := newSandbox()
	defer sb.Close()
	me, err := sb.supervisor().Me(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s, team %q (\"\" is the whole workspace)\n", me.Label, me.TeamKey)
	// Output:
	// Dana, team "" ("" is the whole workspace)
}

func ExampleSupervisorClient_Overview() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("t1", 0, "english")
	sb.task("t2", 0, "billing") // nobody carries billing: it waits
	sb.clock.Advance(90 * time.Second)

	board, err := sb.supervisor().Overview(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Printf("queued %d, pending %d, oldest wait %s\n", board.Counts.Queued, board.Counts.Pending, board.Counts.OldestWait)
	for _, m := range board.Crew {
		fmt.Println(m.WorkerID, "backlog", m.Backlog, "available", m.Available)
	}
	// Output:
	// queued 1, pending 1, oldest wait 1m30s
	// agent_1 backlog 1 available true
}

func ExampleSupervisorClient_SetPriority() {
	c, sb := newSandbox()
	defer sb.Close()
	sb.task("t1", 0, "english")
	ctx := context.Background()

	if _, err := sb.supervisor().SetPriority(ctx, "t1", 90); err != nil {
		panic(err)
	}
	t, err := c.Tasks.Get(ctx, "t1")
	if err != nil {
		panic(err)
	}
	fmt.Println(t.ID, "priority", t.Priority)
	// Output:
	// t1 priority 90
}

// A task parked after too many rejections goes back into matching from the
// floor, as Tasks.Unpark does from the workspace plane.
func ExampleSupervisorClient_Unpark() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	sb.worker("agent_1", "billing")
	sb.worker("agent_2", "billing")
	_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{
		ID: "task_1", Tags: []string{"billing"},
		SLA: taskrouting.Some(taskrouting.SLA{MaxRejections: 1, OnMaxRejections: taskrouting.MaxRejectionsPark}),
	})
	if err != nil {
		panic(err)
	}
	if _, err := c.Decisions.Reject(ctx, "task_1", "agent_1"); err != nil {
		panic(err)
	}

	ref, err := sb.supervisor().Unpark(ctx, "task_1", taskrouting.UnparkTaskParams{ResetSLA: taskrouting.Ptr(true)})
	if err != nil {
		panic(err)
	}
	t, err := c.Tasks.Get(ctx, "task_1")
	if err != nil {
		panic(err)
	}
	fmt.Println(ref.Status, t.Status, t.WorkerID)
	// Output:
	// queued pending agent_2
}

func ExampleSupervisorClient_Assign() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.worker("agent_2", "english")
	sb.task("t1", 0, "english") // offered to agent_1
	ctx := context.Background()
	s := sb.supervisor()

	a, err := s.Assign(ctx, "t1", "agent_2", taskrouting.SupervisorAssignParams{})
	if err != nil {
		panic(err)
	}
	fmt.Println(a.ID, "now", a.Status, "with", a.WorkerID)
	_, err = s.Assign(ctx, "t1", "nobody", taskrouting.SupervisorAssignParams{Force: true})
	fmt.Println("unknown worker:", errors.Is(err, taskrouting.ErrNotFound))
	// Output:
	// t1 now pending with agent_2
	// unknown worker: true
}

func ExampleSupervisorClient_SetAvailability() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	sb.task("t1", 0, "english")

	res, err := sb.supervisor().SetAvailability(context.Background(), "agent_1",
		taskrouting.SupervisorAvailabilityParams{Available: false, ReleaseBacklog: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.WorkerID, "available:", res.Available, "released:", res.ReleasedTaskIDs)
	// Output:
	// agent_1 available: false released: [t1]
}

func ExampleSupervisorClient_VoiceICE() {
	_, sb := newSandbox(mockserver.WithVoiceICEServers(json.RawMessage(`[{"urls":"stun:stun.example:3478"}]`)))
	defer sb.Close()
	ice, err := sb.supervisor().VoiceICE(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(ice.ICEServers[0].URLs)
	// Output:
	// [stun:stun.example:3478]
}

func ExampleSupervisorClient_PushConfig() {
	_, sb := newSandbox()
	defer sb.Close()
	cfg, err := sb.supervisor().PushConfig(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println("push enabled:", cfg.Enabled)
	// Output:
	// push enabled: false
}

func ExampleSupervisorClient_PushSubscribe() {
	_, sb := newSandbox(mockserver.WithPushPublicKey("BEl6_vapid_public_key"))
	defer sb.Close()
	s := sb.supervisor()
	ctx := context.Background()
	sub := taskrouting.PushSubscriptionParams{Endpoint: "https://push.example/s1", P256dh: "BPk3", Auth: taskrouting.NewSecret("secret")}
	if err := s.PushSubscribe(ctx, sub); err != nil {
		panic(err)
	}
	fmt.Println(sub) // the auth secret is never printed
	fmt.Println("stored:", len(sb.srv.PushRegistrations()))
	if err := s.PushUnsubscribe(ctx, sub.Endpoint); err != nil {
		panic(err)
	}
	fmt.Println("stored:", len(sb.srv.PushRegistrations()))
	// Output:
	// {Endpoint:"https://push.example/s1" P256dh:"BPk3" Auth:[redacted]}
	// stored: 1
	// stored: 0
}

// PushUnsubscribe drops a subscription by its endpoint alone, as a
// service worker does when the browser reports a change.
func ExampleSupervisorClient_PushUnsubscribe() {
	_, sb := newSandbox(mockserver.WithPushPublicKey("BEl6_vapid_public_key"))
	defer sb.Close()
	s := sb.supervisor()
	ctx := context.Background()
	for _, endpoint := range []string{"https://push.example/laptop", "https://push.example/phone"} {
		if err := s.PushSubscribe(ctx, taskrouting.PushSubscriptionParams{Endpoint: endpoint, P256dh: "BPk3", Auth: taskrouting.NewSecret("secret")}); err != nil {
			panic(err)
		}
	}

	if err := s.PushUnsubscribe(ctx, "https://push.example/laptop"); err != nil {
		panic(err)
	}
	for _, reg := range sb.srv.PushRegistrations() {
		fmt.Println("left:", reg.Endpoint)
	}
	// An endpoint already gone is not an error.
	fmt.Println("again:", s.PushUnsubscribe(ctx, "https://push.example/laptop"))
	// Output:
	// left: https://push.example/phone
	// again: <nil>
}

func ExampleWorkerClient_PushSubscribe() {
	_, sb := newSandbox(mockserver.WithPushPublicKey("BEl6_vapid_public_key"))
	defer sb.Close()
	sb.worker("agent_1", "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	cfg, err := w.PushConfig(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("push enabled:", cfg.Enabled)
	sub, err := w.PushSubscribe(ctx, taskrouting.PushSubscriptionParams{Endpoint: "https://push.example/w1", P256dh: "BPk3", Auth: taskrouting.NewSecret("secret")})
	if err != nil {
		panic(err)
	}
	fmt.Println("subscribed", sub.Endpoint, "at", sub.CreatedAt.Format(time.RFC3339))
	if err := w.PushUnsubscribe(ctx, sub.Endpoint); err != nil {
		panic(err)
	}
	// Output:
	// push enabled: true
	// subscribed https://push.example/w1 at 2025-11-21T04:40:00Z
}

func ExampleWorkerClient_RegisterDevice() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	w := sb.signIn("agent_1")
	ctx := context.Background()

	d, err := w.RegisterDevice(ctx, "ExponentPushToken[abc]", "android")
	if err != nil {
		panic(err)
	}
	fmt.Println("registered", d.Platform, "device")
	if err := w.UnregisterDevice(ctx, d.Token); err != nil {
		panic(err)
	}
	fmt.Println("stored:", len(sb.srv.PushRegistrations()))
	// Output:
	// registered android device
	// stored: 0
}

// PushConfig tells a worker app whether to offer web push at all, and the
// VAPID public key to subscribe the browser with.
func ExampleWorkerClient_PushConfig() {
	_, sb := newSandbox(mockserver.WithPushPublicKey("BEl6_vapid_public_key"))
	defer sb.Close()
	sb.worker("agent_1")

	cfg, err := sb.signIn("agent_1").PushConfig(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println("push enabled:", cfg.Enabled, "key:", cfg.PublicKey)
	// Output:
	// push enabled: true key: BEl6_vapid_public_key
}

// PushUnsubscribe drops one of the worker's browser subscriptions by its
// endpoint; the others stay.
func ExampleWorkerClient_PushUnsubscribe() {
	_, sb := newSandbox(mockserver.WithPushPublicKey("BEl6_vapid_public_key"))
	defer sb.Close()
	sb.worker("agent_1")
	w := sb.signIn("agent_1")
	ctx := context.Background()
	for _, endpoint := range []string{"https://push.example/laptop", "https://push.example/phone"} {
		if _, err := w.PushSubscribe(ctx, taskrouting.PushSubscriptionParams{Endpoint: endpoint, P256dh: "BPk3", Auth: taskrouting.NewSecret("secret")}); err != nil {
			panic(err)
		}
	}

	if err := w.PushUnsubscribe(ctx, "https://push.example/laptop"); err != nil {
		panic(err)
	}
	for _, reg := range sb.srv.PushRegistrations() {
		fmt.Println(reg.OwnerID, "left:", reg.Endpoint)
	}
	// An endpoint already gone is not an error.
	fmt.Println("again:", w.PushUnsubscribe(ctx, "https://push.example/laptop"))
	// Output:
	// agent_1 left: https://push.example/phone
	// again: <nil>
}

// UnregisterDevice removes a native app's push token, on sign-out say.
func ExampleWorkerClient_UnregisterDevice() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1")
	w := sb.signIn("agent_1")
	ctx := context.Background()
	for _, token := range []string{"ExponentPushToken[phone]", "ExponentPushToken[tablet]"} {
		if _, err := w.RegisterDevice(ctx, token, "android"); err != nil {
			panic(err)
		}
	}

	if err := w.UnregisterDevice(ctx, "ExponentPushToken[tablet]"); err != nil {
		panic(err)
	}
	fmt.Println("devices left:", len(sb.srv.PushRegistrations()))
	// Output:
	// devices left: 1
}

func ExampleWorkerClient_VoiceICE() {
	_, sb := newSandbox()
	defer sb.Close()
	sb.worker("agent_1", "english")
	_, err := sb.signIn("agent_1").VoiceICE(context.Background())
	fmt.Println("voice off:", errors.Is(err, taskrouting.ErrVoiceDisabled))
	// Output:
	// voice off: true
}
