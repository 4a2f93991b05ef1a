// Command taskrouter-migrate plans a move from Twilio TaskRouter to this service and checks
// the plan against the TaskRouter history, offline:
//
//	taskrouter-migrate plan   -workspace ws.json [-out DIR] [-at TIME] [-json] [-strict]
//	taskrouter-migrate shadow -workspace ws.json -events events.jsonl [-at TIME] [-shards N] [-json] [-quiet] [-strict] [-list N]
//	taskrouter-migrate expr   [-scope worker|task] [-task FILE] [-worker FILE] [-at TIME] [-json] EXPRESSION [FILE]
//	taskrouter-migrate generate -out DIR [-workers N] [-queues N] [-events N] [-seed N]
//
// plan reads a workspace export (the Workers, TaskQueues, Workflows and Activities list
// answers: one JSON file with those members, or a directory of workers.json,
// task_queues.json, workflows.json, activities.json), turns every queue into tags and every
// workflow filter into a rule, checks with the mock server that the tags select the same
// workers under its default matching rules, and writes workers.json (one worker upsert per
// TaskRouter worker, ids kept; examples/shadow-run -workers reads it), mapping.json (queues,
// tags, rules, what was not translated) and prints the report. shadow does the same plan,
// then replays an event export (JSON lines, a JSON array or Events list pages) through
// in-process mock servers and prints how the decisions compare, the disagreements first with
// the reasons on both sides; progress goes to stderr. expr evaluates one TaskRouter
// expression against a JSON document. generate writes a synthetic workspace.json and
// events.jsonl to try both.
//
// -json prints the machine-readable report instead of the text one. -strict makes
// unparsable expressions, queues selecting no worker and empty exports exit 1 after the
// report. Exit status: 0 done, 1 failed (bad input names the file and the place), 2 bad
// usage. docs/migration.md walks through a migration with it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, time.Now)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp), errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "taskrouter-migrate:", err)
		os.Exit(1)
	}
}
