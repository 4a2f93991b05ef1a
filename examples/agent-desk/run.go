package main

import (
	"context"
	"fmt"
	"io"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// run plays the supervisor and sam's desk against an in-process mock server.
func run(ctx context.Context, out io.Writer) error {
	srv, err := mockserver.New(mockserver.WithSeed(1))
	if err != nil {
		return fmt.Errorf("mock server: %w", err)
	}
	defer srv.Close()

	// The supervisor side: the workspace's API key.
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		return err
	}
	sup := &supervisor{c: c, out: out}
	// sam is preferred (weight 2) when he can take work; kim holds one offer at a time.
	if err := sup.upsert(ctx, taskrouting.UpsertWorkerParams{ID: "sam", Tags: []string{"chat", "english"},
		RoutingWeights: map[string]float64{"chat": 2}, Available: taskrouting.Ptr(false)}); err != nil {
		return err
	}
	if err := sup.upsert(ctx, taskrouting.UpsertWorkerParams{ID: "kim", Tags: []string{"chat", "english"},
		MaxBacklogSize: taskrouting.Ptr(1), Available: taskrouting.Ptr(true)}); err != nil {
		return err
	}
	const pin = "4821" // in real life the worker chooses it; it is never echoed or logged
	if _, err := c.Workers.SetIdentity(ctx, "sam", taskrouting.SetIdentityParams{PIN: taskrouting.NewSecret(pin), Label: "desk 4"}); err != nil {
		return fmt.Errorf("set identity: %w", err)
	}
	sup.say("gave sam a sign-in for desk 4")

	// Sam's desk: a worker client, signed in with the workspace id and the PIN.
	wc, err := taskrouting.NewWorkerClient(srv.URL())
	if err != nil {
		return err
	}
	d := &desk{w: wc, out: out, poll: 100 * time.Millisecond}
	if err := d.signIn(ctx, srv.WorkspaceID(), "sam", pin); err != nil {
		return err
	}
	if _, err := wc.SetAvailability(ctx, true); err != nil {
		return fmt.Errorf("go on shift: %w", err)
	}
	d.say("on shift")

	fmt.Fprintln(out, "\nbefore the break:")
	if _, _, err := sup.create(ctx, "Where is my parcel?", 20); err != nil {
		return err
	}
	if err := d.work(ctx); err != nil {
		return err
	}

	fmt.Fprintln(out, "\nthe break:")
	b, err := wc.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
	if err != nil {
		return fmt.Errorf("start break: %w", err)
	}
	d.say("break started (lunch), on break %t", b.OnBreak)
	toOther, other, err := sup.create(ctx, "Change my address", 30)
	if err != nil {
		return err
	}
	waiting, _, err := sup.create(ctx, "Cancel my order", 50)
	if err != nil {
		return err
	}
	if other == "" {
		return fmt.Errorf("%s found no worker while sam was on a break; kim should have taken it", toOther)
	}
	// Matching runs before a create returns, so the queue read now is the whole story.
	ids, err := d.offers(ctx)
	if err != nil {
		return err
	}
	d.say("offers during the break: %d", len(ids))
	offersDuringBreak := len(ids)
	if _, err := wc.EndBreak(ctx); err != nil {
		return fmt.Errorf("end break: %w", err)
	}
	d.say("break ended")

	fmt.Fprintln(out, "\nafter the break:")
	if err := d.refresh(ctx); err != nil {
		return err
	}
	if err := d.work(ctx); err != nil {
		return err
	}
	if err := d.today(ctx); err != nil {
		return err
	}
	// kim finishes the task she took while sam was away.
	if err := sup.finish(ctx, toOther, other); err != nil {
		return err
	}
	if err := wc.Logout(ctx); err != nil {
		return fmt.Errorf("logout: %w", err)
	}
	d.say("signed out")

	waitedFor, err := sup.c.Tasks.Get(ctx, waiting)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nsummary: sam completed %d tasks, %d offers during the break, %s took %s meanwhile, %s waited for sam (now %s)\n",
		d.completed, offersDuringBreak, other, toOther, waiting, waitedFor.Status)
	return nil
}

// supervisor is the workspace side: it creates tasks and reports where they went.
type supervisor struct {
	c   *taskrouting.Client
	out io.Writer
}

func (s *supervisor) upsert(ctx context.Context, p taskrouting.UpsertWorkerParams) error {
	if _, err := s.c.Workers.Upsert(ctx, p); err != nil {
		return fmt.Errorf("upsert %s: %w", p.ID, err)
	}
	return nil
}

// create makes a chat task and returns its id and the worker it was offered to ("" when it
// waits in the queue).
func (s *supervisor) create(ctx context.Context, title string, priority float64) (id, workerID string, err error) {
	ref, err := s.c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Title: title, Tags: []string{"chat", "english"}, Priority: priority})
	if err != nil {
		return "", "", fmt.Errorf("create %q: %w", title, err)
	}
	t, err := s.c.Tasks.Get(ctx, ref.ID)
	if err != nil {
		return "", "", fmt.Errorf("get %s: %w", ref.ID, err)
	}
	where := "waits in the queue"
	if t.Status == taskrouting.TaskStatusPending {
		where = "offered to " + t.WorkerID
	}
	s.say("created %s %q (priority %g): %s", t.ID, title, priority, where)
	return ref.ID, t.WorkerID, nil
}

// finish accepts and completes a task for a worker without a desk of its own.
func (s *supervisor) finish(ctx context.Context, taskID, workerID string) error {
	if _, err := s.c.Decisions.Accept(ctx, taskID, workerID); err != nil {
		return fmt.Errorf("accept %s for %s: %w", taskID, workerID, err)
	}
	if _, err := s.c.Decisions.Complete(ctx, taskID, workerID, nil); err != nil {
		return fmt.Errorf("complete %s for %s: %w", taskID, workerID, err)
	}
	s.say("%s accepted and completed %s", workerID, taskID)
	return nil
}

func (s *supervisor) say(format string, args ...any) {
	fmt.Fprintf(s.out, "  supervisor: "+format+"\n", args...)
}
