package taskrouting

import (
	"context"
	"encoding/json"
)

// LearningStatus is the answer of GET /learning/status.
type LearningStatus struct {
	Enabled     bool `json:"enabled"`
	ShadowMode  bool `json:"shadowMode"`
	AutoWeights bool `json:"autoWeights"`
	// SignalWeights weighs each feedback signal in the reward.
	SignalWeights map[string]float64 `json:"signalWeights,omitempty"`
	// Rewards is kept as raw JSON: its members are the server's to extend.
	Rewards json.RawMessage `json:"rewards,omitempty"`
	// Stats counts what learning has seen; nil while learning is off (the
	// platform answers Enabled false, ShadowMode true and no Rewards then).
	Stats     *LearningStats `json:"stats"`
	ModelSize int            `json:"modelSize"`
}

// LearningStats counts the decisions and rewards learning has seen.
type LearningStats struct {
	Decisions     int     `json:"decisions"`
	Rewards       int     `json:"rewards"`
	TotalReward   float64 `json:"totalReward"`
	AverageReward float64 `json:"averageReward"`
}

// WorkerLearningStats is the answer of GET /learning/workers/{id}.
type WorkerLearningStats struct {
	WorkerID string       `json:"workerId"`
	Skills   []SkillStats `json:"skills"`
}

// SkillStats is what learning knows about one worker and one tag.
type SkillStats struct {
	Tag           string   `json:"tag"`
	Count         int      `json:"count"`
	MeanReward    float64  `json:"meanReward"`
	CurrentWeight *float64 `json:"currentWeight"` // nil when null
	LearnedWeight *float64 `json:"learnedWeight"` // nil when null
	// Skill describes the catalogue skill the tag stands for, when it
	// stands for one; its members are the server's to extend.
	Skill map[string]any `json:"skill,omitempty"`
}

// LearningService holds the learning read-outs. Use it as Client.Learning.
type LearningService struct{ c *Client }

// Status reports the workspace's learning settings.
//
// API: learning.status, GET /learning/status
func (s *LearningService) Status(ctx context.Context, opts ...RequestOption) (*LearningStatus, error) {
	out := new(LearningStatus)
	if err := s.c.call(ctx, "GET", "/learning/status", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// WorkerStats reports what learning knows about a worker.
//
// API: learning.workerStats, GET /learning/workers/{workerId}
func (s *LearningService) WorkerStats(ctx context.Context, workerID string, opts ...RequestOption) (*WorkerLearningStats, error) {
	if err := s.c.admit(checkID("workerID", workerID), opts); err != nil {
		return nil, err
	}
	out := new(WorkerLearningStats)
	if err := s.c.call(ctx, "GET", escapePath("/learning/workers/", workerID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
