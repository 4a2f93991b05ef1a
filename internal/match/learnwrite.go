package match

import (
	"math"
	"slices"
	"time"
)

// MaxExplicitReward bounds the magnitude of a reward given by Reward: the totals that
// learning reports stay finite however many rewards arrive.
const MaxExplicitReward = 1e6

// Reward records an explicit reward r for the worker that holds or held the task, on
// every tag of the task, as an accept or a completion would (POST /tasks/{id}/reward and
// /feedback). A task that no worker holds (queued, or cancelled while queued) has nobody
// to credit: a *StateError. With learning disabled nothing is recorded.
func (e *Engine) Reward(now time.Time, taskID string, r float64) (Result, error) {
	res := e.begin(&Result{}, now)
	if math.IsNaN(r) || math.Abs(r) > MaxExplicitReward {
		return e.fail(res, &InputError{Field: "reward", Reason: "must be a number between -1e6 and 1e6"})
	}
	t, w, err := e.credited(taskID)
	if err != nil {
		return e.fail(res, err)
	}
	e.reward(w, t, r)
	// A reward can lift (or set) a learned veto, and it moves the worker's rank.
	e.markWorker(w)
	return e.finish(res), nil
}

// CreditedWorker names the worker a reward for the task would go to, or the error Reward
// would give, without recording anything (feedback with no signals).
func (e *Engine) CreditedWorker(taskID string) (string, error) {
	_, w, err := e.credited(taskID)
	if err != nil {
		return "", err
	}
	return w.id, nil
}

func (e *Engine) credited(taskID string) (*task, *worker, error) {
	t, err := e.lookupTask(taskID)
	if err != nil {
		return nil, nil, err
	}
	w := e.workers[t.workerID]
	if t.workerID == "" || w == nil {
		return nil, nil, &StateError{Op: "reward", TaskID: t.id, Status: t.status, Reason: StateWrongStatus}
	}
	return t, w, nil
}

// ResetLearning forgets every learned (worker, tag) mean and the reward totals
// (POST /learning/reset). The count of decisions stays: it counts matching, not learning.
// Weights written into routingWeights by an apply are not learning state and stay.
func (e *Engine) ResetLearning(now time.Time) Result {
	res := e.begin(&Result{}, now)
	ids := make([]string, 0, len(e.workers))
	for id, w := range e.workers {
		if len(w.stats) > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids) // deterministic dirty order
	for _, id := range ids {
		w := e.workers[id]
		e.forgetStats(w)
		e.updateBound(w)
		e.rekey(w)
		e.markWorker(w)
	}
	e.learnOuts, e.learnSum = 0, 0
	if l := e.plat.learn; l != nil {
		// The engine's reset starts a new model generation: the open decisions' outcomes
		// train nothing.
		clear(l.model)
		clear(l.open)
		l.outcomes, l.total = 0, 0
	}
	return e.finish(res)
}
