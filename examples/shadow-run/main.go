// Command shadow-run compares the routing decisions of an existing system with what the
// task-routing service would decide, without routing anything: the first step of a migration.
//
// It reads past tasks with the worker the old system chose (CSV or JSON lines: tags,
// priority, chosen worker, whether that worker accepted) and a workers file, asks the service
// for each past task who it would choose (POST /tasks/suggest-workers, a dry run that creates
// nothing), and prints the agreement rate, every disagreement with the reasons on both sides,
// and the acceptance rate of the old choices, split by agreement. It ends with a summary line.
// An old choice tied for first with the service's choice (equal score, so the platform could
// offer the task to either) agrees; shadow.Explain, which taskrouter-migrate shadow uses too,
// makes the comparison.
//
// With no flags it runs offline on the sample data in testdata/, against an in-process mock
// server holding the workers of the workers file:
//
//	go run ./examples/shadow-run
//	go run ./examples/shadow-run -tasks my_history.jsonl -workers my_workers.json
//
// Against a real deployment set TASKROUTING_BASE_URL and TASKROUTING_API_KEY. The service's
// own workers are then used as they are; add -upsert to upsert the workers file first (it
// replaces workers with the same ids, so point it at a sandbox key, sk_test_).
//
// File formats (see testdata/):
//
//	past tasks, CSV:        id,tags,priority,chosen_worker,accepted   (tags separated by "|")
//	past tasks, JSON lines: {"id":..,"tags":[..],"priority":..,"chosenWorker":..,"accepted":..}
//	workers, JSON array:    [{"id":..,"tags":[..],"routingWeights":{..},"available":true}, ...]
//
// The dry run ranks workers as they are now (availability, backlog, learning), not as they
// were when the task arrived, so read disagreements as questions, not verdicts.
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
	cfg, err := parseConfig(os.Args[1:], os.Getenv, os.Stderr)
	if err == nil {
		err = run(ctx, cfg, os.Stdout)
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "shadow-run:", err)
		os.Exit(1)
	}
}
