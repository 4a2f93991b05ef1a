package conformance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlayGo plays one worker through every kind of step. With a single worker and a single
// tag both rule sets decide the same, so the expected trace holds whichever rules the
// reference matcher runs.
func TestPlayGo(t *testing.T) {
	sc := Scenario{Family: "demo", Steps: []Step{
		{Op: OpAccept},
		{Op: OpWorker, ID: "w1", Tags: []string{"a"}},
		{Op: OpTask, ID: "t1", Tags: []string{"a"}, Priority: 1},
		{Op: OpAccept, Pick: 4},
		{Op: OpComplete},
		{Op: OpTask, ID: "t2", Tags: []string{"a"}, Priority: 1},
		{Op: OpAdvance, Ms: 60_000},
		{Op: OpPause, ID: "w1"},
		{Op: OpTask, ID: "t3", Tags: []string{"a"}, Priority: 1},
		{Op: OpResume, ID: "w1"},
		{Op: OpReject, Pick: 1},
		{Op: OpPause, ID: "nobody"},
		{Op: OpTask, ID: "t1", Tags: []string{"a"}},
	}}
	want := []StepTrace{
		{Did: "accept none"},
		{},
		{Offers: []string{"t1>w1"}},
		{Did: "accept t1>w1"},
		{Did: "complete t1>w1"},
		{Offers: []string{"t2>w1"}},
		{Expired: []string{"t2>w1"}, Offers: []string{"t2>w1"}},
		{},
		{},
		{Offers: []string{"t3>w1"}},
		{Did: "reject t3>w1"},
		{Did: "pause none"},
		{Err: true}, // t1 exists
	}
	for i := range want {
		want[i] = want[i].Canonical()
	}
	if diff := cmp.Diff(want, PlayGo(sc)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

func TestPickPair(t *testing.T) {
	held := map[string]string{"t2": "w1", "t1": "w2", "t3": "gone"}
	workers := map[string]bool{"w1": true, "w2": true}
	for _, tt := range []struct {
		n          int
		task, work string
	}{{0, "t1", "w2"}, {1, "t2", "w1"}, {2, "t1", "w2"}, {5, "t2", "w1"}} {
		task, w, ok := pickPair(held, workers, tt.n)
		if !ok || task != tt.task || w != tt.work {
			t.Errorf("pick %d = %s>%s %v, want %s>%s", tt.n, task, w, ok, tt.task, tt.work)
		}
	}
	if _, _, ok := pickPair(map[string]string{"t1": "gone"}, workers, 0); ok {
		t.Error("a pick among offers of removed workers found one")
	}
}

// TestServerPlaysAsGo plays scenarios of every family through the mock server's HTTP API and
// through the reference matcher without the engine (no Node, no Redis): what the server adds
// around the matcher (decoding, validation, the clock, the sweep, events) must change no
// decision. The engine comparison of both is cmd/conform's.
func TestServerPlaysAsGo(t *testing.T) {
	for _, fam := range Families {
		t.Run(fam, func(t *testing.T) {
			n := 3
			if fam == "over-512" || fam == "large" {
				n = 1
			}
			for i := range n {
				sc, err := Generate(fam, 7, i)
				if err != nil {
					t.Fatal(err)
				}
				got, err := PlayServer(sc)
				if err != nil {
					t.Fatal(err)
				}
				if d := Compare(PlayGo(sc), got); d != nil {
					t.Errorf("%s: server against go: %s\n%s", sc.Name(), d, sc)
				}
			}
		})
	}
}

// TestPlayGoTies: two equal workers tie for a task and both players disclose it; a task
// only a weighted worker can take is a strict choice, with no entry.
func TestPlayGoTies(t *testing.T) {
	sc := Scenario{Family: "demo", Steps: []Step{
		{Op: OpWorker, ID: "w1", Tags: []string{"a"}},
		{Op: OpWorker, ID: "w2", Tags: []string{"a"}},
		{Op: OpWorker, ID: "w3", Weights: map[string]float64{"b": 5}},
		{Op: OpTask, ID: "t1", Tags: []string{"a"}, Priority: 1},
		{Op: OpTask, ID: "t2", Tags: []string{"b"}, Priority: 1},
	}}
	want := []Ties{{}, {}, {}, {"t1": {"w1", "w2"}}, {}}
	for _, p := range Players {
		_, ties, err := p.PlayTies(sc)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, ties); diff != "" {
			t.Errorf("%s player: ties (-want +got):\n%s", p.Name, diff)
		}
	}
}

// TestLearningExplore: an exploring scenario repeats itself on the go and server players
// for one seed, and its draws matter: some scenarios change with the seed or without
// exploration (else the reproducibility cmd/conform checks would prove nothing).
func TestLearningExplore(t *testing.T) {
	var reseeded, calmed int
	for i := range 6 {
		sc, err := Generate("learning-explore", 1, i)
		if err != nil {
			t.Fatal(err)
		}
		if !sc.Options.Explores() {
			t.Fatalf("%s does not explore", sc.Name())
		}
		first := PlayGo(sc)
		if d := Compare(first, PlayGo(sc)); d != nil {
			t.Errorf("%s: a second play with the same seed differs: %s", sc.Name(), d)
		}
		srv, err := PlayServer(sc)
		if err != nil {
			t.Fatal(err)
		}
		if d := Compare(first, srv); d != nil {
			t.Errorf("%s: the server differs from the go player with the same seed: %s", sc.Name(), d)
		}
		other := sc.Clone()
		other.Options.LearningSeed++
		if Compare(first, PlayGo(other)) != nil {
			reseeded++
		}
		calm := sc.Clone()
		calm.Options.Exploration = 0
		if Compare(first, PlayGo(calm)) != nil {
			calmed++
		}
	}
	if reseeded == 0 || calmed == 0 {
		t.Errorf("of 6 scenarios, %d changed with the seed and %d without exploration; want some of each", reseeded, calmed)
	}
}
