package match

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEveryTagWorkerOrder pins the worker order of the every-tag rules, mode by mode
// (docs/contract.md, "Order and choice"): best-match ranks by score, then fewer pending
// offers, then longest idle, then id; first-come by longest idle, then higher score, then
// fewer pending offers, then id; balanced by score minus a penalty per pending offer, ties
// as best-match. Each case sets up two workers that differ in the criteria named and
// creates one task both may take: the want is who is offered it, per mode. Ids are chosen
// so that the later criteria would pick the other worker.
func TestEveryTagWorkerOrder(t *testing.T) {
	type step func(e *Engine, at func(int) time.Time) error
	worker := func(tick int, id string, weight float64, tags ...string) step {
		return func(e *Engine, at func(int) time.Time) error {
			_, err := e.UpsertWorker(at(tick), WorkerInput{ID: id, Tags: tags, RoutingWeights: map[string]float64{"a": weight}, Available: ptr(true)})
			return err
		}
	}
	task := func(tick int, id string, tags ...string) step {
		return func(e *Engine, at func(int) time.Time) error {
			_, err := e.CreateTask(at(tick), TaskInput{ID: id, Tags: tags})
			return err
		}
	}
	accept := func(tick int, task, worker string) step {
		return func(e *Engine, at func(int) time.Time) error { _, err := e.Accept(at(tick), task, worker); return err }
	}
	reject := func(tick int, task, worker string) step {
		return func(e *Engine, at func(int) time.Time) error { _, err := e.Reject(at(tick), task, worker); return err }
	}
	cases := []struct {
		name  string
		setup []step
		want  map[Mode]string // who is offered task "t" [a]
	}{
		{
			name:  "higher score against longer idle",
			setup: []step{worker(0, "w1", 1, "a"), worker(1, "w2", 2, "a")},
			want:  map[Mode]string{ModeBestMatch: "w2", ModeFirstCome: "w1", ModeBalanced: "w2"},
		},
		{
			name:  "equally idle, higher score",
			setup: []step{worker(0, "w1", 1, "a"), worker(0, "w2", 2, "a")},
			want:  map[Mode]string{ModeBestMatch: "w2", ModeFirstCome: "w2", ModeBalanced: "w2"},
		},
		{
			// w1 holds an offer since tick 1; w2 was offered later and rejected it.
			name: "fewer pending offers against longer idle",
			setup: []step{worker(0, "w1", 1, "a", "x"), worker(0, "w2", 1, "a", "y"),
				task(1, "p1", "x"), task(2, "p2", "y"), reject(3, "p2", "w2")},
			want: map[Mode]string{ModeBestMatch: "w2", ModeFirstCome: "w1", ModeBalanced: "w2"},
		},
		{
			// Both were offered a task at tick 1; w2 accepted its own, which frees its slot.
			name: "equally idle and scored, fewer pending offers",
			setup: []step{worker(0, "w1", 1, "a", "x"), worker(0, "w2", 1, "a", "y"),
				task(1, "p1", "x"), task(1, "p2", "y"), accept(2, "p2", "w2")},
			want: map[Mode]string{ModeBestMatch: "w2", ModeFirstCome: "w2", ModeBalanced: "w2"},
		},
		{
			name:  "equally scored and loaded, longer idle",
			setup: []step{worker(0, "w2", 1, "a"), worker(1, "w1", 1, "a")},
			want:  map[Mode]string{ModeBestMatch: "w2", ModeFirstCome: "w2", ModeBalanced: "w2"},
		},
		{
			name:  "equal in everything, lower id",
			setup: []step{worker(0, "w2", 1, "a"), worker(0, "w1", 1, "a")},
			want:  map[Mode]string{ModeBestMatch: "w1", ModeFirstCome: "w1", ModeBalanced: "w1"},
		},
		{
			// The penalty of w1's offer (1) outweighs its lead in score (0.5); a lead of 2
			// does not.
			name: "balanced: a pending offer costs one point of score",
			setup: []step{worker(0, "w1", 1.5, "a", "x"), worker(0, "w2", 1, "a"),
				task(1, "p1", "x")},
			want: map[Mode]string{ModeBestMatch: "w1", ModeFirstCome: "w2", ModeBalanced: "w2"},
		},
		{
			name: "balanced: a lead of more than the penalty",
			setup: []step{worker(0, "w1", 3, "a", "x"), worker(0, "w2", 1, "a"),
				task(1, "p1", "x")},
			want: map[Mode]string{ModeBestMatch: "w1", ModeFirstCome: "w2", ModeBalanced: "w1"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := map[Mode]string{}
			for mode := range tc.want {
				e := New(Config{Rules: RulesEveryTag, Mode: mode, Learning: LearningConfig{Disabled: true}})
				at := func(tick int) time.Time { return t0.Add(time.Duration(tick) * time.Second) }
				for i, s := range tc.setup {
					if err := s(e, at); err != nil {
						t.Fatalf("%s: setup step %d: %v", mode, i, err)
					}
				}
				if _, err := e.CreateTask(at(10), TaskInput{ID: "t", Tags: []string{"a"}}); err != nil {
					t.Fatal(err)
				}
				task, err := e.Task("t")
				if err != nil {
					t.Fatal(err)
				}
				got[mode] = task.WorkerID
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("offered to (-want +got):\n%s", diff)
			}
		})
	}
}
