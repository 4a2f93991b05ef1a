package mockserver

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/internal/match"
)

type decisionList struct {
	Decisions []wireDecision `json:"decisions"`
}

// prepListDecisions is GET /decisions, newest first.
func prepListDecisions(r *request) (op, *apiError) {
	q := match.DecisionQuery{TaskID: r.query.Get("taskId"), WorkerID: r.query.Get("workerId"), Limit: 50}
	if q.TaskID != "" {
		if err := checkID("querystring/taskId", q.TaskID); err != nil {
			return nil, err
		}
	}
	if q.WorkerID != "" {
		if err := checkID("querystring/workerId", q.WorkerID); err != nil {
			return nil, err
		}
	}
	if l := r.query.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil {
			return nil, validationf("querystring/limit must be integer")
		}
		if n < 1 || n > 100 {
			return nil, validationf("querystring/limit must be >= 1 and <= 100")
		}
		q.Limit = n
	}
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		ds := ws.engine.Decisions(q)
		out := decisionList{Decisions: make([]wireDecision, 0, len(ds))}
		for _, d := range ds {
			out.Decisions = append(out.Decisions, decisionJSON(d))
		}
		return http.StatusOK, out, nil
	}, nil
}

type learningStatusAnswer struct {
	Enabled     bool `json:"enabled"`
	ShadowMode  bool `json:"shadowMode"`
	AutoWeights bool `json:"autoWeights"`
	// SignalWeights weighs each feedback signal in the reward: the mock weighs every signal
	// 1 and lists those credited so far ({} before any).
	SignalWeights map[string]float64 `json:"signalWeights"`
	Rewards       *wireRewards       `json:"rewards,omitempty"`
	Stats         *wireLearnStats    `json:"stats"`
	ModelSize     int                `json:"modelSize"`
}

// learningOffAnswer is the platform's learning.status for a workspace whose learning is
// off: its contract case learning_status_before_any_rewards, member for member.
type learningOffAnswer struct {
	Enabled     bool            `json:"enabled"`
	ShadowMode  bool            `json:"shadowMode"`
	AutoWeights bool            `json:"autoWeights"`
	Stats       *wireLearnStats `json:"stats"`
	ModelSize   int             `json:"modelSize"`
}

// wireRewards: the platform reports accept, complete and reject; Expiry is the every-tag
// rules' own.
type wireRewards struct {
	Accept   float64  `json:"accept"`
	Complete float64  `json:"complete"`
	Reject   float64  `json:"reject"`
	Expiry   *float64 `json:"expiry,omitempty"`
}

// wireLearnStats is the platform's LearningStats, computed from what happened: decisions
// made, rewards recorded, their sum and their mean (0 before the first reward).
type wireLearnStats struct {
	Decisions     int     `json:"decisions"`
	Rewards       int     `json:"rewards"`
	TotalReward   float64 `json:"totalReward"`
	AverageReward float64 `json:"averageReward"`
}

// prepLearningStatus is GET /learning/status. It reports the learning that ranks: under the
// platform rules the engine's (off unless MatcherConfig.LearningRanks), under the every-tag
// rules the per-tag factors (docs/contract.md, "Learning under the platform rules").
func prepLearningStatus(r *request) (op, *apiError) {
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		st := ws.engine.LearningStatus()
		if st.Rules == match.RulesPlatform {
			return http.StatusOK, platformLearningStatus(ws, st.Model), nil
		}
		out := learningStatusAnswer{Enabled: st.Enabled, ShadowMode: st.ShadowMode, AutoWeights: st.AutoWeights,
			ModelSize: st.ModelSize, SignalWeights: creditedSignals(ws)}
		if st.Enabled {
			expiry := st.Rewards.Expiry
			out.Rewards = &wireRewards{Accept: st.Rewards.Accept, Complete: st.Rewards.Complete, Reject: st.Rewards.Reject, Expiry: &expiry}
		}
		if st.Stats != nil {
			out.Stats = learnStats(st.Stats.Decisions, st.Stats.Outcomes, st.Stats.TotalReward)
		}
		return http.StatusOK, out, nil
	}, nil
}

// platformLearningStatus is learning.status under the platform rules: the platform's own
// answer while the engine's learning is off (m nil), else the engine's model.
func platformLearningStatus(ws *workspace, m *match.LearnedModelStatus) any {
	if m == nil {
		return learningOffAnswer{ShadowMode: true}
	}
	return learningStatusAnswer{Enabled: true, ShadowMode: m.Shadow, SignalWeights: creditedSignals(ws),
		Rewards:   &wireRewards{Accept: match.RewardAccept, Complete: match.RewardComplete, Reject: match.RewardReject},
		Stats:     learnStats(m.Decisions, m.Outcomes, m.TotalReward),
		ModelSize: m.Weights}
}

// creditedSignals weighs every feedback signal credited so far 1 ({} before any).
func creditedSignals(ws *workspace) map[string]float64 {
	out := map[string]float64{}
	for k := range ws.signals {
		out[k] = 1
	}
	return out
}

// learnStats is the platform's LearningStats; the mean is 0 before the first reward.
func learnStats(decisions, rewards int, total float64) *wireLearnStats {
	out := &wireLearnStats{Decisions: decisions, Rewards: rewards, TotalReward: total}
	if rewards > 0 {
		out.AverageReward = total / float64(rewards)
	}
	return out
}

type workerStatsAnswer struct {
	WorkerID string         `json:"workerId"`
	Skills   []wireTagStats `json:"skills"`
}

type wireTagStats struct {
	Tag           string    `json:"tag"`
	Count         int       `json:"count"`
	MeanReward    float64   `json:"meanReward"`
	CurrentWeight *float64  `json:"currentWeight"`
	LearnedWeight *float64  `json:"learnedWeight"`
	Skill         *tagSkill `json:"skill"` // null unless the tag is "skill:<id>" of a catalogue skill
}

type tagSkill struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// skillOfTag is the catalogue skill a learning tag "skill:<id>" stands for, nil for any
// other tag.
func skillOfTag(cat *skillCatalog, tag string) *tagSkill {
	id, ok := strings.CutPrefix(tag, "skill:")
	if !ok {
		return nil
	}
	if i := cat.byID(id); i >= 0 {
		return &tagSkill{ID: id, Name: cat.skills[i].Name}
	}
	return nil
}

// prepWorkerStats is GET /learning/workers/{id}.
func prepWorkerStats(r *request) (op, *apiError) {
	id := r.params[0]
	return func(ws *workspace, _ time.Time) (int, any, *apiError) {
		stats, err := ws.engine.WorkerStats(id)
		if err != nil {
			return 0, nil, matchError(err)
		}
		out := workerStatsAnswer{WorkerID: id, Skills: make([]wireTagStats, 0, len(stats))}
		for _, s := range stats {
			out.Skills = append(out.Skills, wireTagStats{Tag: s.Tag, Count: s.Count, MeanReward: s.MeanReward,
				CurrentWeight: s.CurrentWeight, LearnedWeight: s.LearnedWeight, Skill: skillOfTag(&ws.skillCat, s.Tag)})
		}
		return http.StatusOK, out, nil
	}, nil
}
