package match

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The balanced and spread-work rules of the platform (docs/contract.md, "How the platform
// matches"), each test seen failing with its rule broken by hand, as in
// platform_guard_test.go.

// Rule: balanced arbitration orders pairs by load-lowered rank, then the lower load, then
// the task id, then the worker id (the engine's arbitrateFair heap).
func TestPlatformBalancedTieBreaks(t *testing.T) {
	on := ptr(true)
	tests := []struct {
		name string
		play func(h *harness)
		want map[string]string
	}{
		{
			// w1 holds t0: 41 − 2 (5% of the median 40, once) ranks equal to w2's 39.
			name: "equal rank: the less loaded worker wins",
			play: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", RoutingWeights: map[string]float64{"a": 41}, Available: on})
				h.task("t0", "a")
				h.workerIn(WorkerInput{ID: "w2", RoutingWeights: map[string]float64{"a": 39}, Available: on})
				h.task("t1", "a")
			},
			want: map[string]string{"t0": "pending:w1", "t1": "pending:w2"},
		},
		{
			name: "equal rank and load: the lower task id wins a worker's last slot",
			play: func(h *harness) {
				h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(1)})
				h.task("tz", "a")
				h.task("ta", "a")
				h.available("w1", true)
			},
			want: map[string]string{"ta": "pending:w1", "tz": "queued"},
		},
		{
			name: "equal rank, load and task: the lower worker id wins, not the first registered",
			play: func(h *harness) {
				h.worker("w2", "a")
				h.worker("w1", "a")
				h.task("t1", "a")
			},
			want: map[string]string{"t1": "pending:w1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform, Mode: ModeBalanced})
			tc.play(h)
			if diff := cmp.Diff(tc.want, h.state()); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
		})
	}
}

// Rule: balanced grants per hour are capped at twice the mean grants of the available
// workers (rounded up), never below the default backlog cap; grants older than an hour no
// longer count. w1 holds one grant, w2 some; then w1 may take what the cap leaves it of
// five tasks in one pass (offers last 3 h here, so none expires and is granted again).
func TestPlatformBalancedGrantCapIsTwiceTheMean(t *testing.T) {
	tests := []struct {
		name       string
		defaultCap int
		w2Grants   int
		wait       time.Duration
		away       string // "unavailable", "break": a w3 with no grant, not part of the mean
		want       int    // offers w1 holds after the pass
	}{
		// 1 + 1 grants: the cap is 2, w1 may take one more.
		{name: "twice the mean", defaultCap: 1, w2Grants: 1, want: 2},
		// 1 + 3 grants: the cap is 4, w1 may take three more.
		{name: "twice the mean, uneven", defaultCap: 1, w2Grants: 3, want: 4},
		{name: "an unavailable worker is not part of the mean", defaultCap: 1, w2Grants: 3, away: "unavailable", want: 4},
		{name: "a worker on a break is not part of the mean", defaultCap: 1, w2Grants: 3, away: "break", want: 4},
		// The default backlog cap 3 is above twice the mean (2): w1 may take two more.
		{name: "never below the default backlog cap", defaultCap: 3, w2Grants: 1, want: 3},
		// An hour later no grant counts: the cap is the default 1.
		{name: "grants older than an hour do not count", defaultCap: 1, w2Grants: 3, wait: time.Hour, want: 2},
		// Each command moves the clock 1 s: w1's grant is at 3 s, w2's at 4-6 s, the pass at
		// 13 s + wait = 1 h + 4 s. w1's grant is out, w2's first is exactly an hour old and
		// counts (the engine counts from the window's start inclusive): the cap is 3.
		{name: "a grant exactly an hour old counts", defaultCap: 1, w2Grants: 3, wait: time.Hour - 9*time.Second, want: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform, Mode: ModeBalanced, DefaultMaxBacklog: tc.defaultCap, OfferTimeout: 3 * time.Hour})
			h.workerIn(WorkerInput{ID: "w1", Tags: []string{"a"}, MaxBacklogSize: ptr(100), Available: ptr(true)})
			h.workerIn(WorkerInput{ID: "w2", Tags: []string{"b"}, MaxBacklogSize: ptr(100), Available: ptr(true)})
			switch tc.away {
			case "unavailable":
				h.workerIn(WorkerInput{ID: "w3", Tags: []string{"c"}, Available: ptr(false)})
			case "break":
				h.workerIn(WorkerInput{ID: "w3", Tags: []string{"c"}, Available: ptr(true)})
				h.ok(h.e.StartBreak(h.step(), "w3", "lunch"))
			}
			h.task("t0", "a")
			for i := range tc.w2Grants {
				h.task("u"+strconv.Itoa(i), "b")
			}
			h.available("w1", false)
			for i := 1; i <= 5; i++ {
				h.task("t"+strconv.Itoa(i), "a")
			}
			h.advance(tc.wait)
			h.available("w1", true)
			held := 0
			for _, s := range h.state() {
				if s == "pending:w1" {
					held++
				}
			}
			if diff := cmp.Diff(tc.want, held); diff != "" {
				t.Errorf("offers held by w1 (-want +got):\n%s", diff)
			}
		})
	}
}

// Rule: within one balanced pass a worker's later candidates are ranked again at the load
// its awards gave it: w1 (10, two free slots) takes t1, then ranks t2 at 10 minus the
// penalty and yields it to w2 (9.9), where a rank kept from before the award would give w1
// both.
func TestPlatformBalancedReranksAfterEachAward(t *testing.T) {
	for _, mode := range []Mode{ModeBalanced, ModeSpreadWork} {
		t.Run(string(mode), func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform, Mode: mode})
			w1 := WorkerInput{ID: "w1", RoutingWeights: map[string]float64{"a": 10}, MaxBacklogSize: ptr(1), Available: ptr(true)}
			h.workerIn(w1)
			h.task("t1", "a")
			h.workerIn(WorkerInput{ID: "w2", RoutingWeights: map[string]float64{"a": 9.9}, MaxBacklogSize: ptr(1), Available: ptr(true)})
			h.task("t2", "a")
			w1.MaxBacklogSize = ptr(2)
			h.workerIn(w1)
			// Both offers expire together; one pass re-matches t1 and t2 for w1 and w2.
			h.advance(2 * time.Minute)
			want := map[string]string{"t1": "pending:w1", "t2": "pending:w2"}
			if diff := cmp.Diff(want, h.state()); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
		})
	}
}

// Rule: the load penalty per offer held is 5% (balanced) or 50% (spread-work) of the
// median priority + score of the pass's candidates. w1 holds one offer; both want t1.
func TestPlatformLoadPenaltyIsAShareOfTheMedian(t *testing.T) {
	tests := []struct {
		name       string
		mode       Mode
		w1, w2     float64 // their weights for tag a: t1's priority + score for each
		wantHolder string
	}{
		// Median 40, penalty 2: 41 − 2 = 39 ties with w2, and the lower load wins.
		{name: "balanced: a lead of exactly the penalty yields", mode: ModeBalanced, w1: 41, w2: 39, wantHolder: "w2"},
		// Median 40.05, penalty 2.0025: 41.1 − 2.0025 > 39.
		{name: "balanced: a lead above the penalty holds", mode: ModeBalanced, w1: 41.1, w2: 39, wantHolder: "w1"},
		// Median 4, penalty 2: 5 − 2 = 3 ties with w2.
		{name: "spread-work: a lead of exactly the penalty yields", mode: ModeSpreadWork, w1: 5, w2: 3, wantHolder: "w2"},
		// Median 4.01, penalty 2.005: 5.02 − 2.005 > 3.
		{name: "spread-work: a lead above the penalty holds", mode: ModeSpreadWork, w1: 5.02, w2: 3, wantHolder: "w1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Rules: RulesPlatform, Mode: tc.mode})
			h.workerIn(WorkerInput{ID: "w1", RoutingWeights: map[string]float64{"a": tc.w1}, Available: ptr(true)})
			h.task("t0", "a")
			h.workerIn(WorkerInput{ID: "w2", RoutingWeights: map[string]float64{"a": tc.w2}, Available: ptr(true)})
			h.task("t1", "a")
			want := map[string]string{"t0": "pending:w1", "t1": "pending:" + tc.wantHolder}
			if diff := cmp.Diff(want, h.state()); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
		})
	}
}
