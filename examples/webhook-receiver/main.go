// Command webhook-receiver is a minimal, production-shaped receiver of task-routing webhooks.
//
// It verifies every delivery with webhook.Handler before reading it (signature over the raw
// body, timestamp within five minutes), limits the body size, skips redeliveries of events
// it has already processed, runs an http.Server with timeouts, and shuts down gracefully on
// SIGINT or SIGTERM, printing a summary line.
//
// Configuration (a flag wins over its variable):
//
//	-addr         TASKROUTING_WEBHOOK_ADDR    listen address (default 127.0.0.1:8081)
//	-secret-file  TASKROUTING_SIGNING_SECRET  the endpoint's whsec_ signing secret; the flag
//	                                          names a file holding it, so the secret never
//	                                          shows in a process list
//	-max-body     largest accepted body in bytes (default 64 KiB)
//
// Try it against the standalone mock server:
//
//	go run ./mockserver/cmd/mockserver -addr 127.0.0.1:8080 \
//	    -signing-secret whsec_demo -webhook-url http://127.0.0.1:8081/hooks
//	TASKROUTING_SIGNING_SECRET=whsec_demo go run ./examples/webhook-receiver
//
// then create a worker and a task with the API key the mock server printed (see the README).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "webhook-receiver:", err)
		os.Exit(1)
	}
}
