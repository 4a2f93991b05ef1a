package match

// Rules selects the matching rules an Engine follows.
type Rules string

// Rule sets. The zero value of Config.Rules means RulesPlatform.
const (
	// RulesPlatform reproduces the hosted platform's engine (the published
	// assignment-user-matcher 1.16.1 in the settings docs/contract.md names): a worker is
	// eligible through any shared tag, each worker ranks its own candidate tasks, every
	// command is followed by exactly one match pass over the workers in registration
	// order, and offer expiries due together are re-matched together. See platform.go
	// and docs/contract.md, "How the platform matches".
	RulesPlatform Rules = "platform"
	// RulesEveryTag is the reference rule set of earlier releases: a worker must carry
	// every task tag (the service specification's reading of tags as required skills),
	// each task picks its best worker, and matching runs to a fixed point after every
	// command.
	RulesEveryTag Rules = "every-tag"
)

// Valid reports whether r names a rule set ("" counts as the default).
func (r Rules) Valid() bool {
	return r == "" || r == RulesPlatform || r == RulesEveryTag
}

// platform reports whether the engine follows the platform's rules.
func (e *Engine) platform() bool { return e.cfg.Rules == RulesPlatform }

// anyTag reports whether the every-tag rules run with the deprecated any-tag relaxation.
func (e *Engine) anyTag() bool { return e.cfg.AnyTagEligibility && !e.platform() }

// defaultCandidateWindow is the engine's relevantBatchSize: the candidate tasks one worker
// reads per pass.
const defaultCandidateWindow = 50
