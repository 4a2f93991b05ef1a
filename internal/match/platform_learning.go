package match

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Learning under RulesPlatform with LearningConfig.Rank, as the platform's engine learns
// with its learning on (its LearningManager, "legacy" single model, "jitter" exploration,
// default settings); docs/contract.md, "Learning under the platform rules".
//
//   - Features of a (worker, task) pair: bias 1; "tag:X" 1 for each task tag X the worker
//     lists in its tags; "skill:X" min(weight/100, 1) for each task tag X its routing
//     weights give a positive weight (the exact entry, else the first matching pattern);
//     "overlap", the share of the task's tags the worker lists.
//   - The model is one weight per feature name, all 0 at first. A pair's predicted reward
//     is the sum of weight × value over its features.
//   - Ranking: each worker reads its whole window (not only as many as it has free slots),
//     and each candidate's priority + score gets the predicted reward added, and, with
//     chance ExplorationRate (0.05), a random boost in [0, 1). A worker's candidates are then
//     walked by that sum, highest first (ties keep the window's order), and the pass awards
//     by it.
//   - The decision of an offer keeps the pair's features. Its outcomes train the model, one
//     normalised step each: accept 1, then complete 2 or fail −0.8; reject −1; an expired
//     offer −0.3. Reject, complete, fail and expiry end the decision: outcomes after them
//     train nothing until the task is offered again.
//   - A step: error = reward − prediction; each active feature's weight moves by
//     0.1 × error × value / max(1, Σ value²), the whole step scaled down to a norm of at most
//     1, and a weight leaving [−100, 100] is held at the bound.

// The engine's learning defaults (assignment-user-matcher 1.16.1, LearningManager).
const (
	learnRate        = 0.1
	learnMaxNorm     = 1
	learnMaxWeight   = 100
	learnExploration = 0.05

	// The rewards: accept, complete and reject are the platform's documented ones (the
	// engine's learningRewards option; learning.status reports them), expire and fail the
	// engine's defaults, since the platform documents none.
	learnRewardAccept   = RewardAccept
	learnRewardComplete = RewardComplete
	learnRewardReject   = RewardReject
	learnRewardExpire   = -0.3
	learnRewardFail     = -0.8
)

// learnOutcome is what happened to an offer, as the engine's learning names it.
type learnOutcome int

const (
	outcomeAccept learnOutcome = iota
	outcomeComplete
	outcomeReject
	outcomeExpire
	outcomeFail
)

func (o learnOutcome) reward() float64 {
	switch o {
	case outcomeAccept:
		return learnRewardAccept
	case outcomeComplete:
		return learnRewardComplete
	case outcomeReject:
		return learnRewardReject
	case outcomeExpire:
		return learnRewardExpire
	}
	return learnRewardFail
}

// feature is one named value of a pair's feature vector.
type feature struct {
	name  string
	value float64
}

// platLearning is the model and the open decisions of RulesPlatform learning; nil on an
// engine that does not rank by it.
type platLearning struct {
	model   map[string]float64
	open    map[*task][]feature // the features of each task's offer whose decision is open
	rng     *rand.Rand
	explore float64 // the exploration rate; 0: never
	shadow  bool    // learn, do not rank
	// What it trained on since the last reset (learning.status): outcomes and their sum.
	outcomes int
	total    float64
}

// newPlatLearning returns the learning state cfg asks for, or nil.
func newPlatLearning(cfg Config) *platLearning {
	l := cfg.Learning
	if cfg.Rules != RulesPlatform || !l.Rank || l.Disabled {
		return nil
	}
	rate := learnExploration
	if l.ExplorationRate != nil {
		rate = max(0, *l.ExplorationRate)
	}
	return &platLearning{
		model: map[string]float64{}, open: map[*task][]feature{},
		// A stream of its own, so exploration does not move the tie order's.
		rng:     rand.New(rand.NewPCG(cfg.Seed, 0x6c6561726e696e67)),
		explore: min(rate, 1), shadow: l.ShadowMode,
	}
}

// features is the engine's default feature vector of (w, t), in the order the engine
// builds it (the order its sums run in).
func (e *Engine) features(w *worker, t *task) []feature {
	fs := []feature{{"bias", 1}}
	var es []platEntry
	if len(w.weights) > 0 {
		es = platEntries(w)
	}
	listed := 0
	for _, tag := range t.tagsIn {
		if slices.Contains(w.tags, tag) {
			fs = append(fs, feature{"tag:" + tag, 1})
			listed++
		}
		if es != nil {
			if wt := platThresholdWeight(es, tag); wt > 0 {
				fs = append(fs, feature{"skill:" + tag, min(wt/100, 1)})
			}
		}
	}
	if len(t.tagsIn) > 0 {
		fs = append(fs, feature{"overlap", float64(listed) / float64(len(t.tagsIn))})
	}
	return fs
}

// predict is the model's expected reward for a feature vector.
func (l *platLearning) predict(fs []feature) float64 {
	sum := 0.0
	for _, f := range fs {
		if w := l.model[f.name]; w != 0 && !math.IsNaN(w) {
			sum += w * f.value
		}
	}
	if math.IsInf(sum, 0) || math.IsNaN(sum) {
		return 0
	}
	return sum
}

// learnRank re-ranks one worker's candidates of a pass (its whole window, in walk order)
// by priority + score + predicted reward + exploration, highest first.
func (e *Engine) learnRank(w *worker, cs []platCand) {
	l := e.plat.learn
	for i := range cs {
		if l.shadow {
			break // the engine neither boosts nor explores in shadow mode, but still sorts
		}
		boost := l.predict(e.features(w, cs[i].t))
		// Exploration is drawn per candidate in walk order: one draw to decide, one more
		// for the boost when it explores.
		if l.explore > 0 && l.rng.Float64() < l.explore {
			boost += l.rng.Float64()
		}
		cs[i].prio += boost
	}
	slices.SortStableFunc(cs, func(a, b platCand) int { return cmp.Compare(b.prio, a.prio) })
}

// learnOffer opens the decision of offering t to w: its features train the model when
// the offer's outcomes come.
func (e *Engine) learnOffer(t *task, w *worker) {
	if l := e.plat.learn; l != nil {
		l.open[t] = e.features(w, t)
	}
}

// learnOutcome trains the model with an outcome of t's open decision, if it has one.
func (e *Engine) learnOutcome(t *task, o learnOutcome) {
	l := e.plat.learn
	if l == nil {
		return
	}
	fs, ok := l.open[t]
	if !ok {
		return
	}
	if o != outcomeAccept {
		delete(l.open, t)
	}
	l.update(fs, o.reward())
	l.outcomes++
	l.total += o.reward()
}

// learnForget drops t's open decision: a cancelled task has no outcome to learn from.
func (e *Engine) learnForget(t *task) {
	if l := e.plat.learn; l != nil {
		delete(l.open, t)
	}
}

// update is one normalised, bounded step of the model towards reward.
func (l *platLearning) update(fs []feature, reward float64) {
	active := make([]feature, 0, len(fs))
	for _, f := range fs {
		if f.value != 0 && !math.IsNaN(f.value) && !math.IsInf(f.value, 0) {
			active = append(active, f)
		}
	}
	if len(active) == 0 {
		return
	}
	pred, sq := 0.0, 0.0
	for _, f := range active {
		pred += l.model[f.name] * f.value
	}
	for _, f := range active {
		sq += f.value * f.value
	}
	scale := learnRate * (reward - pred) / max(1, sq)
	deltas := make([]float64, len(active))
	norm := 0.0
	for i, f := range active {
		deltas[i] = scale * f.value
		norm += deltas[i] * deltas[i]
	}
	if norm = math.Sqrt(norm); norm > learnMaxNorm {
		shrink := learnMaxNorm / norm
		for i := range deltas {
			deltas[i] *= shrink
		}
	}
	for i, f := range active {
		next := l.model[f.name] + deltas[i]
		if math.Abs(next) > learnMaxWeight {
			next = math.Copysign(learnMaxWeight, next)
		}
		l.model[f.name] = next
	}
}

// LearnedModel returns, under RulesPlatform with LearningConfig.Rank, the learned weight
// of every feature the model holds (nil otherwise): the engine's learning model, for
// tests that compute the expected ranking.
func (e *Engine) LearnedModel() map[string]float64 {
	l := e.plat.learn
	if l == nil {
		return nil
	}
	out := make(map[string]float64, len(l.model))
	for k, v := range l.model {
		out[k] = v
	}
	return out
}
