package match

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRefusedUpdatesAndReads pins the typed error of every update and read of a task or
// worker that cannot be served (unknown id, bad input, finished task), the error's details
// included, and that a refused command changes nothing and sends no event.
func TestRefusedUpdatesAndReads(t *testing.T) {
	for _, rules := range []Rules{RulesPlatform, RulesEveryTag} {
		t.Run(string(rules), func(t *testing.T) {
			setup := func(t *testing.T) *harness {
				h := newHarness(t, Config{Rules: rules})
				h.worker("w1", "a")
				h.task("queued", "z")
				h.task("done", "a")
				h.accept("done", "w1")
				h.complete("done", "w1")
				return h
			}
			notFound := func(kind, id string) error { return &NotFoundError{Kind: kind, ID: id} }
			input := func(field, reason string) error { return &InputError{Field: field, Reason: reason} }
			cases := []struct {
				name string
				call func(e *Engine, now time.Time) error
				want error
			}{
				{"update an unknown task", func(e *Engine, n time.Time) error {
					_, err := e.UpdateTask(n, "nope", TaskUpdate{Priority: ptr(math.NaN())})
					return err
				}, notFound("task", "nope")},
				{"update to a NaN priority", func(e *Engine, n time.Time) error {
					_, err := e.UpdateTask(n, "queued", TaskUpdate{Priority: ptr(math.NaN())})
					return err
				}, input("priority", "must be a finite number")},
				{"update to an infinite priority", func(e *Engine, n time.Time) error {
					_, err := e.UpdateTask(n, "queued", TaskUpdate{Priority: ptr(math.Inf(-1))})
					return err
				}, input("priority", "must be a finite number")},
				{"update to no tags", func(e *Engine, n time.Time) error {
					_, err := e.UpdateTask(n, "queued", TaskUpdate{Tags: []string{}})
					return err
				}, input("tags", "must not be empty")},
				{"update a completed task", func(e *Engine, n time.Time) error {
					_, err := e.UpdateTask(n, "done", TaskUpdate{Priority: ptr(2.0)})
					return err
				}, &StateError{Op: "update", TaskID: "done", Status: StatusCompleted, Reason: StateWrongStatus}},
				{"priority of an unknown task", func(e *Engine, n time.Time) error {
					_, err := e.SetPriority(n, "nope", math.NaN())
					return err
				}, notFound("task", "nope")},
				{"a NaN priority", func(e *Engine, n time.Time) error { _, err := e.SetPriority(n, "queued", math.NaN()); return err },
					input("priority", "must be a finite number")},
				{"an infinite priority", func(e *Engine, n time.Time) error { _, err := e.SetPriority(n, "queued", math.Inf(1)); return err },
					input("priority", "must be a finite number")},
				{"book an unknown task", func(e *Engine, n time.Time) error { _, err := e.Book(n, "nope", "w1"); return err },
					notFound("task", "nope")},
				{"book for an unknown worker", func(e *Engine, n time.Time) error { _, err := e.Book(n, "queued", "ghost"); return err },
					notFound("worker", "ghost")},
				{"unbook an unknown task", func(e *Engine, n time.Time) error { _, err := e.Unbook(n, "nope"); return err },
					notFound("task", "nope")},
				{"routing of an unknown worker", func(e *Engine, n time.Time) error {
					_, err := e.SetWorkerRouting(n, "ghost", &WorkerRouting{Skills: []WorkerSkill{{ID: "s"}}})
					return err
				}, notFound("worker", "ghost")},
				{"queue of an unknown worker", func(e *Engine, _ time.Time) error { _, err := e.WorkerQueue("ghost"); return err },
					notFound("worker", "ghost")},
				{"learning of an unknown worker", func(e *Engine, _ time.Time) error { _, err := e.WorkerStats("ghost"); return err },
					notFound("worker", "ghost")},
				{"booking candidates of an unknown task", func(e *Engine, _ time.Time) error {
					_, err := e.BookingCandidates("nope", 0)
					return err
				}, notFound("task", "nope")},
				{"suggest for no tags", func(e *Engine, _ time.Time) error { _, err := e.SuggestWorkers(SuggestInput{}); return err },
					input("tags", "at least one tag is required")},
				{"suggest with a bad rule", func(e *Engine, _ time.Time) error {
					_, err := e.SuggestWorkers(SuggestInput{Tags: []string{"a"}, Routing: &TaskRouting{RequiredSkills: []RequiredSkill{{ID: "s", MinLevel: 9}}}})
					return err
				}, input("requiredSkills", "minLevel must be 1-5")},
				{"nearest for no tags", func(e *Engine, _ time.Time) error { _, err := e.NearestWorkers(SuggestInput{}, 3); return err },
					input("tags", "at least one tag is required")},
				{"nearest with a bad rule", func(e *Engine, _ time.Time) error {
					_, err := e.NearestWorkers(SuggestInput{Tags: []string{"a"}, Routing: &TaskRouting{Geo: &GeoPoint{Lat: 100}}}, 3)
					return err
				}, input("latitude", "must be a location in degrees")},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					h := setup(t)
					before := h.e.State()
					err := tc.call(h.e, h.step())
					if diff := cmp.Diff(tc.want, err, cmp.Comparer(func(a, b error) bool {
						return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
					})); diff != "" {
						t.Errorf("error (-want +got):\n%s", diff)
					}
					after := h.e.State()
					before.Now = after.Now
					if diff := cmp.Diff(before, after, netipEqual); diff != "" {
						t.Errorf("refused call changed the engine (-before +after):\n%s", diff)
					}
				})
			}
		})
	}
}

// TestDecisionTiesOfUnknownIDs: DecisionTies answers nil for an id that names no retained
// decision: another prefix, no number, a number never given, or another spelling of a
// given one.
func TestDecisionTiesOfUnknownIDs(t *testing.T) {
	h := newHarness(t, Config{Rules: RulesPlatform})
	h.worker("w1", "a")
	h.worker("w2", "a")
	h.task("t1", "a") // decision dec_1: w1 and w2 tie on the platform's score
	if got := h.e.DecisionTies("dec_1"); !cmp.Equal(got, []string{"w1", "w2"}) {
		t.Fatalf("ties of dec_1: %v, want [w1 w2]", got)
	}
	for _, id := range []string{"1", "decision_1", "dec_", "dec_x", "dec_2", "dec_01", "dec_-1", ""} {
		if got := h.e.DecisionTies(id); got != nil {
			t.Errorf("ties of %q: %v, want nil", id, got)
		}
	}
}
