package match

import "time"

// Mode selects how the matcher chooses among eligible workers.
type Mode string

// Matching modes. The zero value of Config.Mode means ModeBestMatch.
const (
	// ModeBestMatch picks the highest score (sum of tag weights times the learning
	// factor); ties go to fewer pending offers, then the longest idle, then the lowest id.
	ModeBestMatch Mode = "best-match"
	// ModeFirstCome picks the longest idle worker (oldest last offer); ties go to the
	// higher score, then the lowest id.
	ModeFirstCome Mode = "first-come"
	// ModeBalanced picks the highest score minus Config.BalancedLoadPenalty per pending
	// offer; ties as in ModeBestMatch.
	ModeBalanced Mode = "balanced"
	// ModeSpreadWork is, under RulesPlatform, the engine's "spread-work" fairness: balanced
	// with a load penalty of half the median candidate priority instead of 5%. Under
	// RulesEveryTag it is ModeBalanced.
	ModeSpreadWork Mode = "spread-work"
	// ModeAssign marks decisions made by an explicit Assign command, not by matching.
	ModeAssign Mode = "assign"
)

// Status is a task's state.
type Status string

// Task states. Only queued tasks wait for matching; completed and cancelled are terminal.
const (
	StatusQueued    Status = "queued"
	StatusPending   Status = "pending"
	StatusAccepted  Status = "accepted"
	StatusCompleted Status = "completed"
	StatusCancelled Status = "cancelled"
)

// Terminal reports whether no command can move a task out of s.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusCancelled || s == StatusFailed || s == StatusExpired
}

// OnNoResponse says what an offer expiry does to the silent worker.
type OnNoResponse string

// Escalation policies. The zero value means NoResponseAllow.
const (
	// NoResponseAllow requeues the task and lets the same worker get it again.
	NoResponseAllow OnNoResponse = "allow"
	// NoResponseBlock requeues the task and vetoes the silent worker for it for good.
	NoResponseBlock OnNoResponse = "block"
)

// Config configures an Engine. The zero Config gives the documented defaults.
type Config struct {
	// Mode is the worker choice rule; "" means ModeBestMatch.
	Mode Mode
	// Rules is the rule set; "" means RulesPlatform.
	Rules Rules
	// AnyTagEligibility relaxes RulesEveryTag to a worker carrying at least one task tag,
	// scored by the every-tag rules. RulesPlatform ignores it: it already matches through
	// any shared tag, with the platform's scores.
	//
	// Deprecated: use RulesPlatform, which reproduces the platform's whole rule set.
	AnyTagEligibility bool
	// CandidateWindow is, under RulesPlatform, how many candidate tasks a worker reads per
	// pass (the engine's relevantBatchSize); 0 (or less) means 50.
	CandidateWindow int
	// DefaultMaxBacklog is the cap of pending offers for workers without their own
	// maxBacklogSize; 0 (or less) means 9.
	DefaultMaxBacklog int
	// OfferTimeout is how long an offer waits for accept or reject before it expires,
	// for tasks without escalation.respondWithinMs; 0 (or less) means 60 s.
	OfferTimeout time.Duration
	// MaintenanceInterval is, under RulesPlatform, the period of the engine's maintenance
	// sweep (its startMaintenance tick): offers expire on the sweeps, at whole multiples of
	// the interval of Unix time, every offer due by a sweep together, and each sweep that
	// expired something is followed by one match pass. 0 (or less) sweeps at the time of each
	// command and each Advance instead, with no pass of its own: the command's one pass (or
	// Advance's) re-matches what expired. RulesEveryTag ignores it.
	MaintenanceInterval time.Duration
	// BalancedLoadPenalty is subtracted from the score per pending offer in ModeBalanced;
	// 0 (or less) means 1.
	BalancedLoadPenalty float64
	// Learning configures reward learning.
	Learning LearningConfig
	// EventIDPrefix starts every event id (followed by a sequence number); "" means
	// "evt_". Give each workspace its own prefix to keep ids unique across engines.
	EventIDPrefix string
	// DecisionIDPrefix starts every decision id; "" means "dec_".
	DecisionIDPrefix string
	// MaxCandidates bounds the candidates listed in a decision; 0 (or less) means 25.
	MaxCandidates int
	// DecisionRetention is how many of the newest decisions are kept for Decisions;
	// 0 (or less) means 10,000. Older ones are dropped so memory stays bounded.
	DecisionRetention int
	// ShuffleTies, under RulesPlatform, breaks ties between equally ranked workers in an
	// order drawn from Seed instead of registration order: the platform's engine breaks
	// them by the order it reads its users hash in Redis, which is registration order only
	// while the hash is small and otherwise differs from one Redis process to the next.
	// Each worker's place in that order is fixed for the engine's life, as a hash order is
	// (docs/contract.md, "Tests that hold on the platform").
	ShuffleTies bool
	// Seed seeds the engine's randomness: the order of ShuffleTies and learning's
	// exploration (LearningConfig.Rank). Engines with the same seed and the same commands
	// decide alike.
	Seed uint64
}

// LearningConfig configures reward learning. The zero value means: learning on, applied to
// ranking, learned veto off, half-life 7 days.
type LearningConfig struct {
	// Disabled turns learning off: no rewards are recorded and the factor is 1.
	Disabled bool
	// ShadowMode records rewards and reports the factor in decisions but does not let it
	// change ranking (nor veto).
	ShadowMode bool
	// LearnedVeto makes a worker ineligible for a task when, for one of the task's tags,
	// it has at least LearnedVetoMinSamples rewards and a mean at or below
	// LearnedVetoThreshold.
	LearnedVeto bool
	// LearnedVetoThreshold; 0 means -0.5.
	LearnedVetoThreshold float64
	// LearnedVetoMinSamples; 0 (or less) means 5.
	LearnedVetoMinSamples int
	// HalfLife of the decayed mean reward; 0 (or less) means 7 days.
	HalfLife time.Duration
	// Rank, under RulesPlatform, ranks each worker's candidates as the platform's engine
	// does with its learning on (platform_learning.go): priority + score plus the reward
	// its linear model predicts for the pair, plus now and then a random boost
	// (exploration). Off by default, as on the platform (docs/contract.md, "Learning under
	// the platform rules"). Disabled turns it off too; in ShadowMode the model learns but
	// does not rank.
	Rank bool
	// ExplorationRate is, with Rank, the chance that a candidate gets a random boost
	// (uniform in [0, 1)) drawn from Config.Seed; nil means the engine's 0.05, and 0 never
	// explores.
	ExplorationRate *float64
}

// Rewards per outcome, for (worker, each task tag).
const (
	RewardAccept   = 1.0
	RewardComplete = 2.0
	RewardReject   = -1.0
	RewardExpiry   = -0.5
)

// WorkerInput is the body of UpsertWorker and PatchWorker. Nil fields are absent: on an
// update they keep their value; non-nil fields (even empty) replace it.
type WorkerInput struct {
	// ID is required by UpsertWorker and ignored by PatchWorker.
	ID string
	// Tags the worker carries (its skills).
	Tags []string
	// RoutingWeights maps a tag or a `prefix*` pattern to a proficiency >= 0; a positive
	// entry also carries the tag, 0 is a hard veto. An exact tag entry wins over patterns;
	// among patterns the longest prefix wins.
	RoutingWeights map[string]float64
	// MaxBacklogSize caps pending offers; 0 means receive nothing. Nil on create means the
	// workspace default.
	MaxBacklogSize *int
	// Available; nil on create means unavailable (a new worker is unavailable unless
	// explicitly made available).
	Available *bool
	// Extra is stored and echoed untouched (meta and anything else the adapter keeps).
	// Nil keeps the old value.
	Extra any
	// Routing replaces the worker's skills, teams, location and ip; nil keeps them.
	Routing *WorkerRouting
}

// Escalation is a task's offer-expiry policy.
type Escalation struct {
	// RespondWithin replaces Config.OfferTimeout for this task's offers when positive.
	RespondWithin time.Duration
	// OnNoResponse; "" means NoResponseAllow.
	OnNoResponse OnNoResponse
}

// TaskInput is the body of CreateTask.
type TaskInput struct {
	// ID is required (the adapter makes one when the caller did not).
	ID string
	// Tags are the required skills; at least one.
	Tags []string
	// Priority: higher is more urgent.
	Priority float64
	// VetoedWorkers never get this task.
	VetoedWorkers []string
	// SkillThresholds maps a tag to the minimum routing weight a worker needs.
	SkillThresholds map[string]float64
	// Escalation may be nil.
	Escalation *Escalation
	// Clocks are the SLA, schedule and escalation-ladder policies (clocks.go); nil: none.
	Clocks *Clocks
	// Extra is stored and echoed untouched: meta, title, description, sla, schedule and
	// anything else the matcher does not enforce.
	Extra any
	// Routing holds the rules beyond tags (required skills, team, place, network); nil
	// (or empty) for none.
	Routing *TaskRouting
}

// Task is a copy of a task's state.
type Task struct {
	ID              string
	Tags            []string
	Priority        float64
	Status          Status
	WorkerID        string // the offered or accepting worker; "" when queued
	CreatedAt       time.Time
	QueuedAt        time.Time // first time queued; a requeue keeps it (it orders the queue)
	OfferExpiresAt  time.Time // zero unless pending
	VetoedWorkers   []string
	RejectedBy      []string // workers that rejected it or were blocked by expiry, in order
	SkillThresholds map[string]float64
	Escalation      *Escalation
	Result          any // what Complete stored
	EscalationLevel int // steps taken on the escalation ladder
	Extra           any
	Routing         *TaskRouting // nil: no rules beyond tags
	// Seq is the creation order; Tasks pages by it (the adapter encodes it as the cursor).
	Seq uint64
}

// WorkerDetail is a copy of a worker's state.
type WorkerDetail struct {
	ID             string
	Tags           []string
	RoutingWeights map[string]float64
	MaxBacklogSize *int // nil: workspace default
	Available      bool
	OnBreak        bool
	BreakSince     time.Time // zero unless on a break
	BreakReason    string
	QueueDepth     int // pending offers held
	CreatedAt      time.Time
	LastMatchedAt  time.Time // zero until the first offer
	Extra          any
	Routing        *WorkerRouting // skills (sorted by id), teams (sorted), place, ip; nil: none
}

// EventKind names an event.
type EventKind string

// Event kinds. task.released is sent when an offer is withdrawn without the worker acting
// (release backlog, worker removed, reassigned); the task is queued again or reassigned.
const (
	EventTaskMatched        EventKind = "task.matched"
	EventTaskAccepted       EventKind = "task.accepted"
	EventTaskRejected       EventKind = "task.rejected"
	EventTaskCompleted      EventKind = "task.completed"
	EventTaskExpired        EventKind = "task.expired"
	EventTaskCancelled      EventKind = "task.cancelled"
	EventTaskReleased       EventKind = "task.released"
	EventWorkerBreakStarted EventKind = "worker.break_started"
	EventWorkerBreakEnded   EventKind = "worker.break_ended"
)

// Event is one change, in the engine's total order (by Seq).
type Event struct {
	Kind       EventKind
	ID         string // prefix + Seq: unique and deterministic
	Seq        uint64
	At         time.Time
	TaskID     string
	WorkerID   string
	DecisionID string    // task.matched
	ExpiresAt  time.Time // task.matched: when the offer expires
	Priority   float64   // task events
	Tags       []string  // task events
	Result     any       // task.completed
	Reason     string    // break reason; for task.released why ("releaseBacklog", "workerRemoved", "reassigned")
	Level      int       // task.escalated: the new escalation level
}

// ReasonKind names one part of an explanation. Kinds are additive.
type ReasonKind string

// Reason kinds.
const (
	ReasonMissingTag         ReasonKind = "missingTag"
	ReasonVetoed             ReasonKind = "vetoed"
	ReasonRejectedPreviously ReasonKind = "rejectedPreviously"
	ReasonBacklogFull        ReasonKind = "backlogFull"
	ReasonUnavailable        ReasonKind = "unavailable"
	ReasonOnBreak            ReasonKind = "onBreak"
	ReasonZeroWeight         ReasonKind = "zeroWeight"
	ReasonThreshold          ReasonKind = "threshold"
	ReasonLearnedVeto        ReasonKind = "learnedVeto"
	ReasonTagWeight          ReasonKind = "tagWeight"
	ReasonLearningBoost      ReasonKind = "learningBoost"
	ReasonLoadPenalty        ReasonKind = "loadPenalty"
	ReasonManualAssign       ReasonKind = "manualAssign"
)

// Reason is one part of why a candidate is (in)eligible or how it scored. Only the fields
// that fit the kind are set.
type Reason struct {
	Kind      ReasonKind
	Tag       string
	Weight    float64 // tagWeight, zeroWeight, threshold: the worker's weight for Tag
	Threshold float64 // threshold: the task's minimum
	Boost     float64 // learningBoost: the factor (1 = neutral), or the Predicted reward; loadPenalty: the amount
	Shadow    bool    // learningBoost in shadow mode: reported, not applied
	// Predicted: a learningBoost of RulesPlatform's learning (LearningConfig.Rank), whose Boost
	// is the reward its model predicts for the pair, added to priority + score, not a factor.
	Predicted bool
	// The routing inputs' reasons (routing.go) name a skill, a team or a distance.
	Skill       string  // missingSkill, skillExpired, skillLevelTooLow, skillWeight
	Level       int     // skillLevelTooLow, skillWeight: the worker's level
	MinLevel    int     // missingSkill, skillLevelTooLow: the task's minimum
	Team        string  // notInTeam, preferredTeam
	Distance    float64 // tooFar: km between task and worker
	MaxDistance float64 // tooFar: the tighter of the task's and the worker's limits
}

// Candidate is one worker considered for a task.
type Candidate struct {
	WorkerID          string
	Eligible          bool
	Chosen            bool
	Score             float64 // the mode's ranking score
	EffectivePriority float64 // the task's priority (the platform's wire fixtures answer it so)
	Reasons           []Reason
}

// Decision records one match: the task offered to a worker and why.
type Decision struct {
	ID         string
	Seq        uint64
	TaskID     string
	WorkerID   string
	MatchedAt  time.Time
	Mode       Mode
	Candidates []Candidate // chosen first, at most Config.MaxCandidates
	// Ties, under RulesPlatform, lists the workers that ranked equal with the chosen one for
	// this task in its pass, the chosen one included, in the order the pass met them; nil
	// when the choice was strict. The platform's engine breaks such a tie by the order it
	// reads its users hash in Redis, so on the platform any of them could have been chosen
	// (docs/contract.md, "Tests that hold on the platform").
	Ties []string
}

// Result is what a command changed. Publish Events even when the command returns an
// error: they then hold only the offer expiries that were due before the command ran.
type Result struct {
	Events []Event
	// DecisionIDs names the decisions made, in order; Engine.Decision reads one back. A
	// Result carries ids, not decisions, because building the exported form of every
	// decision (up to 25 candidates with reasons, about 5 KiB) was the largest allocation
	// of a match and the mock server only reads decisions through GET /decisions.
	DecisionIDs []string
	// Created: UpsertWorker made a new worker.
	Created bool
	// ReleasedTaskIDs: SetAvailability with releaseBacklog requeued these offers.
	ReleasedTaskIDs []string
	// PreviousWorkerID: Assign took the task from this worker ("" if it was queued).
	PreviousWorkerID string
}
