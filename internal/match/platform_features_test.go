package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlatformLearningFeatures pins the feature vector of a (worker, task) pair under the
// platform's learning (docs/contract.md, "Learning under the platform rules", Features):
// bias 1; tag:X 1 for each task tag the worker lists; skill:X min(weight/100, 1) for each
// task tag its routingWeights weigh positively, the exact entry first, else a pattern;
// overlap, the share of the task's tags the worker lists. In the order the task's tags
// come, as the engine sums them.
func TestPlatformLearningFeatures(t *testing.T) {
	e := New(Config{Rules: RulesPlatform, Learning: LearningConfig{Rank: true}})
	if _, err := e.UpsertWorker(t0, WorkerInput{ID: "w", Tags: []string{"b", "a"},
		RoutingWeights: map[string]float64{"a": 50, "c*": 250, "b": 0, "d": 100, "e*": 30, "e1": 0}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.UpsertWorker(t0, WorkerInput{ID: "w2", Tags: []string{"z"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateTask(t0, TaskInput{ID: "one", Tags: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateTask(t0, TaskInput{ID: "t", Tags: []string{"a", "c1", "x", "b", "d", "e1", "e2"}}); err != nil {
		t.Fatal(err)
	}
	got := e.features(e.workers["w"], e.tasks["t"])
	want := []feature{
		{"bias", 1},
		{"tag:a", 1}, {"skill:a", 0.5},
		{"skill:c1", 1}, // a pattern's weight, capped at 1
		{"tag:b", 1},    // weight 0: no skill feature
		{"skill:d", 1},
		{"skill:e2", 0.3}, // e1's exact 0 wins over its pattern
		{"overlap", 2.0 / 7},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(feature{})); diff != "" {
		t.Errorf("features (-want +got):\n%s", diff)
	}
	// A worker without routingWeights has only its listed tags.
	got = e.features(e.workers["w2"], e.tasks["t"])
	want = []feature{{"bias", 1}, {"overlap", 0}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(feature{})); diff != "" {
		t.Errorf("features of a plain worker (-want +got):\n%s", diff)
	}
	// A task of one tag the worker lists overlaps it wholly.
	got = e.features(e.workers["w"], e.tasks["one"])
	want = []feature{{"bias", 1}, {"tag:a", 1}, {"skill:a", 0.5}, {"overlap", 1}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(feature{})); diff != "" {
		t.Errorf("features for one tag (-want +got):\n%s", diff)
	}
}
