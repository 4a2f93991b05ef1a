package mockserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// A notification sequence fires on the server's clock: here five minutes
// after a billing task is matched, the channel subscribed to
// "task.expiring" gets a POST signed with the channel's secret.
func ExampleServer_Notifications() {
	clk := mockserver.NewManualClock(time.UnixMilli(storyStart))
	srv, err := mockserver.New(mockserver.WithClock(clk))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c := connect(srv)
	ctx := context.Background()

	const secret = "whsec_channel"
	verifier, err := webhook.NewVerifier(secret, webhook.WithClock(clk.Now))
	if err != nil {
		panic(err)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Println("received, signature valid:", verifier.Verify(body, r.Header.Get(webhook.SignatureHeader)) == nil)
	}))
	defer receiver.Close()

	_, err = c.Notifications.Channels.Create(ctx, taskrouting.CreateNotificationChannelParams{
		Type: "webhook", Target: receiver.URL, Events: []string{"task.expiring"}, Secret: taskrouting.NewSecret(secret)})
	if err != nil {
		panic(err)
	}
	_, err = c.Notifications.Sequences.Create(ctx, taskrouting.CreateNotificationSequenceParams{
		Name: "Escalate stale billing", FilterTags: []string{"billing"},
		Steps: []taskrouting.NotificationStep{{Trigger: "matched", Offset: 5 * time.Minute, EventType: "task.expiring"}}})
	if err != nil {
		panic(err)
	}
	agent(c, "agent_1", "billing")
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"billing"}})
	if err != nil {
		panic(err)
	}
	if _, err := c.Decisions.Accept(ctx, ref.ID, "agent_1"); err != nil {
		panic(err)
	}

	clk.Advance(5 * time.Minute)
	for _, n := range srv.Notifications() {
		fmt.Println(n.EventType, n.Trigger, n.At.Sub(time.UnixMilli(storyStart)), n.Outcome)
	}
	// Output:
	// received, signature valid: true
	// task.expiring matched 5m0s delivered
}
