// Package conformance plays the same seeded scenarios through the platform's published
// matching engine (assignment-user-matcher, driven by conformance/engine-player.mjs on a
// private Redis) and through the reference matcher in internal/match, and reports the first
// decision on which they differ, shrunk to the smallest scenario that still differs.
//
// Only the runner (Runner, cmd/conform) needs Node and redis-server; the scenario model, the
// generator, the Go player, the comparator and the shrinker are plain Go and are tested by
// `go test ./...` without either.
package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Fairness names the engine's bulk-matching policies (its `fairness` option).
const (
	// FairnessFirstCome is the engine's default path: every user computes and claims its
	// candidates concurrently; the first claim of a task wins.
	FairnessFirstCome = "first-come"
	// FairnessBestMatch sorts every user's candidates into one list by rank and awards in
	// that order.
	FairnessBestMatch = "best-match"
	// FairnessBalanced is best-match with a load penalty of 5% of the pass's median rank per
	// held offer and a grant cap per window.
	FairnessBalanced = "balanced"
	// FairnessSpreadWork is balanced with a penalty of 50% of the median.
	FairnessSpreadWork = "spread-work"
)

// PlatformFairness is the engine fairness the families other than the fairness-* ones run
// with: the "equivalent settings" (best-match, learning off, 60 s offers, backlog 9).
const PlatformFairness = FairnessBestMatch

// Options are the engine options a scenario runs with. Zero fields take the defaults noted.
type Options struct {
	// Fairness is one of the Fairness* constants; "" means PlatformFairness.
	Fairness string `json:"fairness,omitempty"`
	// Backlog is the default cap of held offers per worker (maxUserBacklogSize); 0 means 9.
	Backlog int `json:"backlog,omitempty"`
	// OfferMs is how long an offer waits for an answer (matchExpirationMs); 0 means 60,000.
	OfferMs int64 `json:"offerMs,omitempty"`
	// Batch is how many candidate tasks the engine reads per worker (relevantBatchSize);
	// 0 means 50.
	Batch int `json:"batch,omitempty"`
	// DefaultMatching turns on the engine's `default` tag (enableDefaultMatching).
	DefaultMatching bool `json:"defaultMatching,omitempty"`
	// SweepMs is the period of the engine's maintenance sweep, which expires offers
	// (startMaintenance's intervalMs); 0 means 5,000, the engine's default and the mock
	// server's.
	SweepMs int64 `json:"sweepMs,omitempty"`
	// Learning turns the engine's learning on (enableLearning, with the platform's rewards:
	// accept 1, complete 2, reject -1) and the reference matcher's learning ranking
	// (match.LearningConfig.Rank). Exploration is the chance per candidate of a random boost
	// (learningExplorationRate; 0: never), drawn on each side from LearningSeed: the engine
	// from mulberry32(LearningSeed) (seeds below 2^32, its state), the reference matcher
	// from match.Config.Seed. The two sources differ (and the engine reads its source for
	// decision ids too), so only scenarios with Exploration 0 are compared with the engine;
	// the others are checked for being reproducible per seed (Explores).
	Learning     bool    `json:"learning,omitempty"`
	LearningSeed uint64  `json:"learningSeed,omitempty"`
	Exploration  float64 `json:"exploration,omitempty"`
}

// Explores reports whether the options draw random exploration boosts, which the engine and
// the reference matcher draw from different sources: such a scenario is not compared side
// with side, only each side with itself (CheckReproducible).
func (o Options) Explores() bool { return o.Learning && o.Exploration > 0 }

// Normalized fills the defaults in, so both players and the printed scenario agree on them.
func (o Options) Normalized() Options {
	if o.Fairness == "" {
		o.Fairness = PlatformFairness
	}
	if o.Backlog <= 0 {
		o.Backlog = 9
	}
	if o.OfferMs <= 0 {
		o.OfferMs = 60_000
	}
	if o.Batch <= 0 {
		o.Batch = 50
	}
	if o.SweepMs <= 0 {
		o.SweepMs = 5_000
	}
	return o
}

// Step operations.
const (
	OpWorker   = "worker"   // add a worker, or replace an existing one's tags, weights and backlog
	OpTask     = "task"     // create a task
	OpAccept   = "accept"   // the Pick-th live offer (sorted task>worker) is accepted
	OpReject   = "reject"   // the Pick-th live offer is rejected
	OpComplete = "complete" // the Pick-th accepted task (sorted task>worker) is completed
	OpPause    = "pause"    // the worker stops receiving offers and keeps what it holds
	OpResume   = "resume"   // the worker receives offers again
	OpRemove   = "remove"   // the worker leaves
	OpAdvance  = "advance"  // time moves Ms forward; the maintenance sweeps on the way run
)

// Step is one command. After every command that reaches the engine (a pick that finds
// nothing sends none, and a refused one matches nothing) every player runs one match pass;
// an advance runs one after each maintenance sweep that expired offers.
type Step struct {
	Op string `json:"op"`
	// ID names the worker (worker, pause, resume, remove) or the task (task).
	ID         string             `json:"id,omitempty"`
	Tags       []string           `json:"tags,omitempty"`
	Weights    map[string]float64 `json:"weights,omitempty"`
	Backlog    *int               `json:"backlog,omitempty"`
	Priority   float64            `json:"priority,omitempty"`
	Vetoed     []string           `json:"vetoed,omitempty"`
	Thresholds map[string]float64 `json:"thresholds,omitempty"`
	// Pick selects among the live offers or accepted tasks, modulo their number, so a step
	// means the same on both sides while their states agree (and "none" when there is none).
	Pick int   `json:"pick,omitempty"`
	Ms   int64 `json:"ms,omitempty"`
}

// Scenario is a seeded sequence of steps with the engine options it runs under.
type Scenario struct {
	Family  string  `json:"family"`
	Seed    uint64  `json:"seed"`
	Index   int     `json:"index"`
	Options Options `json:"options"`
	Steps   []Step  `json:"steps"`
}

// Clone returns a deep copy, so the shrinker can edit candidates freely.
func (s Scenario) Clone() Scenario {
	c := s
	c.Steps = make([]Step, len(s.Steps))
	for i, st := range s.Steps {
		c.Steps[i] = st.clone()
	}
	return c
}

func (st Step) clone() Step {
	c := st
	c.Tags = slices.Clone(st.Tags)
	c.Vetoed = slices.Clone(st.Vetoed)
	if st.Weights != nil {
		c.Weights = make(map[string]float64, len(st.Weights))
		for k, v := range st.Weights {
			c.Weights[k] = v
		}
	}
	if st.Thresholds != nil {
		c.Thresholds = make(map[string]float64, len(st.Thresholds))
		for k, v := range st.Thresholds {
			c.Thresholds[k] = v
		}
	}
	if st.Backlog != nil {
		b := *st.Backlog
		c.Backlog = &b
	}
	return c
}

// Name identifies the scenario in reports: family/seed/index.
func (s Scenario) Name() string {
	return s.Family + "/" + strconv.FormatUint(s.Seed, 10) + "/" + strconv.Itoa(s.Index)
}

// JSON is the scenario on one line, as cmd/conform -replay reads it back.
func (s Scenario) JSON() string {
	b, err := json.Marshal(s)
	if err != nil { // a Scenario holds only strings, numbers and maps of them
		panic(err)
	}
	return string(b)
}

// String prints the scenario one numbered step a line, the form a shrunk failure is shown in.
func (s Scenario) String() string {
	o := s.Options.Normalized()
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s (fairness %s, backlog %d, offers %d ms, batch %d, default tag %v",
		s.Name(), o.Fairness, o.Backlog, o.OfferMs, o.Batch, o.DefaultMatching)
	if o.Learning {
		fmt.Fprintf(&b, ", learning, exploration %g, seed %d", o.Exploration, o.LearningSeed)
	}
	b.WriteString(")\n")
	for i, st := range s.Steps {
		fmt.Fprintf(&b, "  %3d %s\n", i+1, st)
	}
	return b.String()
}

func (st Step) String() string {
	var parts []string
	switch st.Op {
	case OpWorker:
		parts = append(parts, "worker "+st.ID)
		if len(st.Tags) > 0 {
			parts = append(parts, "tags="+strings.Join(st.Tags, ","))
		}
		if st.Weights != nil {
			parts = append(parts, "weights="+formatMap(st.Weights))
		}
		if st.Backlog != nil {
			parts = append(parts, "backlog="+strconv.Itoa(*st.Backlog))
		}
	case OpTask:
		parts = append(parts, "task "+st.ID, "tags="+strings.Join(st.Tags, ","),
			"priority="+strconv.FormatFloat(st.Priority, 'g', -1, 64))
		if len(st.Vetoed) > 0 {
			parts = append(parts, "vetoed="+strings.Join(st.Vetoed, ","))
		}
		if st.Thresholds != nil {
			parts = append(parts, "thresholds="+formatMap(st.Thresholds))
		}
	case OpAccept, OpReject, OpComplete:
		parts = append(parts, st.Op, "pick="+strconv.Itoa(st.Pick))
	case OpAdvance:
		parts = append(parts, "advance", strconv.FormatInt(st.Ms, 10)+"ms")
	default:
		parts = append(parts, st.Op, st.ID)
	}
	return strings.Join(parts, " ")
}

func formatMap(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.FormatFloat(m[k], 'g', -1, 64)
	}
	return "{" + strings.Join(parts, " ") + "}"
}
