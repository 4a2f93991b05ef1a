package conformance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompare(t *testing.T) {
	offer := func(pairs ...string) StepTrace { return StepTrace{Offers: pairs} }
	tests := []struct {
		name         string
		engine, goTr []StepTrace
		want         *Divergence
	}{
		{"identical", []StepTrace{offer("t1>w1"), {Did: "accept t1>w1"}}, []StepTrace{offer("t1>w1"), {Did: "accept t1>w1"}}, nil},
		{"order inside a pass does not count", []StepTrace{offer("t2>w1", "t1>w2")}, []StepTrace{offer("t1>w2", "t2>w1")}, nil},
		{"nil and empty lists agree", []StepTrace{{Offers: nil}}, []StepTrace{{Offers: []string{}}}, nil},
		{"first differing step is reported", []StepTrace{offer("t1>w1"), offer("t2>w1"), offer("t3>w1")},
			[]StepTrace{offer("t1>w1"), offer("t2>w2"), offer("t3>w2")},
			&Divergence{Step: 1, Engine: offer("t2>w1"), Go: offer("t2>w2")}},
		{"an extra offer differs", []StepTrace{offer("t1>w1")}, []StepTrace{offer("t1>w1", "t2>w1")},
			&Divergence{Step: 0, Engine: offer("t1>w1"), Go: offer("t1>w1", "t2>w1")}},
		{"a refusal differs", []StepTrace{{Did: "accept t1>w1"}}, []StepTrace{{Did: "accept t1>w1", Err: true}},
			&Divergence{Step: 0, Engine: StepTrace{Did: "accept t1>w1"}, Go: StepTrace{Did: "accept t1>w1", Err: true}}},
		{"an expiry differs", []StepTrace{{Expired: []string{"t1>w1"}}}, []StepTrace{{}},
			&Divergence{Step: 0, Engine: StepTrace{Expired: []string{"t1>w1"}}}},
		{"a release differs", []StepTrace{{}}, []StepTrace{{Released: []string{"t1>w1"}}},
			&Divergence{Step: 0, Go: StepTrace{Released: []string{"t1>w1"}}}},
		{"a shorter trace differs at its first missing step", []StepTrace{{}, {}}, []StepTrace{{}},
			&Divergence{Step: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.engine, tt.goTr)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Compare (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStepTraceString(t *testing.T) {
	s := StepTrace{Did: "reject t2>w1", Offers: []string{"t2>w3", "t1>w2"}, Expired: []string{"t4>w1"}, Released: []string{"t5>w9"}, Err: true}
	want := "reject t2>w1; refused; expired t4>w1; released t5>w9; offers t1>w2 t2>w3"
	if got := s.String(); got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got := (StepTrace{}).String(); got != "nothing" {
		t.Errorf("empty String = %q", got)
	}
}

func TestWithinTies(t *testing.T) {
	ties := Ties{"t1": {"w1", "w2"}}
	for _, tc := range []struct {
		name         string
		engine, goSt StepTrace
		want         bool
	}{
		{"the engine took a tied worker", StepTrace{Offers: []string{"t1>w2"}}, StepTrace{Offers: []string{"t1>w1"}}, true},
		{"a worker outside the tie", StepTrace{Offers: []string{"t1>w3"}}, StepTrace{Offers: []string{"t1>w1"}}, false},
		{"another task offered", StepTrace{Offers: []string{"t2>w1"}}, StepTrace{Offers: []string{"t1>w1"}}, false},
		{"one offer more", StepTrace{Offers: []string{"t1>w2", "t2>w1"}}, StepTrace{Offers: []string{"t1>w1"}}, false},
		{"expiries differ", StepTrace{Expired: []string{"t1>w1"}}, StepTrace{}, false},
		{"the pick differs", StepTrace{Did: "accept t1>w2"}, StepTrace{Did: "accept t1>w1"}, false},
	} {
		if got := WithinTies(tc.engine, tc.goSt, ties); got != tc.want {
			t.Errorf("%s: WithinTies = %v, want %v", tc.name, got, tc.want)
		}
	}
}
