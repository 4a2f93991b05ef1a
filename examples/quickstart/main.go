// Command quickstart runs the whole task-routing loop and prints what was routed to whom and
// why.
//
// With no configuration it runs offline in about a second: it starts the mock server
// in-process (mockserver.New) and a webhook receiver on 127.0.0.1, adds two language skills to
// the catalogue, upserts four workers with tags, routing weights, skills, backlogs and
// availability, creates six tasks of different priorities and tags, each requiring its
// language (one shared tag is enough to be offered a task; a required skill is how a task
// insists on more), and as each signed task.matched delivery arrives (verified with the webhook
// package) the worker accepts or rejects it and then completes it. For every match it prints
// the decision's candidates, scores and reasons. It ends with a summary line:
//
//	go run ./examples/quickstart
//
// Against a real deployment, set
//
//	TASKROUTING_BASE_URL       API root, e.g. https://api.example.com/v1
//	TASKROUTING_API_KEY        an sk_test_ key is best: it only reaches the sandbox workspace
//	TASKROUTING_SIGNING_SECRET the webhook endpoint's whsec_ secret
//	TASKROUTING_WEBHOOK_ADDR   where the receiver listens (default :8080); the deployment's
//	                           webhook endpoint must point at <that address>/hooks
//
// The live run adds the skills quickstart.english and quickstart.spanish to the catalogue
// (or finds them from an earlier run), upserts the workers qs_ana, qs_ben, qs_chloe and qs_dev
// and creates six tasks. Every tag, routing weight and skill of those workers and tasks is
// prefixed with "quickstart.", so
// the tasks only go to those workers and the program never acts on anyone else's work.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := configFromEnv(os.Getenv)
	if err == nil {
		err = run(ctx, cfg, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}
