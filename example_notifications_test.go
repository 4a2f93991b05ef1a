package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// webhookChannel is the channel most examples start from.
var webhookChannel = taskrouting.CreateNotificationChannelParams{
	Type:   "webhook",
	Target: "https://hooks.example/taskrouting",
	Events: []string{"task.matched", "task.completed"},
	Secret: taskrouting.NewSecret("whsec_example"),
}

// escalation is the sequence most examples start from.
var escalation = taskrouting.CreateNotificationSequenceParams{
	Name:       "Escalate stale tasks",
	Steps:      []taskrouting.NotificationStep{{Trigger: "matched", EventType: "task.expiring", Offset: 5 * time.Minute}},
	FilterTags: []string{"billing"},
}

// A webhook channel receives the event types it subscribes to; its signing
// secret is sent once and never comes back.
func ExampleNotificationChannelsService_Create() {
	c, sb := newSandbox()
	defer sb.Close()

	ch, err := c.Notifications.Channels.Create(context.Background(), webhookChannel)
	if err != nil {
		panic(err)
	}
	fmt.Println(ch.Type, ch.Target, ch.Events, ch.Disabled)
	fmt.Println(webhookChannel) // the parameters print without the secret
	// Output:
	// webhook https://hooks.example/taskrouting [task.matched task.completed] false
	// taskrouting.CreateNotificationChannelParams{Type: "webhook", Target: "https://hooks.example/taskrouting", Events: 2 types, Secret: [redacted]}
}

// List returns the workspace's channels in creation order.
func ExampleNotificationChannelsService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	for _, target := range []string{"https://hooks.example/a", "https://hooks.example/b"} {
		p := webhookChannel
		p.Target = target
		if _, err := c.Notifications.Channels.Create(ctx, p); err != nil {
			panic(err)
		}
	}

	chs, err := c.Notifications.Channels.List(ctx)
	if err != nil {
		panic(err)
	}
	for _, ch := range chs {
		fmt.Println(ch.Target)
	}
	// Output:
	// https://hooks.example/a
	// https://hooks.example/b
}

// Get reads one channel by id; an unknown id is ErrNotFound.
func ExampleNotificationChannelsService_Get() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	ch, err := c.Notifications.Channels.Create(ctx, webhookChannel)
	if err != nil {
		panic(err)
	}

	got, err := c.Notifications.Channels.Get(ctx, ch.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(got.Target)
	_, err = c.Notifications.Channels.Get(ctx, "ch_missing")
	fmt.Println(errors.Is(err, taskrouting.ErrNotFound))
	// Output:
	// https://hooks.example/taskrouting
	// true
}

// Disabling a channel stops delivery without removing it; an update sends
// only the fields it sets.
func ExampleNotificationChannelsService_Update() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	ch, err := c.Notifications.Channels.Create(ctx, webhookChannel)
	if err != nil {
		panic(err)
	}

	ch, err = c.Notifications.Channels.Update(ctx, ch.ID, taskrouting.UpdateNotificationChannelParams{Disabled: taskrouting.Ptr(true)})
	if err != nil {
		panic(err)
	}
	fmt.Println(ch.Disabled, ch.Events)
	// Output: true [task.matched task.completed]
}

// Remove deletes a channel; sequences do not name channels, so they stay.
func ExampleNotificationChannelsService_Remove() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	ch, err := c.Notifications.Channels.Create(ctx, webhookChannel)
	if err != nil {
		panic(err)
	}

	if err := c.Notifications.Channels.Remove(ctx, ch.ID); err != nil {
		panic(err)
	}
	chs, err := c.Notifications.Channels.List(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(chs))
	// Output: 0
}

// A sequence times its steps relative to a task's lifecycle trigger; it is
// enabled unless created otherwise.
func ExampleNotificationSequencesService_Create() {
	c, sb := newSandbox()
	defer sb.Close()

	seq, err := c.Notifications.Sequences.Create(context.Background(), escalation)
	if err != nil {
		panic(err)
	}
	st := seq.Steps[0]
	fmt.Println(seq.Name, seq.Enabled, seq.FilterTags)
	fmt.Println(st.Trigger, st.Offset, st.EventType)
	// Output:
	// Escalate stale tasks true [billing]
	// matched 5m0s task.expiring
}

// List returns the workspace's sequences in creation order.
func ExampleNotificationSequencesService_List() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	if _, err := c.Notifications.Sequences.Create(ctx, escalation); err != nil {
		panic(err)
	}

	seqs, err := c.Notifications.Sequences.List(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(seqs), seqs[0].Name)
	// Output: 1 Escalate stale tasks
}

// Get reads one sequence by id.
func ExampleNotificationSequencesService_Get() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	seq, err := c.Notifications.Sequences.Create(ctx, escalation)
	if err != nil {
		panic(err)
	}

	got, err := c.Notifications.Sequences.Get(ctx, seq.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(got.Name, len(got.Steps))
	// Output: Escalate stale tasks 1
}

// Disabling a sequence keeps its steps: an update sends only what it sets.
func ExampleNotificationSequencesService_Update() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	seq, err := c.Notifications.Sequences.Create(ctx, escalation)
	if err != nil {
		panic(err)
	}

	seq, err = c.Notifications.Sequences.Update(ctx, seq.ID, taskrouting.UpdateNotificationSequenceParams{Enabled: taskrouting.Ptr(false)})
	if err != nil {
		panic(err)
	}
	fmt.Println(seq.Enabled, len(seq.Steps))
	// Output: false 1
}

// Remove deletes a sequence; reading it afterwards is ErrNotFound.
func ExampleNotificationSequencesService_Remove() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	seq, err := c.Notifications.Sequences.Create(ctx, escalation)
	if err != nil {
		panic(err)
	}

	if err := c.Notifications.Sequences.Remove(ctx, seq.ID); err != nil {
		panic(err)
	}
	_, err = c.Notifications.Sequences.Get(ctx, seq.ID)
	fmt.Println(errors.Is(err, taskrouting.ErrNotFound))
	// Output: true
}
