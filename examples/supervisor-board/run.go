package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// start is the mock server's clock at the beginning of the story.
var start = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// run sets up the workspace, then plays the supervisor against an in-process mock server.
func run(ctx context.Context, out io.Writer) error {
	clk := mockserver.NewManualClock(start)
	srv, err := mockserver.New(mockserver.WithSeed(1), mockserver.WithClock(clk))
	if err != nil {
		return fmt.Errorf("mock server: %w", err)
	}
	defer srv.Close()

	// The workspace side: the API key.
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		return err
	}
	team, err := setUp(ctx, c, clk)
	if err != nil {
		return err
	}

	// The owner makes a link for the billing team's lead, whose client redeems it.
	link, err := srv.InviteSupervisor(mockserver.SupervisorInvite{Label: "Dana", TeamID: team.ID})
	if err != nil {
		return fmt.Errorf("invite: %w", err)
	}
	sup, err := taskrouting.NewSupervisorClient(srv.URL())
	if err != nil {
		return err
	}
	sess, err := sup.AcceptInvite(ctx, link.Token)
	if err != nil {
		return fmt.Errorf("accept the link: %w", err)
	}
	me, err := sup.Me(ctx)
	if err != nil {
		return fmt.Errorf("me: %w", err)
	}
	fmt.Fprintf(out, "signed in as %s, team %s, session until %s\n", sess.Supervisor.Label, me.TeamKey, sess.ExpiresAt.Format("15:04"))

	fmt.Fprintln(out, "\nthe board at 09:02:")
	first, err := printBoard(ctx, sup, out)
	if err != nil {
		return err
	}

	fmt.Fprintln(out, "\nacting on it:")
	// The urgent task waits behind older work: move it to the front.
	p, err := sup.SetPriority(ctx, "vip", 90)
	if err != nil {
		return fmt.Errorf("set priority: %w", err)
	}
	fmt.Fprintf(out, "  bumped %s to priority %g\n", p.ID, p.Priority)
	// ben steps away: pause him and put his offers back in the queue for the others.
	paused, err := sup.SetAvailability(ctx, "ben", taskrouting.SupervisorAvailabilityParams{Available: false, ReleaseBacklog: true})
	if err != nil {
		return fmt.Errorf("pause ben: %w", err)
	}
	fmt.Fprintf(out, "  paused ben, released %s\n", strings.Join(paused.ReleasedTaskIDs, ", "))
	// ana is full; without force the matcher refuses, with force she takes it over her cap.
	if _, err := sup.Assign(ctx, "vip", "ana", taskrouting.SupervisorAssignParams{}); errors.Is(err, taskrouting.ErrAssignBlocked) {
		fmt.Fprintln(out, "  assign vip to ana: blocked (her backlog is full)")
	} else if err != nil {
		return fmt.Errorf("assign: %w", err)
	}
	a, err := sup.Assign(ctx, "vip", "ana", taskrouting.SupervisorAssignParams{Force: true})
	if err != nil {
		return fmt.Errorf("force assign: %w", err)
	}
	fmt.Fprintf(out, "  assigned %s to %s with force: %s\n", a.ID, a.WorkerID, a.Status)
	// The sales task is another team's business.
	refused := 0
	if _, err := sup.SetPriority(ctx, "sales_1", 90); errors.Is(err, taskrouting.ErrForbidden) {
		refused++
		fmt.Fprintln(out, "  bump sales_1: refused, outside the billing team")
	} else {
		return fmt.Errorf("bump sales_1: want 403 forbidden, got %v", err)
	}

	fmt.Fprintln(out, "\nthe board after:")
	after, err := printBoard(ctx, sup, out)
	if err != nil {
		return err
	}
	if err := sup.Logout(ctx); err != nil {
		return fmt.Errorf("logout: %w", err)
	}

	fmt.Fprintf(out, "\nsummary: %d queued and %d pending before, %d queued and %d pending after; vip bumped and handed to ana, ben paused (%d offers released), %d out-of-team action refused\n",
		first.Counts.Queued, first.Counts.Pending, after.Counts.Queued, after.Counts.Pending, len(paused.ReleasedTaskIDs), refused)
	return nil
}

// setUp makes the billing team (ana and ben, two offers each), five billing tasks a minute
// apart (the last one waits), an urgent task at normal priority, and a sales task.
func setUp(ctx context.Context, c *taskrouting.Client, clk *mockserver.ManualClock) (*taskrouting.Team, error) {
	team, err := c.Teams.Create(ctx, taskrouting.CreateTeamParams{Key: "billing", Name: "Billing"})
	if err != nil {
		return nil, fmt.Errorf("create team: %w", err)
	}
	for _, id := range []string{"ana", "ben"} {
		if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: id, Tags: []string{team.Tag},
			MaxBacklogSize: taskrouting.Ptr(2), Available: taskrouting.Ptr(true)}); err != nil {
			return nil, fmt.Errorf("upsert %s: %w", id, err)
		}
	}
	if _, err := c.Teams.SetMembers(ctx, team.ID, []string{"ana", "ben"}); err != nil {
		return nil, fmt.Errorf("team members: %w", err)
	}
	if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "sol", Tags: []string{"sales"}}); err != nil {
		return nil, fmt.Errorf("upsert sol: %w", err)
	}
	for i := 1; i <= 5; i++ {
		if _, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: fmt.Sprintf("bill_%d", i), Tags: []string{team.Tag}}); err != nil {
			return nil, fmt.Errorf("create task: %w", err)
		}
		clk.Advance(20 * time.Second)
	}
	for _, p := range []taskrouting.CreateTaskParams{{ID: "vip", Tags: []string{team.Tag}}, {ID: "sales_1", Tags: []string{"sales"}}} {
		if _, err := c.Tasks.Create(ctx, p); err != nil {
			return nil, fmt.Errorf("create %s: %w", p.ID, err)
		}
	}
	clk.Advance(20 * time.Second)
	return team, nil
}

func printBoard(ctx context.Context, sup *taskrouting.SupervisorClient, out io.Writer) (*taskrouting.SupervisorBoard, error) {
	b, err := sup.Overview(ctx)
	if err != nil {
		return nil, fmt.Errorf("overview: %w", err)
	}
	fmt.Fprintf(out, "  team %s: %d queued, %d pending, %d parked, oldest waiting %s\n",
		b.TeamKey, b.Counts.Queued, b.Counts.Pending, b.Counts.Parked, b.Counts.OldestWait)
	for _, m := range b.Crew {
		state := "available"
		if !m.Available {
			state = "paused"
		}
		fmt.Fprintf(out, "  %-4s %d offers held, %s\n", m.WorkerID, m.Backlog, state)
	}
	return b, nil
}
