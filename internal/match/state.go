package match

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// State is a readable copy of everything an engine keeps that a later command can observe:
// its clock, its id sequences, its workers with their offers, its tasks and the values
// learning has stored. It is a view, not a way in: an engine is only ever brought to a
// state by commands, so two engines that answer the same State were brought there alike
// (the mock server's snapshots replay commands and compare their State).
//
// Everything is in a fixed order (workers by id, tasks by creation, learned values by
// worker then tag) so that two States compare with ==-like tools such as cmp.Diff.
type State struct {
	Now         time.Time
	EventSeq    uint64 // the last event's sequence number
	DecisionSeq uint64 // the last decision's sequence number
	Workers     []WorkerState
	Tasks       []TaskState
	Learned     []LearnedValue
	// LearnTotals are the workspace-wide sums of the per-tag means (learning.status reports
	// them under RulesEveryTag).
	LearnTotals LearningTotals
}

// WorkerState is one worker of a State.
type WorkerState struct {
	WorkerDetail
	// Offers are the tasks offered to the worker and not yet answered, in offer order.
	Offers []string
}

// TaskState is one task of a State.
type TaskState struct {
	Task
	// Clock is the task's next clock (SLA, schedule, ladder step) time; zero for none.
	Clock time.Time
}

// LearnedValue is the learning kept for one (worker, tag) pair: the decayed sums its mean
// reward is made of, the number of rewards and when the last one came.
type LearnedValue struct {
	WorkerID     string
	Tag          string
	Count        int
	DecayedCount float64 // the decayed weight of every sample
	DecayedSum   float64 // the decayed weighted rewards; the mean is DecayedSum/DecayedCount
	Last         time.Time
}

// State returns a copy of the engine's state. It changes nothing (not even the clock).
// When a new kind of state is added to the engine, it is added here, so the mock server's
// snapshots see it without further changes.
func (e *Engine) State() State {
	loc := e.nowTime.Location()
	st := State{
		Now: e.nowTime, EventSeq: e.seq, DecisionSeq: e.decSeq,
		Workers: []WorkerState{}, Tasks: []TaskState{}, Learned: []LearnedValue{},
		LearnTotals: LearningTotals{Pairs: e.learnPairs, Outcomes: e.learnOuts, Decisions: int(e.decSeq), TotalReward: e.learnSum},
	}
	for _, id := range e.WorkerIDs() {
		w := e.workers[id]
		d, _ := e.Worker(id)
		ws := WorkerState{WorkerDetail: d, Offers: make([]string, 0, len(w.pending))}
		for _, t := range w.pending {
			ws.Offers = append(ws.Offers, t.id)
		}
		st.Workers = append(st.Workers, ws)
		if len(w.stats) > 0 {
			st.LearnTotals.Workers++
		}
		tags := slices.SortedFunc(maps.Keys(w.stats), func(a, b int32) int {
			return strings.Compare(e.tagNames[a], e.tagNames[b])
		})
		for _, tag := range tags {
			s := w.stats[tag]
			lv := LearnedValue{WorkerID: id, Tag: e.tagNames[tag], Count: s.count, DecayedCount: s.sumW, DecayedSum: s.sumWR}
			if s.last != 0 {
				lv.Last = time.Unix(0, s.last).In(loc)
			}
			st.Learned = append(st.Learned, lv)
		}
	}
	for _, t := range e.taskList {
		ts := TaskState{Task: e.taskView(t)}
		if t.cl != nil && t.cl.at != 0 {
			ts.Clock = time.Unix(0, t.cl.at).In(loc)
		}
		st.Tasks = append(st.Tasks, ts)
	}
	return st
}
