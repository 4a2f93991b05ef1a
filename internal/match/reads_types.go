package match

import "time"

// TaskFilter selects tasks by status in Tasks.
type TaskFilter string

// Task filters, as the wire's tasks.list status query.
const (
	FilterAll      TaskFilter = "all" // "" means the same
	FilterQueued   TaskFilter = "queued"
	FilterPending  TaskFilter = "pending"
	FilterAccepted TaskFilter = "accepted"
)

// TaskQuery is a page request for Tasks.
type TaskQuery struct {
	Status TaskFilter
	// After is the cursor: only tasks with Seq > After are listed (0: from the start).
	After uint64
	// Limit per page; 0 (or less) means 50.
	Limit int
}

// TaskPage is one page of Tasks, in creation order. The next cursor is the last task's Seq.
type TaskPage struct {
	Tasks   []Task
	HasMore bool
}

// DecisionQuery filters Decisions; empty fields match everything.
type DecisionQuery struct {
	TaskID   string
	WorkerID string
	// Limit; 0 (or less) means 50.
	Limit int
}

// SuggestInput is the body of SuggestWorkers: a task that is scored but not created.
type SuggestInput struct {
	Tags            []string
	Priority        float64
	VetoedWorkers   []string
	SkillThresholds map[string]float64
	// Routing holds the rules beyond tags, as on a task; nil for none.
	Routing *TaskRouting
	// Limit; 0 (or less) means 10, at most 100.
	Limit int
}

// RewardTable lists the reward per outcome.
type RewardTable struct {
	Accept, Complete, Reject, Expiry float64
}

// LearningTotals counts what learning has recorded.
type LearningTotals struct {
	Workers  int // workers with at least one reward
	Pairs    int // (worker, tag) pairs with a mean
	Outcomes int // rewards recorded (per outcome, not per tag)
	// Decisions counts every routing decision made (not only the retained ones);
	// TotalReward sums every recorded reward, undecayed.
	Decisions   int
	TotalReward float64
}

// LearningStatus is the state of learning (GET /learning/status). Under RulesEveryTag
// learning.status reports Enabled, ShadowMode, Rewards, Stats and ModelSize; under
// RulesPlatform it reports Model, the engine's learning, and those fields describe only the
// per-tag means kept for learning.workerStats and the learned weights.
type LearningStatus struct {
	// Rules is the engine's rule set: which of the fields learning.status reports.
	Rules Rules
	// Enabled: rewards are recorded per (worker, tag); false with LearningConfig.Disabled.
	Enabled     bool
	ShadowMode  bool
	LearnedVeto bool
	// AutoWeights is always false: learning multiplies scores, it never rewrites
	// routingWeights.
	AutoWeights bool
	HalfLife    time.Duration
	Rewards     RewardTable
	Stats       *LearningTotals // nil when learning is disabled
	ModelSize   int             // number of (worker, tag) means kept
	// Model is, under RulesPlatform, the engine's learning model (LearningConfig.Rank, not
	// Disabled); nil when it is off, as it is by default, and under RulesEveryTag.
	Model *LearnedModelStatus
}

// LearnedModelStatus is the state of the engine's learning model under RulesPlatform
// (platform_learning.go).
type LearnedModelStatus struct {
	Shadow      bool    // it learns without ranking (LearningConfig.ShadowMode)
	Weights     int     // feature weights the model holds
	Decisions   int     // routing decisions made
	Outcomes    int     // outcomes it trained on since the last reset
	TotalReward float64 // the sum of their rewards
}

// TagStat is a worker's learning for one tag (GET /learning/workers/{id}).
type TagStat struct {
	Tag        string
	Count      int     // rewards recorded
	MeanReward float64 // decayed mean
	// CurrentWeight is the routingWeights value that applies to Tag (exact or pattern),
	// nil when none does.
	CurrentWeight *float64
	// LearnedWeight is the weight times this tag's learning factor
	// 1 + 0.5*tanh(mean/2); nil when learning is disabled.
	LearnedWeight *float64
}
