package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tieScenario is the smallest tie of docs/contract.md, "Tests that hold on the platform":
// two workers whose one weight matches one tag each of the task, equally.
func tieScenario(h *harness, w2Weight float64) {
	on := ptr(true)
	h.workerIn(WorkerInput{ID: "w001", Tags: []string{"g3"}, RoutingWeights: map[string]float64{"g3": 5}, Available: on})
	h.workerIn(WorkerInput{ID: "w002", Tags: []string{"g7"}, RoutingWeights: map[string]float64{"g7": w2Weight}, Available: on})
	h.taskIn(TaskInput{ID: "t1", Tags: []string{"g3", "g7"}, Priority: 1})
}

// TestPlatformTiesDisclosed: a decision names the workers that ranked equal with the
// chosen one (Decision.Ties, Engine.DecisionTies), and a strict choice names none.
func TestPlatformTiesDisclosed(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		play   func(h *harness)
		chosen string
		ties   []string
	}{
		{
			name:   "equal weights tie",
			cfg:    Config{Rules: RulesPlatform},
			play:   func(h *harness) { tieScenario(h, 5) },
			chosen: "w001",
			ties:   []string{"w001", "w002"},
		},
		{
			name:   "distinct weights are strict",
			cfg:    Config{Rules: RulesPlatform},
			play:   func(h *harness) { tieScenario(h, 4) },
			chosen: "w001",
		},
		{
			name: "three equal workers, tags only",
			cfg:  Config{Rules: RulesPlatform},
			play: func(h *harness) {
				h.worker("w1", "a")
				h.worker("w2", "a")
				h.worker("w3", "a", "b") // score 0.5: lower
				h.worker("w4", "a")
				h.task("t1", "a")
			},
			chosen: "w1",
			ties:   []string{"w1", "w2", "w4"},
		},
		{
			name: "first-come: the first claim wins",
			cfg:  Config{Rules: RulesPlatform, Mode: ModeFirstCome},
			play: func(h *harness) {
				h.worker("w1", "a")
				h.worker("w2", "a")
				h.task("t1", "a")
			},
			chosen: "w1",
			ties:   []string{"w1", "w2"},
		},
		{
			// w2's pattern tag claims a round later: it is not tied with w1 and w3, which
			// the pass meets on either side of it.
			name: "first-come: a tie is within one claim round",
			cfg:  Config{Rules: RulesPlatform, Mode: ModeFirstCome},
			play: func(h *harness) {
				h.worker("w1", "ab")
				h.worker("w2", "a*")
				h.worker("w3", "ab")
				h.task("t1", "ab")
			},
			chosen: "w1",
			ties:   []string{"w1", "w3"},
		},
		{
			name: "balanced with a load penalty orders equal pairs itself",
			cfg:  Config{Rules: RulesPlatform, Mode: ModeSpreadWork},
			play: func(h *harness) {
				h.worker("w1", "a")
				h.worker("w2", "a")
				h.task("t1", "a")
			},
			chosen: "w1", // the engine's own order ends with the worker id
		},
		{
			name: "spread-work orders by worker id whatever the tie order",
			cfg:  Config{Rules: RulesPlatform, Mode: ModeSpreadWork, ShuffleTies: true, Seed: 3},
			play: func(h *harness) {
				h.worker("w1", "a")
				h.worker("w2", "a")
				h.task("t1", "a")
			},
			chosen: "w1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.cfg)
			tc.play(h)
			if len(h.decisions) != 1 {
				t.Fatalf("decisions: got %d, want 1", len(h.decisions))
			}
			d := h.decisions[0]
			if d.WorkerID != tc.chosen {
				t.Errorf("chosen: got %s, want %s", d.WorkerID, tc.chosen)
			}
			if diff := cmp.Diff(tc.ties, d.Ties); diff != "" {
				t.Errorf("Decision.Ties (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ties, h.e.DecisionTies(d.ID)); diff != "" {
				t.Errorf("DecisionTies (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlatformShuffleTies: Config.ShuffleTies breaks the tie by a seeded order: the same
// seed chooses alike, different seeds choose each worker, and the tie set is the same.
func TestPlatformShuffleTies(t *testing.T) {
	picks := map[string]int{}
	for seed := uint64(0); seed < 16; seed++ {
		var chosen [2]string
		for i := range chosen {
			h := newHarness(t, Config{Rules: RulesPlatform, ShuffleTies: true, Seed: seed})
			tieScenario(h, 5)
			d := h.decisions[0]
			chosen[i] = d.WorkerID
			if diff := cmp.Diff([]string{d.WorkerID, other(d.WorkerID)}, d.Ties); diff != "" {
				t.Errorf("seed %d: Ties (-want +got):\n%s", seed, diff)
			}
		}
		if chosen[0] != chosen[1] {
			t.Errorf("seed %d chose %s, then %s", seed, chosen[0], chosen[1])
		}
		picks[chosen[0]]++
	}
	if picks["w001"] == 0 || picks["w002"] == 0 {
		t.Errorf("16 seeds chose %v; want each worker at least once", picks)
	}
	h := newHarness(t, Config{Rules: RulesPlatform})
	tieScenario(h, 5)
	if got := h.decisions[0].WorkerID; got != "w001" {
		t.Errorf("registration order chose %s, want w001", got)
	}
}

func other(id string) string {
	if id == "w001" {
		return "w002"
	}
	return "w001"
}

// TestPlatformTiesDisclosedForEachTask: when one pass meets several tasks the same workers
// could take at the same rank, each decision names its own tie, wherever the pass's one
// list puts the pairs of that task (here each worker's two pairs sit side by side).
func TestPlatformTiesDisclosedForEachTask(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform})
	h.worker("w1", "a")
	h.worker("w2", "a")
	at := h.now.Add(time.Minute)
	h.taskIn(TaskInput{ID: "t1", Tags: []string{"a"}, Clocks: &Clocks{NotBefore: at}})
	h.taskIn(TaskInput{ID: "t2", Tags: []string{"a"}, Clocks: &Clocks{NotBefore: at}})
	h.advance(time.Minute) // both queued at once: one pass meets them together
	type line struct {
		Task, Worker string
		Ties         []string
	}
	var got []line
	for _, d := range h.decisions {
		got = append(got, line{Task: d.TaskID, Worker: d.WorkerID, Ties: d.Ties})
	}
	want := []line{{Task: "t1", Worker: "w1", Ties: []string{"w1", "w2"}}, {Task: "t2", Worker: "w1", Ties: []string{"w1", "w2"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}
