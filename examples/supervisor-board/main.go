// Command supervisor-board plays a crew lead on the supervisor plane: the calls a supervisor
// makes with a session token (sv_...) to watch the live board and unblock work, not with the
// workspace's API key.
//
// It runs offline against an in-process mock server on a manual clock, so its output is the
// same on every run. The workspace side sets up a billing team (ana and ben) and a stream of
// billing tasks, plus one sales task outside the team. The owner makes a supervisor link
// scoped to the billing team (on the platform this is done in its console; the mock server
// makes it with InviteSupervisor), and the supervisor's client redeems it. The supervisor
// then reads the board (counts, oldest wait, crew busiest first), bumps an urgent task's
// priority, pauses ben and releases his offers back to the queue, hands the urgent task to
// ana past her backlog cap, is refused on the sales task (403: outside the team), and reads
// the board again. It ends with a summary line:
//
//	go run ./examples/supervisor-board
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "supervisor-board:", err)
		os.Exit(1)
	}
}
