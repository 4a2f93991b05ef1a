package match

import (
	"math"
	"slices"
	"strings"
)

// stat is a decayed mean reward for one (worker, tag): every sample's weight halves each
// half-life, so between samples the mean does not move and only new outcomes change it.
type stat struct {
	sumW  float64 // decayed weight of all samples
	sumWR float64 // decayed weighted rewards
	count int
	last  int64 // Unix ns of the last sample
}

func (s *stat) mean() float64 {
	if s.sumW == 0 {
		return 0
	}
	return s.sumWR / s.sumW
}

// reward records an outcome for w on every tag of t.
func (e *Engine) reward(w *worker, t *task, r float64) {
	if e.cfg.Learning.Disabled || w == nil || w.removed {
		return
	}
	if w.stats == nil {
		w.stats = make(map[int32]*stat)
	}
	half := float64(e.cfg.Learning.HalfLife)
	for _, id := range t.tags {
		st := w.stats[id]
		if st == nil {
			st = &stat{last: e.now}
			w.stats[id] = st
			e.learnPairs++
		}
		if dt := e.now - st.last; dt > 0 {
			d := math.Exp2(-float64(dt) / half)
			st.sumW *= d
			st.sumWR *= d
		}
		st.sumW++
		st.sumWR += r
		st.count++
		st.last = e.now
	}
	e.learnOuts++
	e.learnSum += r
	e.updateBound(w)
	e.rekey(w)
}

func (e *Engine) forgetStats(w *worker) {
	e.learnPairs -= len(w.stats)
	w.stats = nil
}

// LearningStatus reports learning's configuration and size (GET /learning/status).
func (e *Engine) LearningStatus() LearningStatus {
	l := e.cfg.Learning
	st := LearningStatus{
		Rules:       e.cfg.Rules,
		Enabled:     !l.Disabled,
		ShadowMode:  l.ShadowMode,
		LearnedVeto: l.LearnedVeto,
		HalfLife:    l.HalfLife,
		Rewards:     RewardTable{Accept: RewardAccept, Complete: RewardComplete, Reject: RewardReject, Expiry: RewardExpiry},
		ModelSize:   e.learnPairs,
	}
	if !l.Disabled {
		workers := 0
		for _, w := range e.workers {
			if len(w.stats) > 0 {
				workers++
			}
		}
		st.Stats = &LearningTotals{
			Workers: workers, Pairs: e.learnPairs, Outcomes: e.learnOuts,
			Decisions: int(e.decSeq), TotalReward: e.learnSum,
		}
	}
	if m := e.plat.learn; m != nil {
		st.Model = &LearnedModelStatus{Shadow: m.shadow, Weights: len(m.model), Decisions: int(e.decSeq),
			Outcomes: m.outcomes, TotalReward: m.total}
	}
	return st
}

// WorkerStats reports a worker's learning per tag, sorted by tag
// (GET /learning/workers/{id}).
func (e *Engine) WorkerStats(id string) ([]TagStat, error) {
	w, err := e.lookupWorker(id)
	if err != nil {
		return nil, err
	}
	out := make([]TagStat, 0, len(w.stats))
	for tag, st := range w.stats {
		name := e.tagNames[tag]
		ts := TagStat{Tag: name, Count: st.count, MeanReward: st.mean()}
		weight, explicit, carried := e.weightOf(w, tag, name)
		if explicit {
			v := weight
			ts.CurrentWeight = &v
		}
		if !e.cfg.Learning.Disabled {
			base := weight
			if !carried {
				base = 0
			}
			v := base * (1 + 0.5*math.Tanh(st.mean()/2))
			ts.LearnedWeight = &v
		}
		out = append(out, ts)
	}
	slices.SortFunc(out, func(a, b TagStat) int { return strings.Compare(a.Tag, b.Tag) })
	return out, nil
}
