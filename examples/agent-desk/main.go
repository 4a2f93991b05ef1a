// Command agent-desk plays a worker's own desk on the worker plane: the calls a single worker
// makes for itself with a session token, not with the workspace's API key.
//
// It runs offline against an in-process mock server. A supervisor (the workspace client)
// creates two workers, sam and kim, and gives sam a sign-in (POST /workers/{id}/identity).
// Sam's desk then signs in with the workspace id and a PIN (POST /worker-auth/login), goes on
// shift, accepts and completes what it is offered, takes a break, and shows that no offer
// arrives during it: tasks created meanwhile go to kim or wait. When the break ends the
// waiting task is offered to sam at once. It ends with a summary line:
//
//	go run ./examples/agent-desk
//
// A real desk learns of offers by polling its queue (GET /portal/workers/{id}/queue), as
// desk.nextOffer does; the worker plane has no webhooks.
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
		fmt.Fprintln(os.Stderr, "agent-desk:", err)
		os.Exit(1)
	}
}
