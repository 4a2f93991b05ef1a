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
	// Rewards and Stats are kept as raw JSON: their members are the
	// server's to extend, and Stats may be null.
	Rewards   json.RawMessage `json:"rewards,omitempty"`
	Stats     json.RawMessage `json:"stats"`
	ModelSize int             `json:"modelSize"`
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
}

// LearningService holds the learning read-outs. Use it as Client.Learning.
type LearningService struct{ c *Client }

// Status reports the workspace's learning settings: GET /learning/status.
func (s *LearningService) Status(ctx context.Context, opts ...RequestOption) (*LearningStatus, error) {
	out := new(LearningStatus)
	if err := s.c.call(ctx, "GET", "/learning/status", nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// WorkerStats reports what learning knows about a worker:
// GET /learning/workers/{id}.
func (s *LearningService) WorkerStats(ctx context.Context, workerID string, opts ...RequestOption) (*WorkerLearningStats, error) {
	if err := checkID("workerID", workerID); err != nil {
		return nil, err
	}
	out := new(WorkerLearningStats)
	if err := s.c.call(ctx, "GET", escapePath("/learning/workers/", workerID), nil, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
