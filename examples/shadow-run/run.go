package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	taskrouting "github.com/taskrouting/taskrouting-go"
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

// add compares one past task with the service's ranking and prints it when they differ.
func (r *report) add(out io.Writer, t pastTask, cands []taskrouting.Candidate) {
	r.all.add(t.Accepted)
	// Candidates come best first: eligible ones by score, then the ineligible ones.
	var choice *taskrouting.Candidate
	if len(cands) > 0 && cands[0].Eligible {
		choice = &cands[0]
	}
	if choice != nil && choice.WorkerID == t.ChosenWorker {
		r.agree.add(t.Accepted)
		return
	}
	r.disagree.add(t.Accepted)

	outcome := "rejected"
	if t.Accepted {
		outcome = "accepted"
	}
	fmt.Fprintf(out, "  %s [%s] priority %s\n", t.ID, strings.Join(t.Tags, " "), num(t.Priority))
	if choice == nil {
		fmt.Fprintln(out, "    service: no eligible worker now")
	} else {
		fmt.Fprintf(out, "    service: %-6s score %s  %s\n", choice.WorkerID, num(choice.Score), formatReasons(choice.Reasons))
	}
	i := slices.IndexFunc(cands, func(c taskrouting.Candidate) bool { return c.WorkerID == t.ChosenWorker })
	switch {
	case i < 0:
		fmt.Fprintf(out, "    old:     %-6s (%s)  not a candidate: unknown to the service, or lacks one of the tags\n", t.ChosenWorker, outcome)
	case !cands[i].Eligible:
		fmt.Fprintf(out, "    old:     %-6s (%s)  not eligible: %s\n", t.ChosenWorker, outcome, formatReasons(cands[i].Reasons))
	default:
		fmt.Fprintf(out, "    old:     %-6s (%s)  ranked %d, score %s  %s\n", t.ChosenWorker, outcome, i+1, num(cands[i].Score), formatReasons(cands[i].Reasons))
	}
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

// formatReasons prints a candidate's reasons compactly, e.g. "billing x3, missingTag spanish".
// Reason kinds are additive: an unknown kind is printed by name.
func formatReasons(rs []taskrouting.Reason) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		var x struct {
			Tag    string   `json:"tag"`
			Weight *float64 `json:"weight"`
		}
		_ = json.Unmarshal(r.Raw, &x) // Kind is already decoded; the rest is optional detail
		switch {
		case r.Kind == "tagWeight" && x.Weight != nil:
			parts = append(parts, x.Tag+" x"+num(*x.Weight))
		case x.Tag != "":
			parts = append(parts, r.Kind+" "+x.Tag)
		default:
			parts = append(parts, r.Kind)
		}
	}
	return strings.Join(parts, ", ")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
