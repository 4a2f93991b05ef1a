package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/shadow"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// run loads both files, asks the service for each past task and prints the comparison.
func run(ctx context.Context, cfg config, out io.Writer) error {
	past, err := loadPastTasks(cfg.TasksPath)
	if err != nil {
		return err
	}
	var workers []taskrouting.UpsertWorkerParams
	if cfg.Upsert {
		if workers, err = loadWorkers(cfg.WorkersPath); err != nil {
			return err
		}
	}

	baseURL, apiKey := cfg.BaseURL, cfg.APIKey
	if baseURL == "" {
		srv, err := mockserver.New()
		if err != nil {
			return fmt.Errorf("mock server: %w", err)
		}
		defer srv.Close()
		baseURL, apiKey = srv.URL(), srv.APIKey()
		fmt.Fprintf(out, "offline: mock server at %s\n", baseURL)
	}
	c, err := taskrouting.NewClient(baseURL, apiKey)
	if err != nil {
		return err
	}
	for _, w := range workers {
		if _, err := c.Workers.Upsert(ctx, w); err != nil {
			return fmt.Errorf("upsert worker %s: %w", w.ID, err)
		}
	}
	fmt.Fprintf(out, "%d past tasks from %s", len(past), cfg.TasksPath)
	if cfg.Upsert {
		fmt.Fprintf(out, ", %d workers from %s", len(workers), cfg.WorkersPath)
	}
	fmt.Fprintln(out)

	var r report
	fmt.Fprintln(out, "\ndisagreements:")
	for _, t := range past {
		s, err := c.Tasks.SuggestWorkers(ctx, taskrouting.SuggestWorkersParams{
			Tags: t.Tags, Priority: taskrouting.Ptr(t.Priority), Limit: 100})
		if err != nil {
			return fmt.Errorf("suggest workers for %s: %w", t.ID, err)
		}
		r.add(out, t, s.Workers)
	}
	if r.disagree.n == 0 {
		fmt.Fprintln(out, "  none")
	}
	r.print(out)
	return nil
}

// tally counts past tasks and how many of them the old system's worker accepted.
type tally struct{ n, accepted int }

func (t *tally) add(accepted bool) {
	t.n++
	if accepted {
		t.accepted++
	}
}

func (t tally) rate() string {
	if t.n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", t.accepted, t.n, 100*float64(t.accepted)/float64(t.n))
}

type report struct {
	all, agree, disagree tally
}

// add compares one past task with the service's ranking and prints it when they differ. A
// past choice tied for first with the service's choice agrees: the platform could have
// offered the task to either (shadow.Explain).
func (r *report) add(out io.Writer, t pastTask, cands []taskrouting.Candidate) {
	r.all.add(t.Accepted)
	e := shadow.Explain(cands, t.ChosenWorker)
	if e.Agree() {
		r.agree.add(t.Accepted)
		return
	}
	r.disagree.add(t.Accepted)

	outcome := "rejected"
	if t.Accepted {
		outcome = "accepted"
	}
	fmt.Fprintf(out, "  %s [%s] priority %s\n", t.ID, strings.Join(t.Tags, " "), strconv.FormatFloat(t.Priority, 'f', -1, 64))
	fmt.Fprintf(out, "    service: %s\n", e.Here())
	fmt.Fprintf(out, "    old:     %-6s (%s)  %s\n", t.ChosenWorker, outcome, e.There())
}

func (r *report) print(out io.Writer) {
	agreement := "n/a"
	if r.all.n > 0 {
		agreement = fmt.Sprintf("%d/%d (%.0f%%)", r.agree.n, r.all.n, 100*float64(r.agree.n)/float64(r.all.n))
	}
	fmt.Fprintf(out, "\nagreement with the old system: %s\n", agreement)
	fmt.Fprintln(out, "acceptance of the old system's choices:")
	fmt.Fprintf(out, "  all tasks:                      %s\n", r.all.rate())
	fmt.Fprintf(out, "  where the service agrees:       %s\n", r.agree.rate())
	fmt.Fprintf(out, "  where the service would change: %s\n", r.disagree.rate())
	fmt.Fprintf(out, "summary: %d past tasks, agreement %s, old choices accepted %s\n", r.all.n, agreement, r.all.rate())
}
