package mockserver

import (
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

// weightSnapshot is what learning.applyWeights keeps per worker so that
// learning.revertWeights can put the worker back (docs/contract.md, "Learned weights").
type weightSnapshot struct {
	createdAt time.Time          // the worker's; a re-created worker of the same id is another worker
	weights   map[string]float64 // routingWeights before the first apply
	base      map[string]float64 // per applied tag: the weight learning multiplied
}

// learnedWeights is one worker's preview: its routingWeights and the weights learning
// would write. The rule: learned = base × (1 + 0.5 × tanh(meanReward / 2)), rounded to 4
// decimals, where base is the tag's weight before any apply (its routingWeights entry, else
// 1). A tag with a routingWeights entry the caller set (exact or by pattern) is manual and
// left out unless overrideManual; a tag the worker does not carry, or weighs 0, is never
// written (learning does not lift a veto). includeUnexplored adds the worker's tags without
// any reward at their base weight.
// base holds, per learned tag, the weight it multiplied.
func (ws *workspace) learnedWeights(id string, overrideManual, includeUnexplored bool) (current, learned, base map[string]float64, err error) {
	w, err := ws.engine.Worker(id)
	if err != nil {
		return nil, nil, nil, err
	}
	stats, err := ws.engine.WorkerStats(id)
	if err != nil {
		return nil, nil, nil, err
	}
	snap := ws.learnSnaps[id]
	if snap != nil && !snap.createdAt.Equal(w.CreatedAt) {
		snap = nil
	}
	learned, base = map[string]float64{}, map[string]float64{}
	if !ws.engine.LearningStatus().Enabled {
		return w.RoutingWeights, learned, base, nil
	}
	baseOf := func(tag string, explicit *float64, carried bool) (float64, bool) {
		if snap != nil {
			if b, ok := snap.base[tag]; ok {
				return b, true
			}
		}
		switch {
		case explicit != nil && !overrideManual:
			return 0, false
		case explicit != nil:
			return *explicit, *explicit > 0
		default:
			return 1, carried
		}
	}
	seen := map[string]bool{}
	for _, s := range stats {
		seen[s.Tag] = true
		carried := s.LearnedWeight != nil && *s.LearnedWeight > 0
		if b, ok := baseOf(s.Tag, s.CurrentWeight, carried); ok && b > 0 {
			learned[s.Tag], base[s.Tag] = round4(b*(1+0.5*math.Tanh(s.MeanReward/2))), b
		}
	}
	if includeUnexplored {
		for _, tag := range w.Tags {
			if seen[tag] {
				continue
			}
			var explicit *float64
			if v, ok := w.RoutingWeights[tag]; ok {
				explicit = &v
			}
			if b, ok := baseOf(tag, explicit, true); ok && b > 0 {
				learned[tag], base[tag] = round4(b), b
			}
		}
	}
	return w.RoutingWeights, learned, base, nil
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

type wireWeightsPreview struct {
	Workers []wireWorkerWeights `json:"workers"`
}

type wireWorkerWeights struct {
	WorkerID string             `json:"workerId"`
	Current  map[string]float64 `json:"current"`
	Learned  map[string]float64 `json:"learned"`
}

// queryBool reads an optional boolean query parameter as the platform parses it.
func queryBool(r *request, name string) (bool, *apiError) {
	switch v := r.query.Get(name); v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, validationf("querystring/%s must be boolean", name)
	}
}

// prepPreviewWeights is GET /learning/weights/preview: every worker with something to
// learn, by id, or the one worker named.
func prepPreviewWeights(r *request) (op, *apiError) {
	workerID := r.query.Get("workerId")
	override, aerr := queryBool(r, "overrideManual")
	if aerr != nil {
		return nil, aerr
	}
	unexplored, aerr := queryBool(r, "includeUnexploredTags")
	if aerr != nil {
		return nil, aerr
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		out := wireWeightsPreview{Workers: []wireWorkerWeights{}}
		ids := ws.engine.WorkerIDs()
		if workerID != "" {
			ids = []string{workerID}
		}
		for _, id := range ids {
			cur, learned, _, err := ws.learnedWeights(id, override, unexplored)
			if err != nil {
				return 0, nil, matchError(err)
			}
			if workerID == "" && len(learned) == 0 {
				continue
			}
			out.Workers = append(out.Workers, wireWorkerWeights{WorkerID: id, Current: cur, Learned: learned})
		}
		return http.StatusOK, out, nil
	}, nil
}

type weightsTarget struct {
	WorkerIDs             []string `json:"workerIds"`
	OverrideManual        bool     `json:"overrideManual"`
	IncludeUnexploredTags bool     `json:"includeUnexploredTags"`
}

// decodeWeightsTarget reads the body the schema accepted; an id that names no worker is
// skipped by the caller, not refused.
func decodeWeightsTarget(body []byte) (weightsTarget, *apiError) {
	var in weightsTarget
	err := decodeBody(body, &in)
	return in, err
}

// prepApplyWeights is POST /learning/weights/apply: the previewed weights are written into
// each worker's routingWeights (so matching uses them at once), after a snapshot of the
// weights as they were before the first apply. Ids naming no worker are skipped.
func prepApplyWeights(r *request) (op, *apiError) {
	in, aerr := decodeWeightsTarget(r.body)
	if aerr != nil {
		return nil, aerr
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		ids := in.WorkerIDs
		if ids == nil {
			ids = ws.engine.WorkerIDs()
		}
		applied := map[string]map[string]float64{}
		for _, id := range ids {
			cur, learned, base, err := ws.learnedWeights(id, in.OverrideManual, in.IncludeUnexploredTags)
			if err != nil || len(learned) == 0 {
				continue
			}
			w, _ := ws.engine.Worker(id)
			snap := ws.learnSnaps[id]
			if snap == nil || !snap.createdAt.Equal(w.CreatedAt) {
				snap = &weightSnapshot{createdAt: w.CreatedAt, weights: cur, base: map[string]float64{}}
				if ws.learnSnaps == nil {
					ws.learnSnaps = map[string]*weightSnapshot{}
				}
				ws.learnSnaps[id] = snap
			}
			next := make(map[string]float64, len(cur)+len(learned))
			for tag, v := range cur {
				next[tag] = v
			}
			for tag, v := range learned {
				if _, ok := snap.base[tag]; !ok {
					snap.base[tag] = base[tag]
				}
				next[tag] = v
			}
			if _, _, err := ws.writeWorker(now, match.WorkerInput{ID: id, RoutingWeights: next}, true); err != nil {
				return 0, nil, err
			}
			applied[id] = learned
		}
		return http.StatusOK, struct {
			Applied map[string]map[string]float64 `json:"applied"`
		}{applied}, nil
	}, nil
}

// prepRevertWeights is POST /learning/weights/revert: each named worker (every one, when
// none is named) that has a snapshot gets its routingWeights back; workers never applied
// to are absent from the answer.
func prepRevertWeights(r *request) (op, *apiError) {
	in, aerr := decodeWeightsTarget(r.body)
	if aerr != nil {
		return nil, aerr
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		ids := in.WorkerIDs
		if ids == nil {
			ids = make([]string, 0, len(ws.learnSnaps))
			for id := range ws.learnSnaps {
				ids = append(ids, id)
			}
			slices.Sort(ids)
		}
		reverted := []string{}
		for _, id := range ids {
			snap := ws.learnSnaps[id]
			if snap == nil {
				continue
			}
			delete(ws.learnSnaps, id)
			w, err := ws.engine.Worker(id)
			if err != nil || !w.CreatedAt.Equal(snap.createdAt) {
				continue
			}
			weights := snap.weights
			if weights == nil {
				weights = map[string]float64{}
			}
			if _, _, err := ws.writeWorker(now, match.WorkerInput{ID: id, RoutingWeights: weights}, true); err != nil {
				return 0, nil, err
			}
			reverted = append(reverted, id)
		}
		return http.StatusOK, struct {
			Reverted []string `json:"reverted"`
			Count    int      `json:"count"`
		}{reverted, len(reverted)}, nil
	}, nil
}

type okAnswer struct {
	OK bool `json:"ok"`
}

// signalReward is the reward of a feedback: the sum of its signals, each weighted 1.
func signalReward(signals map[string]float64) float64 {
	keys := make([]string, 0, len(signals))
	for k := range signals {
		keys = append(keys, k)
	}
	slices.Sort(keys) // a fixed summing order: the same signals give the same bits
	sum := 0.0
	for _, k := range keys {
		sum += signals[k]
	}
	return sum
}

// rewardTask credits r to the task's worker and publishes what matching did after it. With
// nothing to record (feedback without signals) it only checks that the task has a worker to
// credit.
func (ws *workspace) rewardTask(now time.Time, taskID string, r float64, nothing bool) *apiError {
	if nothing {
		if _, err := ws.engine.CreditedWorker(taskID); err != nil {
			return matchError(err)
		}
		return nil
	}
	res, err := ws.engine.Reward(now, taskID, r)
	ws.publish(res)
	if err != nil {
		return matchError(err)
	}
	return nil
}

// prepReward is POST /tasks/{id}/reward.
func prepReward(r *request) (op, *apiError) {
	var in struct {
		Reward float64 `json:"reward"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if err := ws.rewardTask(now, taskID, in.Reward, false); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, okAnswer{OK: true}, nil
	}, nil
}

// noteSignals remembers the names of signals credited, for learning.status's signalWeights.
func (ws *workspace) noteSignals(signals map[string]float64) {
	for k := range signals {
		if ws.signals == nil {
			ws.signals = map[string]bool{}
		}
		ws.signals[k] = true
	}
}

// prepFeedback is POST /tasks/{id}/feedback: the signals' sum is the reward; no signals
// record nothing.
func prepFeedback(r *request) (op, *apiError) {
	var in struct {
		Signals map[string]float64 `json:"signals"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	taskID := r.params[0]
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		if err := ws.rewardTask(now, taskID, signalReward(in.Signals), len(in.Signals) == 0); err != nil {
			return 0, nil, err
		}
		ws.noteSignals(in.Signals)
		return http.StatusOK, okAnswer{OK: true}, nil
	}, nil
}

type wireFeedbackResult struct {
	TaskID string  `json:"taskId"`
	OK     bool    `json:"ok"`
	Error  *string `json:"error,omitempty"`
}

// prepFeedbackBulk is POST /learning/feedback: each item is credited on its own, in order;
// one that fails names its error code and changes nothing. An item's reward is its
// `reward` plus the sum of its signals; an item with neither records nothing.
func prepFeedbackBulk(r *request) (op, *apiError) {
	var in struct {
		Items []struct {
			TaskID  string             `json:"taskId"`
			Signals map[string]float64 `json:"signals"`
			Reward  *float64           `json:"reward"`
		} `json:"items"`
	}
	if err := decodeBody(r.body, &in); err != nil {
		return nil, err
	}
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		out := make([]wireFeedbackResult, 0, len(in.Items))
		for _, it := range in.Items {
			res := wireFeedbackResult{TaskID: it.TaskID, OK: true}
			reward := signalReward(it.Signals)
			if it.Reward != nil {
				reward += *it.Reward
			}
			if err := ws.rewardTask(now, it.TaskID, reward, it.Reward == nil && len(it.Signals) == 0); err != nil {
				res.OK, res.Error = false, &err.code
			} else {
				ws.noteSignals(it.Signals)
			}
			out = append(out, res)
		}
		return http.StatusOK, struct {
			Results []wireFeedbackResult `json:"results"`
		}{out}, nil
	}, nil
}

// prepResetLearning is POST /learning/reset: every learned mean and the reward totals are
// forgotten; weights an apply wrote stay, and their snapshots too, so a revert still works.
func prepResetLearning(*request) (op, *apiError) {
	return func(ws *workspace, now time.Time) (int, any, *apiError) {
		ws.publish(ws.engine.ResetLearning(now))
		return http.StatusOK, okAnswer{OK: true}, nil
	}, nil
}
