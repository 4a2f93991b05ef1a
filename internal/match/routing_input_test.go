package match

import (
	"errors"
	"math"
	"testing"
)

// TestWorkerSkillWeightBounds: a skill's weight override is a number >= 0: 0 is accepted
// (the skill then adds nothing to the score), a negative weight or NaN is invalid input and
// changes nothing.
func TestWorkerSkillWeightBounds(t *testing.T) {
	cases := []struct {
		name   string
		weight float64
		ok     bool
	}{
		{name: "zero", weight: 0, ok: true},
		{name: "positive", weight: 0.5, ok: true},
		{name: "negative", weight: -0.5},
		{name: "the least negative", weight: -math.SmallestNonzeroFloat64},
		{name: "NaN", weight: math.NaN()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Config{})
			_, err := e.UpsertWorker(t0, WorkerInput{ID: "w1", Tags: []string{"a"},
				Routing: &WorkerRouting{Skills: []WorkerSkill{{ID: "s", Level: 1, Weight: &tc.weight}}}})
			if tc.ok {
				if err != nil {
					t.Fatalf("weight %v refused: %v", tc.weight, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("weight %v: got %v, want invalid input", tc.weight, err)
			}
			if _, err := e.Worker("w1"); !errors.Is(err, ErrNotFound) {
				t.Errorf("a refused worker was registered: %v", err)
			}
		})
	}
}
