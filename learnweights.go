package taskrouting

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
)

// LearnedWeights is one worker's row of a weights preview: the routing
// weights it has and the ones learning would write.
type LearnedWeights struct {
	WorkerID string             `json:"workerId"`
	Current  map[string]float64 `json:"current"`
	Learned  map[string]float64 `json:"learned"`
}

// PreviewWeightsParams narrows a weights preview; the zero value previews
// every worker, leaving manually set weights alone.
type PreviewWeightsParams struct {
	WorkerID string // one worker; "" for all
	// OverrideManual lets learning propose a weight for a tag the worker's
	// routingWeights already set by hand.
	OverrideManual bool
	// IncludeUnexploredTags also lists the worker's tags learning has no
	// outcome for yet.
	IncludeUnexploredTags bool
}

// ApplyWeightsParams says whose learned weights to write; WorkerIDs nil
// means every worker.
type ApplyWeightsParams struct {
	WorkerIDs             []string `json:"workerIds,omitempty"` // at most 100
	OverrideManual        bool     `json:"overrideManual,omitempty"`
	IncludeUnexploredTags bool     `json:"includeUnexploredTags,omitempty"`
}

// RevertedWeights is the answer of RevertWeights: the workers whose
// routing weights were restored.
type RevertedWeights struct {
	Reverted []string `json:"reverted"`
	Count    int      `json:"count"`
}

// FeedbackItem is one entry of FeedbackBulk: a reward, signals, or both.
type FeedbackItem struct {
	TaskID  string             `json:"taskId"`
	Signals map[string]float64 `json:"signals,omitempty"`
	Reward  *float64           `json:"reward,omitempty"`
}

// FeedbackResult is the outcome of one FeedbackItem; Error is the error
// code when OK is false.
type FeedbackResult struct {
	TaskID string `json:"taskId"`
	OK     bool   `json:"ok"`
	Error  string `json:"error"` // "" when null or absent
}

// maxLearningBatch is the most workers or feedback items one call may name.
const maxLearningBatch = 100

func checkWorkerBatch(ids []string) error {
	if err := checkCount("workerIDs", len(ids), 0, maxLearningBatch); err != nil {
		return err
	}
	for i, id := range ids {
		if err := checkLen("workerIDs["+strconv.Itoa(i)+"]", id, 1, 128); err != nil {
			return err
		}
	}
	return nil
}

// PreviewWeights shows the routing weights learning would write, without
// writing them.
//
// API: learning.previewWeights, GET /learning/weights/preview
func (s *LearningService) PreviewWeights(ctx context.Context, p PreviewWeightsParams, opts ...RequestOption) ([]LearnedWeights, error) {
	q := url.Values{}
	if p.WorkerID != "" {
		if err := s.c.admit(checkLen("PreviewWeightsParams.WorkerID", p.WorkerID, 1, 128), opts); err != nil {
			return nil, err
		}
		q.Set("workerId", p.WorkerID)
	}
	if p.OverrideManual {
		q.Set("overrideManual", "true")
	}
	if p.IncludeUnexploredTags {
		q.Set("includeUnexploredTags", "true")
	}
	var out struct {
		Workers []LearnedWeights `json:"workers"`
	}
	if err := s.c.call(ctx, "GET", "/learning/weights/preview", q, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Workers, nil
}

// ApplyWeights writes the learned weights into the workers' routing
// weights and answers them by worker id, then tag. The previous weights
// are kept so that RevertWeights can restore them.
//
// API: learning.applyWeights, POST /learning/weights/apply
func (s *LearningService) ApplyWeights(ctx context.Context, p ApplyWeightsParams, opts ...RequestOption) (map[string]map[string]float64, error) {
	if err := s.c.admit(checkWorkerBatch(p.WorkerIDs), opts); err != nil {
		return nil, err
	}
	var out struct {
		Applied map[string]map[string]float64 `json:"applied"`
	}
	if err := s.c.call(ctx, "POST", "/learning/weights/apply", nil, p, &out, opts); err != nil {
		return nil, err
	}
	return out.Applied, nil
}

// RevertWeights restores the routing weights the workers had before
// learned weights were applied; nil means every worker. Workers never
// applied to are absent from the answer.
//
// API: learning.revertWeights, POST /learning/weights/revert
func (s *LearningService) RevertWeights(ctx context.Context, workerIDs []string, opts ...RequestOption) (*RevertedWeights, error) {
	if err := s.c.admit(checkWorkerBatch(workerIDs), opts); err != nil {
		return nil, err
	}
	body := struct {
		WorkerIDs []string `json:"workerIds,omitempty"`
	}{workerIDs}
	out := new(RevertedWeights)
	if err := s.c.call(ctx, "POST", "/learning/weights/revert", nil, body, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Feedback reports named outcome signals for a task, such as a customer
// rating; learning credits them to the task's worker.
//
// API: learning.feedback, POST /tasks/{taskId}/feedback
func (s *LearningService) Feedback(ctx context.Context, taskID string, signals map[string]float64, opts ...RequestOption) error {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return err
	}
	if signals == nil {
		signals = map[string]float64{} // the member is required; no signals record nothing
	}
	body := struct {
		Signals map[string]float64 `json:"signals"`
	}{signals}
	return s.c.call(ctx, "POST", escapePath("/tasks/", taskID)+"/feedback", nil, body, new(json.RawMessage), opts)
}

// Reward credits a reward for a task to the task's worker, as an accept
// (+1) or a completion (+2) would.
//
// API: learning.reward, POST /tasks/{taskId}/reward
func (s *LearningService) Reward(ctx context.Context, taskID string, reward float64, opts ...RequestOption) error {
	if err := s.c.admit(checkID("taskID", taskID), opts); err != nil {
		return err
	}
	body := struct {
		Reward float64 `json:"reward"`
	}{reward}
	return s.c.call(ctx, "POST", escapePath("/tasks/", taskID)+"/reward", nil, body, new(json.RawMessage), opts)
}

// FeedbackBulk reports feedback for up to 100 tasks. Partial success is
// normal: read each result's OK.
//
// API: learning.feedbackBulk, POST /learning/feedback
func (s *LearningService) FeedbackBulk(ctx context.Context, items []FeedbackItem, opts ...RequestOption) ([]FeedbackResult, error) {
	if err := s.c.admit(checkCount("items", len(items), 0, maxLearningBatch), opts); err != nil {
		return nil, err
	}
	for i, it := range items {
		if err := s.c.admit(checkLen("items["+strconv.Itoa(i)+"].TaskID", it.TaskID, 1, 128), opts); err != nil {
			return nil, err
		}
	}
	if items == nil {
		items = []FeedbackItem{}
	}
	body := struct {
		Items []FeedbackItem `json:"items"`
	}{items}
	var out struct {
		Results []FeedbackResult `json:"results"`
	}
	if err := s.c.call(ctx, "POST", "/learning/feedback", nil, body, &out, opts); err != nil {
		return nil, err
	}
	return out.Results, nil
}

// UnmarshalJSON reads a null error as "".
func (r *FeedbackResult) UnmarshalJSON(b []byte) error {
	type plain FeedbackResult
	w := struct {
		*plain
		Error *string `json:"error"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	r.Error = nullToEmpty(w.Error)
	return nil
}

// Reset forgets everything learning has learned: the per worker and tag
// means and the reward totals. Weights already applied stay.
//
// API: learning.reset, POST /learning/reset
func (s *LearningService) Reset(ctx context.Context, opts ...RequestOption) error {
	return s.c.call(ctx, "POST", "/learning/reset", nil, nil, new(json.RawMessage), opts)
}
