package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// scopeTag prefixes every tag and routing weight of a live run's workers and tasks, so its
// tasks only reach its own workers. A tag added to every worker and task would not do: one
// shared tag is enough for the platform to offer a task.
const scopeTag = "quickstart"

// scoped returns tags with the scope prefix; an empty scope leaves them as they are.
func scoped(scope string, tags []string) []string {
	if scope == "" {
		return tags
	}
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = scope + "." + t
	}
	return out
}

// run performs the whole loop and writes its log to out.
func run(ctx context.Context, cfg config, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", cfg.WebhookAddr)
	if err != nil {
		return fmt.Errorf("webhook receiver: %w", err)
	}
	defer ln.Close()

	baseURL, apiKey, secret, idPrefix, tag := cfg.BaseURL, cfg.APIKey, cfg.SigningSecret, "qs_", scopeTag
	if !cfg.live() {
		// The mock server posts every event to the receiver's loopback address. The listener
		// is already open, so no delivery is lost while the receiver starts.
		srv, err := mockserver.New(
			mockserver.WithWebhookURL("http://"+ln.Addr().String()+"/hooks"),
			// The platform's matching rules are the mock server's default; written out so the
			// line to change is in sight: mockserver.RulesEveryTag needs every task tag.
			mockserver.WithMatcher(mockserver.MatcherConfig{Rules: mockserver.RulesPlatform}),
			mockserver.WithSeed(1))
		if err != nil {
			return fmt.Errorf("mock server: %w", err)
		}
		defer srv.Close()
		baseURL, apiKey, secret, idPrefix, tag = srv.URL(), srv.APIKey(), srv.SigningSecret(), "", ""
		fmt.Fprintf(out, "offline: mock server at %s, webhooks to http://%s/hooks\n", baseURL, ln.Addr())
		fmt.Fprintln(out, "matching: the platform's rules (one shared tag is enough; rank = priority + score); MatcherConfig{Rules: mockserver.RulesEveryTag} needs every tag")
		fmt.Fprintln(out, "          a task's requiredSkills must all be held; a worker with routing weights reaches only its weighted tags")
	} else {
		fmt.Fprintf(out, "live: %s, webhook receiver listening on %s/hooks\n", baseURL, ln.Addr())
	}

	rc, err := newReceiver(secret)
	if err != nil {
		return err
	}
	rc.serve(ln)
	// Registered after the mock server's Close, so it runs first: deliveries in flight are
	// answered before the server waits for them.
	defer rc.shutdown()

	c, err := taskrouting.NewClient(baseURL, apiKey)
	if err != nil {
		return err
	}
	l := &loop{c: c, out: out, rc: rc, names: map[string]string{}, skills: map[string]string{}, rejectFirst: map[string]bool{},
		tasks: map[string]taskSpec{}, waiting: map[string]bool{}, rejected: map[string]string{}, rerouted: map[string]bool{}}
	if err := l.setUp(ctx, idPrefix, tag); err != nil {
		return err
	}
	if err := l.process(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "summary: %d tasks completed, %d rejection re-routed, %d webhooks verified, %d refused\n",
		l.completed, len(l.rerouted), rc.verified.Load(), rc.refused.Load())
	return nil
}

// loop holds what the program knows while it reacts to events.
type loop struct {
	c   *taskrouting.Client
	out io.Writer
	rc  *receiver

	names       map[string]string // worker id on the wire -> scenario name
	skills      map[string]string // catalogue skill id -> scenario name
	rejectFirst map[string]bool   // worker ids that still turn down their next offer
	tasks       map[string]taskSpec
	waiting     map[string]bool   // tasks that found no free worker when created
	rejected    map[string]string // task id -> worker that rejected it
	rerouted    map[string]bool   // rejected tasks later offered to another worker
	completed   int
	step        int
}

// setUp adds the language skills to the catalogue, upserts the workers and creates the tasks.
// The tasks are matched as they are created; their events wait in the receiver's queue until
// process reads them.
func (l *loop) setUp(ctx context.Context, idPrefix, tag string) error {
	for _, lang := range languages {
		key := scoped(tag, []string{lang})[0]
		sk, err := l.c.Skills.Create(ctx, taskrouting.CreateSkillParams{Key: key, Name: lang})
		if errors.Is(err, taskrouting.ErrConflict) {
			// A live workspace keeps the skill from an earlier run: find its id.
			sk, err = l.findSkill(ctx, key)
		}
		if err != nil {
			return fmt.Errorf("skill %s: %w", key, err)
		}
		l.skills[sk.ID] = lang
	}

	fmt.Fprintln(l.out, "\nworkers (each holds at most 1 offer at a time):")
	for _, w := range scenarioWorkers() {
		id := idPrefix + w.ID
		if _, err := l.c.Workers.Upsert(ctx, w.upsertParams(id, tag)); err != nil {
			return fmt.Errorf("upsert worker %s: %w", id, err)
		}
		l.names[id] = w.ID
		l.rejectFirst[id] = w.RejectFirst
		state := "on shift"
		if !w.Available {
			state = "off shift"
		}
		fmt.Fprintf(l.out, "  %-6s %-9s skills %-8s tags %-26s weights %-21s %s\n", w.ID, state, strings.Join(w.Languages, ","),
			strings.Join(w.Tags, ","), formatWeights(w.Weights), reaches(w))
	}

	fmt.Fprintln(l.out, "\ntasks, in creation order:")
	for _, t := range scenarioTasks() {
		tags := scoped(tag, t.Tags)
		required := []taskrouting.RequiredSkill{{SkillID: scoped(tag, []string{t.Language})[0], MinLevel: 1}}
		ref, err := l.c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Title: t.Title, Tags: tags, Priority: t.Priority,
			RequiredSkills: required})
		if err != nil {
			return fmt.Errorf("create task %q: %w", t.Title, err)
		}
		l.tasks[ref.ID] = t
		// Matching runs as the task is created, so a read right away shows the offer, if any.
		got, err := l.c.Tasks.Get(ctx, ref.ID)
		if err != nil {
			return fmt.Errorf("get task %s: %w", ref.ID, err)
		}
		var state string
		if got.Status == taskrouting.TaskStatusPending {
			state = "offered to " + l.name(got.WorkerID)
		} else {
			why, err := l.whyQueued(ctx, got, required)
			if err != nil {
				return err
			}
			state = "queued: " + why
			l.waiting[ref.ID] = true
		}
		fmt.Fprintf(l.out, "  %s priority %2.0f  %-18s requires %-8s %-26q %s\n", ref.ID, t.Priority, strings.Join(t.Tags, "+"),
			t.Language, t.Title, state)
	}
	fmt.Fprintln(l.out, "\nevents, as the signed webhooks arrive:")
	return nil
}

// process acts on each verified event in arrival order until every task is completed.
func (l *loop) process(ctx context.Context) error {
	for l.completed < len(l.tasks) {
		var ev webhook.Event
		select {
		case ev = <-l.rc.events:
		case <-ctx.Done():
			return fmt.Errorf("waiting for webhooks (%d of %d tasks completed): %w", l.completed, len(l.tasks), ctx.Err())
		}
		if _, ours := l.tasks[ev.TaskID]; !ours {
			continue // another client's task in the same workspace
		}
		if err := l.handle(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

func (l *loop) handle(ctx context.Context, ev webhook.Event) error {
	l.step++
	t := l.tasks[ev.TaskID]
	who := l.name(ev.WorkerID)
	switch ev.Kind {
	case webhook.KindTaskMatched:
		m, err := ev.TaskMatched()
		if err != nil {
			return err
		}
		fmt.Fprintf(l.out, "%2d. matched    %s %q (priority %.0f) -> %s\n", l.step, m.TaskID, t.Title, t.Priority, who)
		if prev, ok := l.rejected[m.TaskID]; ok && prev != m.WorkerID && !l.rerouted[m.TaskID] {
			l.rerouted[m.TaskID] = true
			fmt.Fprintf(l.out, "    re-routed: %s rejected it before and is vetoed for it now\n", l.name(prev))
		} else if l.waiting[m.TaskID] {
			fmt.Fprintln(l.out, "    it waited in the queue: a freed worker gets the most urgent task it can take")
		}
		delete(l.waiting, m.TaskID)
		if err := l.explain(ctx, m); err != nil {
			return err
		}
		return l.answer(ctx, m)
	case webhook.KindTaskRejected:
		fmt.Fprintf(l.out, "%2d. rejected   %s by %s: queued again, never offered to %s again\n", l.step, ev.TaskID, who, who)
		l.rejected[ev.TaskID] = ev.WorkerID
	case webhook.KindTaskAccepted:
		fmt.Fprintf(l.out, "%2d. accepted   %s by %s\n", l.step, ev.TaskID, who)
		// The worker does the work, then reports it done.
		if _, err := l.c.Decisions.Complete(ctx, ev.TaskID, ev.WorkerID, map[string]any{"resolved": true}); err != nil {
			return fmt.Errorf("complete %s: %w", ev.TaskID, err)
		}
	case webhook.KindTaskCompleted:
		l.completed++
		fmt.Fprintf(l.out, "%2d. completed  %s by %s (%d of %d done)\n", l.step, ev.TaskID, who, l.completed, len(l.tasks))
	default:
		// Other kinds (task.expired, task.cancelled, kinds added later) are normal.
		fmt.Fprintf(l.out, "%2d. %-10s %s %s\n", l.step, ev.Kind, ev.TaskID, who)
	}
	return nil
}

// answer plays the offered worker: accept, or turn the first offer down if the scenario says so.
func (l *loop) answer(ctx context.Context, m webhook.TaskMatched) error {
	who := l.name(m.WorkerID)
	if l.rejectFirst[m.WorkerID] {
		l.rejectFirst[m.WorkerID] = false
		fmt.Fprintf(l.out, "    %s rejects it\n", who)
		_, err := l.c.Decisions.Reject(ctx, m.TaskID, m.WorkerID)
		return wrapIf(err, "reject "+m.TaskID)
	}
	fmt.Fprintf(l.out, "    %s accepts it\n", who)
	_, err := l.c.Decisions.EnsureAccepted(ctx, m.TaskID, m.WorkerID) // a redelivery after a lost answer is done
	var apiErr *taskrouting.APIError
	if errors.As(err, &apiErr) && errors.Is(err, taskrouting.ErrInvalidState) {
		// The offer is gone (it expired or the task was cancelled); the service says so in a
		// later event.
		fmt.Fprintf(l.out, "    too late: %s\n", apiErr.Message)
		return nil
	}
	return wrapIf(err, "accept "+m.TaskID)
}

// findSkill returns the catalogue skill with the given key.
func (l *loop) findSkill(ctx context.Context, key string) (*taskrouting.Skill, error) {
	found, err := l.c.Skills.List(ctx, taskrouting.ListSkillsParams{Query: key, Limit: 100})
	if err != nil {
		return nil, err
	}
	for i := range found {
		if found[i].Key == key {
			return &found[i], nil
		}
	}
	return nil, fmt.Errorf("exists, but the catalogue does not list it")
}

// name is the scenario's name for a worker id.
func (l *loop) name(workerID string) string {
	if n, ok := l.names[workerID]; ok {
		return n
	}
	return workerID
}

func wrapIf(err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
