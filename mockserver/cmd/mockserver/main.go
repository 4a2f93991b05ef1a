// Command mockserver runs the task-routing mock server as a standalone process, for test
// suites in any language.
//
// It listens on -addr, prints one JSON line {"url","apiKey","signingSecret","workspaceId",
// "adminUrl"} on standard output once it accepts connections, logs each request and each
// webhook delivery attempt on standard error (-log-level, -log-format), and exits cleanly on
// SIGINT or SIGTERM, after the webhook attempts in flight (a second signal stops it at once).
// It stops the same way when the process that started it exits (-exit-with-parent, on by
// default) and, with -exit-on-stdin-close, when its standard input closes, so a test harness
// that loses track of it leaves nothing running. -version prints its version.
// Tests steer it over HTTP through the admin endpoints under /_mock/ (listed by -h and in the
// mockserver package documentation): move a manual clock, inject faults, read events and
// deliveries, reset.
//
//	mockserver -addr 127.0.0.1:8080 -webhook-url http://127.0.0.1:9000/hooks -manual-clock
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/mockserver"
)

func main() {
	ctx, stop := notifyShutdown(context.Background())
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "mockserver:", err)
		os.Exit(1)
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

type startLine struct {
	URL           string `json:"url"`
	APIKey        string `json:"apiKey"`
	SigningSecret string `json:"signingSecret"`
	WorkspaceID   string `json:"workspaceId"` // what worker sign-ins name
	AdminURL      string `json:"adminUrl"`    // base of the /_mock/ steering endpoints
}

// run parses flags, serves until ctx ends, then shuts down.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mockserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	apiKey := fs.String("api-key", "", "sandbox API key (sk_test_...); random when empty")
	var extraKeys, hooks stringList
	fs.Var(&extraKeys, "extra-api-key", "another API key with its own workspace (repeatable)")
	secret := fs.String("signing-secret", "", "webhook signing secret (whsec_...); random when empty")
	fs.Var(&hooks, "webhook-url", "URL every event is POSTed to (repeatable)")
	seed := fs.Uint64("seed", 0, "seed for server-generated ids and the shuffled tie order")
	tieOrder := fs.String("tie-order", "", "how the platform rules break ties between equal workers: registration (default) or shuffle (drawn from -seed)")
	manual := fs.Bool("manual-clock", false, "use a manual clock moved by POST /_mock/clock/advance")
	clockStart := fs.Int64("clock-start", 0, "manual clock start, epoch ms (default: now)")
	wallSign := fs.Bool("sign-with-wall-clock", false, "sign webhooks at the wall clock's time while -manual-clock drives matching, for receivers whose verifier reads the wall clock")
	mode := fs.String("mode", "", "matcher mode: best-match (default), first-come, balanced or spread-work")
	rules := fs.String("rules", "", "matching rules: platform (default) or every-tag")
	anyTag := fs.Bool("any-tag", false, "deprecated: the every-tag rules relaxed to any one tag (the default platform rules already match through any tag)")
	backlog := fs.Int("default-backlog", 0, "default maxBacklogSize (0 means 9)")
	offerTimeout := fs.Duration("offer-timeout", 0, "offer expiry without escalation.respondWithinMs (0 means 60s)")
	sweep := fs.Duration("maintenance-interval", 0, "platform rules: offers expire on maintenance sweeps this far apart (0 means 5s)")
	noLearning := fs.Bool("no-learning", false, "turn reward learning off")
	learningRank := fs.Bool("learning-rank", false, "platform rules: rank by the engine's learned model, as the platform does with learning on")
	exploration := fs.Float64("exploration-rate", 0.05, "with -learning-rank: the chance of a random boost per candidate, drawn from -seed (0: never)")
	attempts := fs.Int("delivery-attempts", 0, "webhook attempts per event (0 means 6)")
	backoff := fs.Duration("delivery-backoff", 0, "first webhook retry wait, doubling (0 means 50ms)")
	retention := fs.Int("retention", mockserver.DefaultRetention, "newest webhook events, delivery attempts, stats-ledger entries and worker outcomes kept (negative: all)")
	finishedTasks := fs.Int("finished-tasks", mockserver.DefaultFinishedTasks, "finished tasks kept readable per workspace; at twice as many the oldest finished are forgotten and answer 404 (0 or negative: all)")
	strict := fs.Bool("strict-responses", true, "check each /v1 answer against api/openapi.json; one that breaks it is sent as 500 internal_error and logged")
	proxyURL := fs.String("proxy", "", "forward /v1 to this deployment base URL (https://host/v1) and check it against api/openapi.json, instead of mocking")
	proxyShadow := fs.Bool("proxy-shadow", false, "with -proxy: play each command into a mock of the proxy's own (-rules, -mode, ...) and compare decisions")
	proxySecret := fs.String("proxy-signing-secret", "", "with -proxy: the deployment's webhook signing secret, to verify what it sends to /_mock/proxy/webhook")
	gcPercent := fs.Int("gc-percent", defaultGCPercent, "the Go collector's target (GOGC): the heap may grow this many percent over the live data before a collection; a GOGC environment variable is used instead when this flag is not given")
	logLevel := fs.String("log-level", "info", "log level on standard error: debug, info, warn or error")
	logFormat := fs.String("log-format", "text", "log format on standard error: text or json")
	stateFile := fs.String("state", "", "load a saved state (GET /_mock/state) from this file at start; a manual clock is set to its clock")
	showVersion := fs.Bool("version", false, "print the version and exit")
	withParent := fs.Bool("exit-with-parent", true, "exit when the parent process exits (false for a server left running by a shell that ends)")
	onStdinClose := fs.Bool("exit-on-stdin-close", false, "exit when standard input closes (start it with a pipe the harness holds)")
	fs.Usage = func() { usage(fs) }
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *showVersion {
		_, err := fmt.Fprintln(stdout, versionString())
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	setGCPercent(*gcPercent, set["gc-percent"])
	logBuf := newBufferedLog(stderr, logFlushEvery)
	defer logBuf.Close() // deferred first, so it runs after srv.Close and its last lines
	logger, err := newLogger(logBuf, *logLevel, *logFormat)
	if err != nil {
		return err
	}
	logger = slog.New(flushOnWarn{Handler: logger.Handler(), buf: logBuf})
	ctx, stopWatches := exitWatches(ctx, logger, *withParent, *onStdinClose)
	defer stopWatches()

	matcher := mockserver.MatcherConfig{Rules: mockserver.MatchRules(*rules), Mode: mockserver.MatchMode(*mode), DefaultMaxBacklog: *backlog,
		OfferTimeout: *offerTimeout, MaintenanceInterval: *sweep, LearningDisabled: *noLearning, LearningRanks: *learningRank,
		LearningExplorationRate: exploration}
	//lint:ignore SA1019 the deprecated -any-tag flag keeps working
	matcher.AnyTagEligibility = *anyTag
	opts := []mockserver.Option{
		mockserver.WithSeed(*seed),
		mockserver.WithMatcher(matcher),
		mockserver.WithTieBreak(mockserver.TieBreak(*tieOrder)),
		mockserver.WithDeliveryPolicy(mockserver.DeliveryPolicy{MaxAttempts: *attempts, InitialBackoff: *backoff}),
		mockserver.WithLogger(logger),
		mockserver.WithRetention(*retention),
		mockserver.WithFinishedTasks(*finishedTasks),
	}
	if *strict {
		opts = append(opts, mockserver.WithStrictResponses())
	}
	if *apiKey != "" {
		opts = append(opts, mockserver.WithAPIKey(*apiKey))
	}
	for _, k := range extraKeys {
		opts = append(opts, mockserver.WithExtraAPIKey(k))
	}
	if *secret != "" {
		opts = append(opts, mockserver.WithSigningSecret(*secret))
	}
	for _, u := range hooks {
		opts = append(opts, mockserver.WithWebhookURL(u))
	}
	if *manual {
		start := time.Now()
		if *clockStart != 0 {
			start = time.UnixMilli(*clockStart)
		}
		opts = append(opts, mockserver.WithClock(mockserver.NewManualClock(start)))
	}
	if *wallSign {
		opts = append(opts, mockserver.WithWallClockSignatures())
	}

	if *proxyURL != "" {
		if bad := proxyFlagsUsed(set); bad != "" {
			return fmt.Errorf("%s: not used with -proxy", bad)
		}
		return runProxy(ctx, proxySettings{upstream: *proxyURL, addr: *addr, adminKey: *apiKey, secret: *proxySecret, shadow: *proxyShadow,
			shadowOpts: []mockserver.Option{mockserver.WithSeed(*seed), mockserver.WithMatcher(matcher), mockserver.WithRetention(*retention),
				mockserver.WithFinishedTasks(*finishedTasks)},
			hooks: hooks}, stdout, logger)
	}
	srv, err := mockserver.NewUnstarted(opts...)
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := loadState(ctx, srv, *stateFile); err != nil {
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv.Serve(ln)
	line, _ := json.Marshal(startLine{URL: srv.URL(), APIKey: srv.APIKey(), SigningSecret: srv.SigningSecret(),
		WorkspaceID: srv.WorkspaceID(), AdminURL: srv.AdminURL()})
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}
	logger.Info("mock server listening", "url", srv.URL(), "adminUrl", srv.AdminURL(), "webhookUrls", len(hooks), "manualClock", *manual)
	logBuf.Flush()
	<-ctx.Done()
	logger.Info("shutting down: waiting for webhook attempts in flight (a second signal stops at once)")
	logBuf.Flush() // a second signal ends the process without running the defers
	return nil
}
