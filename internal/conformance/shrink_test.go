package conformance

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bugNeeds is a fake failing predicate standing in for "the engine and the reference
// matcher differ": it fails when worker w3 exists, carries tag g3, and a later task asks
// for g3 at a priority below 2.
func bugNeeds(s Scenario) bool {
	w3 := false
	for _, st := range s.Steps {
		switch st.Op {
		case OpWorker:
			if st.ID == "w3" {
				w3 = slices.Contains(st.Tags, "g3")
			}
		case OpTask:
			if w3 && slices.Contains(st.Tags, "g3") && st.Priority < 2 {
				return true
			}
		}
	}
	return false
}

func TestShrinkFindsTheSmallestFailingScenario(t *testing.T) {
	two := 2
	sc := Scenario{Family: "demo", Steps: []Step{
		{Op: OpWorker, ID: "w1", Tags: []string{"g1"}},
		{Op: OpTask, ID: "t1", Tags: []string{"g1"}, Priority: 3},
		{Op: OpWorker, ID: "w3", Tags: []string{"g1", "g3", "g5"}, Weights: map[string]float64{"g3": 4}, Backlog: &two},
		{Op: OpAccept, Pick: 5},
		{Op: OpAdvance, Ms: 70000},
		{Op: OpTask, ID: "t2", Tags: []string{"g5", "g3", "g1"}, Priority: 1.5, Vetoed: []string{"w1"},
			Thresholds: map[string]float64{"g3": 2}},
		{Op: OpReject, Pick: 1},
		{Op: OpTask, ID: "t3", Tags: []string{"g3"}, Priority: 7},
	}}
	if !bugNeeds(sc) {
		t.Fatal("the starting scenario must fail")
	}
	calls := 0
	got := Shrink(sc, func(s Scenario) bool { calls++; return bugNeeds(s) }, 1000)
	want := []Step{
		{Op: OpWorker, ID: "w3", Tags: []string{"g3"}},
		{Op: OpTask, ID: "t2", Tags: []string{"g3"}},
	}
	if diff := cmp.Diff(want, got.Steps); diff != "" {
		t.Errorf("shrunk steps (-want +got):\n%s\nafter %d calls", diff, calls)
	}
	if !bugNeeds(got) {
		t.Error("the shrunk scenario no longer fails")
	}
	// The input is left as it was: candidates are copies.
	if len(sc.Steps) != 8 || len(sc.Steps[2].Tags) != 3 || sc.Steps[2].Weights["g3"] != 4 {
		t.Errorf("Shrink changed its input: %+v", sc.Steps[2])
	}
}

func TestShrinkKeepsToItsBudget(t *testing.T) {
	sc, err := Generate("churn", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{0, 1, 7, 30} {
		calls := 0
		got := Shrink(sc, func(Scenario) bool { calls++; return true }, budget)
		if calls > budget {
			t.Errorf("budget %d: %d predicate calls", budget, calls)
		}
		if budget == 0 && !cmp.Equal(got, sc) {
			t.Errorf("budget 0 changed the scenario")
		}
	}
}

func TestShrinkNeverReturnsAPassingScenario(t *testing.T) {
	sc, err := Generate("vetoes", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Fails only while the scenario keeps at least 5 steps and a vetoed task.
	fails := func(s Scenario) bool {
		return len(s.Steps) >= 5 && slices.ContainsFunc(s.Steps, func(st Step) bool { return len(st.Vetoed) > 0 })
	}
	if !fails(sc) {
		t.Skip("generated scenario has no veto") // the generator test guarantees vetoes in the family
	}
	got := Shrink(sc, fails, 500)
	if !fails(got) || len(got.Steps) != 5 {
		t.Errorf("shrunk to %d steps (fails=%v), want exactly 5 that still fail", len(got.Steps), fails(got))
	}
}
