package conformance

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGenerateIsDeterministic(t *testing.T) {
	for _, fam := range Families {
		for i := range 3 {
			a, err := Generate(fam, 42, i)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Generate(fam, 42, i)
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("%s #%d: two generations differ (-first +second):\n%s", fam, i, diff)
			}
			other, _ := Generate(fam, 43, i)
			if cmp.Equal(a.Steps, other.Steps) {
				t.Errorf("%s #%d: seeds 42 and 43 give the same steps", fam, i)
			}
		}
	}
}

func TestGenerateUnknownFamily(t *testing.T) {
	if _, err := Generate("no-such-family", 1, 0); err == nil || !strings.Contains(err.Error(), "tags-only") {
		t.Fatalf("err = %v, want an error naming the known families", err)
	}
}

// TestFamiliesStressWhatTheyName checks, over a few scenarios each, that every family
// contains what its name promises.
func TestFamiliesStressWhatTheyName(t *testing.T) {
	has := map[string]func(Scenario) bool{
		"tags-only": func(s Scenario) bool { return !hasStep(s, func(st Step) bool { return st.Weights != nil }) },
		"int-weights": func(s Scenario) bool {
			return hasStep(s, func(st Step) bool { return st.Weights != nil && allWhole(st.Weights) })
		},
		"real-weights": func(s Scenario) bool {
			return hasStep(s, func(st Step) bool { return st.Weights != nil && !allWhole(st.Weights) })
		},
		"patterns": func(s Scenario) bool {
			return hasStep(s, func(st Step) bool {
				for k := range st.Weights {
					if strings.HasSuffix(k, "*") {
						return true
					}
				}
				return false
			})
		},
		"thresholds": func(s Scenario) bool { return hasStep(s, func(st Step) bool { return st.Thresholds != nil }) },
		"deep-queue": func(s Scenario) bool {
			first := slices.IndexFunc(s.Steps, func(st Step) bool { return st.Op == OpWorker })
			return first > 50 && count(s, OpAccept) > 0
		},
		"vetoes":   func(s Scenario) bool { return hasStep(s, func(st Step) bool { return len(st.Vetoed) > 0 }) },
		"rejects":  func(s Scenario) bool { return count(s, OpReject) >= 3 },
		"expiries": func(s Scenario) bool { return count(s, OpAdvance) >= 2 },
		"churn": func(s Scenario) bool {
			return count(s, OpPause)+count(s, OpRemove) > 0 && count(s, OpWorker) > 2
		},
		"priorities": func(s Scenario) bool {
			nonPositive := hasStep(s, func(st Step) bool { return st.Op == OpTask && st.Priority <= 0 })
			var ids []string
			for _, st := range s.Steps {
				if st.Op == OpTask {
					ids = append(ids, st.ID)
				}
			}
			return nonPositive && !slices.IsSorted(ids)
		},
		"large":                func(s Scenario) bool { return count(s, OpWorker) >= 200 },
		"fairness-first-come":  func(s Scenario) bool { return s.Options.Fairness == FairnessFirstCome },
		"fairness-best-match":  func(s Scenario) bool { return s.Options.Fairness == FairnessBestMatch },
		"fairness-balanced":    func(s Scenario) bool { return s.Options.Fairness == FairnessBalanced },
		"fairness-spread-work": func(s Scenario) bool { return s.Options.Fairness == FairnessSpreadWork },
		"reused-ids": func(s Scenario) bool {
			removed := map[string]bool{}
			for _, st := range s.Steps {
				switch {
				case st.Op == OpRemove:
					removed[st.ID] = true
				case st.Op == OpWorker && removed[st.ID]:
					return true
				}
			}
			return false
		},
		"dropped-weights": func(s Scenario) bool {
			weighted := map[string]bool{}
			for _, st := range s.Steps {
				if st.Op != OpWorker {
					continue
				}
				if weighted[st.ID] && st.Weights == nil {
					return true
				}
				weighted[st.ID] = st.Weights != nil
			}
			return false
		},
		"mass-expiries": func(s Scenario) bool {
			first := slices.IndexFunc(s.Steps, func(st Step) bool { return st.Op == OpWorker })
			return first >= 100 && hasStep(s, func(st Step) bool { return st.Op == OpAdvance && st.Ms >= 60_000 })
		},
		"late-priority": func(s Scenario) bool {
			first := slices.IndexFunc(s.Steps, func(st Step) bool { return st.Op == OpWorker })
			return first >= 100 && slices.ContainsFunc(s.Steps[first:], func(st Step) bool { return st.Op == OpTask && st.Priority >= 5 })
		},
		"balanced-many": func(s Scenario) bool { return s.Options.Fairness == FairnessBalanced && count(s, OpWorker) >= 10 },
		"spread-many":   func(s Scenario) bool { return s.Options.Fairness == FairnessSpreadWork && count(s, OpWorker) >= 10 },
		"over-512":      func(s Scenario) bool { return count(s, OpWorker) > 512 },
		"clock-moves": func(s Scenario) bool {
			return hasStep(s, func(st Step) bool { return st.Op == OpAdvance && st.Ms <= 1_500 })
		},
		"learning": func(s Scenario) bool {
			return s.Options.Learning && !s.Options.Explores() && count(s, OpAccept) > 0 && count(s, OpReject) > 0 && count(s, OpComplete) > 0
		},
		"learning-explore": func(s Scenario) bool {
			return s.Options.Explores() && count(s, OpAccept) > 0 && count(s, OpReject) > 0 && count(s, OpComplete) > 0
		},
	}
	for _, fam := range Families {
		check, ok := has[fam]
		if !ok {
			t.Errorf("family %s has no check here", fam)
			continue
		}
		found := false
		for i := range 5 {
			s, err := Generate(fam, 1, i)
			if err != nil {
				t.Fatal(err)
			}
			checkWellFormed(t, s)
			found = found || check(s)
		}
		if !found {
			t.Errorf("family %s: none of 5 scenarios shows what the family is named for", fam)
		}
	}
}

// checkWellFormed: every task has a tag and a fresh id, and steps name known workers.
func checkWellFormed(t *testing.T, s Scenario) {
	t.Helper()
	tasks, workers := map[string]bool{}, map[string]bool{}
	for i, st := range s.Steps {
		switch st.Op {
		case OpTask:
			if len(st.Tags) == 0 || tasks[st.ID] {
				t.Errorf("%s step %d: task %q without tags or reused", s.Name(), i+1, st.ID)
			}
			tasks[st.ID] = true
		case OpWorker:
			workers[st.ID] = true
		case OpPause, OpResume, OpRemove:
			if !workers[st.ID] {
				t.Errorf("%s step %d: %s of unknown worker %q", s.Name(), i+1, st.Op, st.ID)
			}
		}
	}
}

func hasStep(s Scenario, f func(Step) bool) bool { return slices.ContainsFunc(s.Steps, f) }

func count(s Scenario, op string) int {
	n := 0
	for _, st := range s.Steps {
		if st.Op == op {
			n++
		}
	}
	return n
}

func allWhole(m map[string]float64) bool {
	for _, v := range m {
		if v != float64(int(v)) {
			return false
		}
	}
	return true
}

func TestScenarioJSONRoundTrip(t *testing.T) {
	s, err := Generate("thresholds", 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	var back Scenario
	if err := json.Unmarshal([]byte(s.JSON()), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, back); diff != "" {
		t.Errorf("JSON round trip changed the scenario (-want +got):\n%s", diff)
	}
}

func TestScenarioString(t *testing.T) {
	two := 2
	s := Scenario{Family: "demo", Seed: 1, Steps: []Step{
		{Op: OpWorker, ID: "w1", Tags: []string{"a"}, Weights: map[string]float64{"b": 2, "a*": 0}, Backlog: &two},
		{Op: OpTask, ID: "t1", Tags: []string{"a", "b"}, Priority: -1, Vetoed: []string{"w2"}, Thresholds: map[string]float64{"b": 1}},
		{Op: OpAccept, Pick: 3},
		{Op: OpAdvance, Ms: 60000},
		{Op: OpRemove, ID: "w1"},
	}}
	want := `scenario demo/1/0 (fairness best-match, backlog 9, offers 60000 ms, batch 50, default tag false)
    1 worker w1 tags=a weights={a*=0 b=2} backlog=2
    2 task t1 tags=a,b priority=-1 vetoed=w2 thresholds={b=1}
    3 accept pick=3
    4 advance 60000ms
    5 remove w1
`
	if diff := cmp.Diff(want, s.String()); diff != "" {
		t.Errorf("String (-want +got):\n%s", diff)
	}
}

func TestBenchRequestFollowsBenchmarkScale(t *testing.T) {
	a, err := NewBenchRequest(20, 100, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewBenchRequest(20, 100, 3, "")
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two workloads differ:\n%s", diff)
	}
	if len(a.Workers) != 20 || len(a.Tasks) != 100+20*9 || len(a.Probes) != 3 {
		t.Fatalf("sizes: %d workers, %d tasks, %d probes", len(a.Workers), len(a.Tasks), len(a.Probes))
	}
	held := 0
	for _, w := range a.Workers {
		n := len(a.Holds[w.ID])
		held += n
		if n > 9 {
			t.Errorf("worker %s holds %d offers after loading, above the backlog", w.ID, n)
		}
		if len(w.Tags) < 3 || len(w.Tags) > 8 {
			t.Errorf("worker %s carries %d tags, want 3-8", w.ID, len(w.Tags))
		}
	}
	if held < 20*9/2 {
		t.Errorf("only %d offers fill 20 backlogs of 9", held)
	}
	for _, tk := range a.Tasks {
		if len(tk.Tags) < 1 || len(tk.Tags) > 3 || tk.Priority < 0 || tk.Priority > 2 {
			t.Errorf("task %s: %d tags, priority %v", tk.ID, len(tk.Tags), tk.Priority)
		}
	}
}
