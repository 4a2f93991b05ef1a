package main

import (
	"context"
	"fmt"
	"io"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// desk is one worker's own application: it holds a WorkerClient, which can only reach that
// worker's queue, tasks and breaks.
type desk struct {
	w         *taskrouting.WorkerClient
	out       io.Writer
	poll      time.Duration // how often nextOffer asks for the queue
	completed int
}

// signIn logs in with the sign-in the workspace gave the worker: POST /worker-auth/login.
// The session expires; the client refreshes it on its own in the last fifth of its life.
func (d *desk) signIn(ctx context.Context, workspaceID, workerID, pin string) error {
	sess, err := d.w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: workspaceID, WorkerID: workerID, PIN: taskrouting.NewSecret(pin)})
	if err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	d.say("session for %s, valid for %s", sess.WorkerID, time.Until(sess.ExpiresAt).Round(time.Hour))
	me, err := d.w.Me(ctx)
	if err != nil {
		return fmt.Errorf("me: %w", err)
	}
	d.say("signed in as %s (available %t, on break %t)", me.WorkerID, me.Available, me.OnBreak)
	return nil
}

// offers returns the tasks offered to the worker and not yet accepted.
func (d *desk) offers(ctx context.Context) ([]string, error) {
	q, err := d.w.Queue(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	return q.TaskIDs, nil
}

// nextOffer polls the queue until a task is offered or ctx ends.
func (d *desk) nextOffer(ctx context.Context) (string, error) {
	t := time.NewTicker(d.poll)
	defer t.Stop()
	for {
		ids, err := d.offers(ctx)
		if err != nil {
			return "", err
		}
		if len(ids) > 0 {
			return ids[0], nil
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for an offer: %w", ctx.Err())
		}
	}
}

// work takes the next offer, accepts it, does it and completes it.
func (d *desk) work(ctx context.Context) error {
	id, err := d.nextOffer(ctx)
	if err != nil {
		return err
	}
	task, err := d.w.Task(ctx, id)
	if err != nil {
		return fmt.Errorf("task %s: %w", id, err)
	}
	d.say("offered %s %q (priority %g)", task.ID, task.Title, task.Priority)
	if _, err := d.w.Accept(ctx, id); err != nil {
		return fmt.Errorf("accept %s: %w", id, err)
	}
	// A note for whoever reads the task later (the supervisor, the next worker).
	if _, err := d.w.AddComment(ctx, id, "customer confirmed by chat"); err != nil {
		return fmt.Errorf("comment on %s: %w", id, err)
	}
	if _, err := d.w.Complete(ctx, id, map[string]any{"resolved": true}); err != nil {
		return fmt.Errorf("complete %s: %w", id, err)
	}
	d.completed++
	d.say("accepted, commented and completed %s", id)
	return nil
}

// refresh renews the session before a long stretch of work (the client would do it on its
// own near the end of the session; a desk may also do it at a moment of its choosing).
func (d *desk) refresh(ctx context.Context) error {
	ok, err := d.w.Refresh(ctx)
	if err != nil {
		return fmt.Errorf("refresh: %w", err)
	}
	if !ok {
		return fmt.Errorf("refresh: the session is over; sign in again")
	}
	d.say("session refreshed")
	return nil
}

// today prints the worker's own day as the server counted it.
func (d *desk) today(ctx context.Context) error {
	day, err := d.w.MetricsToday(ctx)
	if err != nil {
		return fmt.Errorf("metrics today: %w", err)
	}
	breaks, err := d.w.BreaksToday(ctx)
	if err != nil {
		return fmt.Errorf("breaks today: %w", err)
	}
	d.say("today: %d tasks completed, %d shift(s), %d break(s)", day.CompletedTasks, day.ShiftCount, len(breaks.Breaks))
	return nil
}

func (d *desk) say(format string, args ...any) {
	fmt.Fprintf(d.out, "  desk: "+format+"\n", args...)
}
