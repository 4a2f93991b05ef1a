package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Option configures a Server.
type Option func(*config)

type config struct {
	clock Clock
	// noTimerLoop leaves a non-manual clock's deadlines to the requests alone; tests use it
	// to hold a sweep due without a background goroutine racing them to it.
	noTimerLoop    bool
	webhookURLs    []string
	apiKey         string
	extraKeys      []string
	signingSecret  string
	seed           uint64
	matcher        MatcherConfig
	tieBreak       TieBreak // WithTieBreak
	limits         Limits
	delivery       DeliveryPolicy
	deliveryClient *http.Client
	requestLog     int
	stateLog       int // WithStateLog; < 0 after defaults means no bound
	retention      int // WithRetention; 0 after defaults means no bound
	finishedTasks  int // WithFinishedTasks; 0 means no bound
	// workerSessionTTL is how long a worker token lives; 0: DefaultWorkerSessionTTL.
	workerSessionTTL time.Duration
	logger           *slog.Logger
	testLog          testing.TB // WithTestLogger; Start sets it to its t
	errs             []error
	// noResponseChecks turns off checking answers against api/openapi.json inside a test
	// binary; only the throughput benchmark sets it, to measure the server as it runs
	// outside tests.
	noResponseChecks bool
	strictResponses  bool // WithStrictResponses

	wallClockSignatures bool // WithWallClockSignatures

	pushPublicKey string          // WithPushPublicKey; "" leaves push off
	iceServers    json.RawMessage // WithVoiceICEServers; nil leaves voice off
}

// withoutResponseChecks turns off the self-check of answers; only the throughput benchmark
// uses it, so it measures the server as it runs outside tests.
func withoutResponseChecks() Option { return func(c *config) { c.noResponseChecks = true } }

// MatchMode is the rule the reference matcher chooses a worker by (docs/contract.md,
// section 7).
type MatchMode string

// MatcherConfig.Mode values.
const (
	ModeBestMatch MatchMode = "best-match" // highest score; the default
	ModeFirstCome MatchMode = "first-come" // longest idle
	ModeBalanced  MatchMode = "balanced"   // score minus BalancedLoadPenalty per pending offer
	// ModeSpreadWork is the platform engine's "spread-work" fairness (a load penalty of half
	// the median candidate priority) under RulesPlatform; under RulesEveryTag it is balanced.
	ModeSpreadWork MatchMode = "spread-work"
)

// MatchRules is the rule set the reference matcher follows (docs/contract.md, "How the
// platform matches").
type MatchRules string

// MatcherConfig.Rules values.
const (
	// RulesPlatform reproduces the platform's engine: any shared tag, each worker ranking
	// its own candidates, one match pass after every command. The default, also for "".
	RulesPlatform MatchRules = "platform"
	// RulesEveryTag needs every task tag and lets each task pick its best worker, matching
	// to a fixed point after every command: the rule set of earlier releases.
	RulesEveryTag MatchRules = "every-tag"
)

// MatcherConfig carries the reference matcher's settings (docs/contract.md, section 7); the
// zero value gives the documented defaults.
type MatcherConfig struct {
	// Rules is RulesPlatform (the default, also for "") or RulesEveryTag.
	Rules MatchRules
	// Mode is ModeBestMatch (the default, also for ""), ModeFirstCome, ModeBalanced or
	// ModeSpreadWork.
	Mode MatchMode
	// AnyTagEligibility selects the every-tag rules relaxed to a worker carrying any one
	// task tag (with Rules "" it implies RulesEveryTag), as before RulesPlatform existed: set
	// alone, it leaves the default platform rules for those, and the server says so once
	// (WithLogger's logger, and the test log under Start). With Rules RulesPlatform it is an
	// error: the platform's rules already match through any tag.
	//
	// Deprecated: use RulesPlatform, which reproduces the platform's any-tag rule with the
	// platform's scores and order.
	AnyTagEligibility bool
	// DefaultMaxBacklog caps pending offers of workers without maxBacklogSize; 0 means 9.
	DefaultMaxBacklog int
	// OfferTimeout is how long an offer waits for accept or reject when the task has no
	// escalation.respondWithinMs; 0 means 60s.
	OfferTimeout time.Duration
	// MaintenanceInterval is, under the platform rules, the period of the engine's
	// maintenance sweep: offers expire on sweeps at whole multiples of it (Unix time), all
	// those due by a sweep together, followed by one match pass (docs/contract.md, "How the
	// platform matches"). 0 means DefaultMaintenanceInterval; the every-tag rules ignore it
	// and expire each offer at its deadline.
	MaintenanceInterval time.Duration
	// BalancedLoadPenalty is the score cost per pending offer in "balanced" mode; 0 means 1.
	BalancedLoadPenalty float64
	// LearningDisabled turns reward learning off; LearningShadowMode records it without
	// letting it change ranking; LearnedVeto lets very poor outcomes veto a worker.
	LearningDisabled   bool
	LearningShadowMode bool
	LearnedVeto        bool
	// LearningRanks, under the platform rules, ranks candidates as the platform's engine
	// does with its learning on: priority + score plus the reward its model predicts from
	// the accepts, completions, rejections, failures and expiries so far, plus now and then
	// a random boost. Off by default, as on the platform (docs/contract.md, "Learning under
	// the platform rules"). LearningExplorationRate is then the chance of that boost per
	// candidate (nil: the engine's 0.05; 0: never), drawn from the server's seed (WithSeed).
	LearningRanks           bool
	LearningExplorationRate *float64
}

// DefaultMaintenanceInterval is the maintenance sweep period of the platform rules when
// MatcherConfig.MaintenanceInterval is 0: the default of the platform engine's
// startMaintenance tick (assignment-user-matcher 1.16.1), since the platform documents no
// sweep period of its own.
const DefaultMaintenanceInterval = 5 * time.Second

// Limits are the workspace plan limits. Zero fields are not enforced and are reported in the
// quota headers as Unlimited.
type Limits struct {
	// TaskRate is the number of task creations allowed per TaskRateWindow; beyond it
	// POST /tasks answers 429 rate_limited with Retry-After.
	TaskRate int
	// TaskRateWindow is the fixed window of TaskRate on the server clock; default 1 minute.
	TaskRateWindow time.Duration
	// QueuedTasks caps open (queued, pending or accepted) tasks; beyond it POST /tasks
	// answers 402 plan_limit_exceeded.
	QueuedTasks int
	// Workers caps the number of workers; a new worker beyond it is 402.
	Workers int
	// Skills caps the distinct tags carried by all workers; beyond it 402.
	Skills int
	// WorkerSkills caps the tags of one worker; beyond it 402.
	WorkerSkills int
	// IncludedTasksPerMonth is the plan's monthly allowance GET /stats reports as
	// meter.includedTasksPerMonth (Unlimited when 0). Reported, not enforced: the meter
	// counts matched tasks past it without refusing any.
	IncludedTasksPerMonth int
}

// anyTagNotice is what the server says, once, when AnyTagEligibility is set without Rules.
const anyTagNotice = "MatcherConfig.AnyTagEligibility (-any-tag) is deprecated and selects the every-tag rules " +
	"relaxed to any one tag, not the platform's rules (the default, which already match through any tag): " +
	"drop it for the platform's rules, or set Rules: RulesEveryTag (-rules every-tag) with it to keep the every-tag ones"

// Unlimited is the value the quota headers report for a limit that is not enforced.
const Unlimited = 1_000_000

// WithClock sets the server's clock: matching, offer expiries, task clocks, sessions, webhook
// retries, every time the server writes and the signatures of its deliveries run on it. Pass
// a *ManualClock to move time from the test. Not to be confused with the clocks that read
// this one's time on the other side: webhook.WithClock (a receiver's Verifier, which must
// check signatures against the same clock, webhook.WithClock(clk.Now)) and
// taskrouting.WithClock (a WorkerClient's session clock); a receiver that cannot take it
// needs WithWallClockSignatures.
func WithClock(c Clock) Option {
	return func(cfg *config) {
		if c == nil {
			cfg.errs = append(cfg.errs, errors.New("mockserver: nil clock"))
			return
		}
		cfg.clock = c
	}
}

// WithWallClockSignatures signs every webhook and notification attempt with the wall
// clock's time (time.Now) instead of the server clock's. The server clock, a ManualClock in
// a test, still drives everything else: matching, expiries, retry times, an event's
// createdAt and Delivery.At. It is for a receiver whose verifier reads the wall clock and
// cannot be given the manual one, such as a test in another language against the binary
// (mockserver -sign-with-wall-clock): once the manual clock is more than the verifier's
// tolerance (5 minutes by default) from the wall clock, such a receiver refuses every
// delivery as stale (docs/contract.md section 6, "Delivery by the mock server").
func WithWallClockSignatures() Option {
	return func(cfg *config) { cfg.wallClockSignatures = true }
}

// WithWorkerSessionTTL sets how long a worker-plane session token lives on the server's
// clock before it must be refreshed (POST /worker-auth/refresh) or the worker signs in again.
// The default is DefaultWorkerSessionTTL.
func WithWorkerSessionTTL(d time.Duration) Option {
	return func(cfg *config) {
		if d < time.Minute {
			cfg.errs = append(cfg.errs, errors.New("mockserver: a worker session lives at least a minute"))
			return
		}
		cfg.workerSessionTTL = d
	}
}

// WithWebhookURL adds a URL every event is POSTed to; repeat it for several endpoints.
func WithWebhookURL(rawURL string) Option {
	return func(cfg *config) {
		if err := checkWebhookURL(rawURL); err != nil {
			cfg.errs = append(cfg.errs, err)
			return
		}
		cfg.webhookURLs = append(cfg.webhookURLs, rawURL)
	}
}

// WithAPIKey sets the sandbox key returned by APIKey instead of a random sk_test_ key.
func WithAPIKey(key string) Option {
	return func(cfg *config) {
		if err := checkKey(key); err != nil {
			cfg.errs = append(cfg.errs, err)
			return
		}
		cfg.apiKey = key
	}
}

// WithExtraAPIKey adds another key; each key reaches its own, separate workspace, so tests
// can check that one workspace never sees another's objects.
func WithExtraAPIKey(key string) Option {
	return func(cfg *config) {
		if err := checkKey(key); err != nil {
			cfg.errs = append(cfg.errs, err)
			return
		}
		cfg.extraKeys = append(cfg.extraKeys, key)
	}
}

func checkKey(key string) error {
	if !strings.HasPrefix(key, "sk_test_") && !strings.HasPrefix(key, "sk_live_") {
		// Deliberately does not echo the key: it is a credential.
		return errors.New("mockserver: api key must start with sk_test_ or sk_live_")
	}
	if len(key) <= len("sk_test_") {
		return errors.New("mockserver: api key is too short")
	}
	return nil
}

// WithSigningSecret sets the webhook signing secret instead of a random whsec_ one.
func WithSigningSecret(secret string) Option {
	return func(cfg *config) {
		if secret == "" {
			cfg.errs = append(cfg.errs, errors.New("mockserver: empty signing secret"))
			return
		}
		cfg.signingSecret = secret
	}
}

// WithSeed makes server-generated ids (tasks, workers, events) reproducible.
func WithSeed(seed uint64) Option {
	return func(cfg *config) { cfg.seed = seed }
}

// WithMatcher sets the reference matcher's settings.
func WithMatcher(m MatcherConfig) Option {
	return func(cfg *config) {
		switch m.Mode {
		case "", ModeBestMatch, ModeFirstCome, ModeBalanced, ModeSpreadWork:
		default:
			cfg.errs = append(cfg.errs, fmt.Errorf("mockserver: unknown matcher mode %q", m.Mode))
			return
		}
		switch m.Rules {
		case "", RulesPlatform, RulesEveryTag:
		default:
			cfg.errs = append(cfg.errs, fmt.Errorf("mockserver: unknown matcher rules %q", m.Rules))
			return
		}
		if r := m.LearningExplorationRate; r != nil && !(*r >= 0 && *r <= 1) {
			cfg.errs = append(cfg.errs, fmt.Errorf("mockserver: LearningExplorationRate %v is not between 0 and 1", *r))
			return
		}
		if m.AnyTagEligibility && m.Rules == RulesPlatform {
			cfg.errs = append(cfg.errs, errors.New("mockserver: AnyTagEligibility is part of the every-tag rules; the platform rules already match through any tag"))
			return
		}
		cfg.matcher = m
	}
}

// WithLimits turns on plan limits and the task-rate limit; by default none is enforced.
func WithLimits(l Limits) Option {
	return func(cfg *config) {
		if l.TaskRate < 0 || l.QueuedTasks < 0 || l.Workers < 0 || l.Skills < 0 || l.WorkerSkills < 0 || l.TaskRateWindow < 0 || l.IncludedTasksPerMonth < 0 {
			cfg.errs = append(cfg.errs, errors.New("mockserver: negative limit"))
			return
		}
		cfg.limits = l
	}
}

// WithDeliveryPolicy sets how webhook deliveries are retried.
func WithDeliveryPolicy(p DeliveryPolicy) Option {
	return func(cfg *config) { cfg.delivery = p }
}

// WithDeliveryClient sets the HTTP client webhooks are sent with (e.g. an httptest TLS
// server's client).
func WithDeliveryClient(c *http.Client) Option {
	return func(cfg *config) { cfg.deliveryClient = c }
}

// WithRetention bounds what the server records for as long as it runs: webhook events,
// delivery attempts, the stats ledger and each worker's task outcomes each keep their newest
// n entries (at most 2n in memory; Events and Deliveries return the newest n). Default
// DefaultRetention; n < 0 keeps everything. See docs/reliability.md, "Memory".
func WithRetention(n int) Option {
	return func(cfg *config) {
		if n < 0 {
			n = 0
		}
		cfg.retention = n
	}
}

// WithRequestLog sets how many recent requests Requests keeps (default 10,000; 0 keeps none).
func WithRequestLog(n int) Option {
	return func(cfg *config) { cfg.requestLog = max(n, 0) }
}
