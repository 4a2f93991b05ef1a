package taskrouting

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReasonDecodesTypedMembersAndKeepsRaw(t *testing.T) {
	tests := []struct {
		name string
		wire string
		want Reason
	}{
		{"tag weight", `{"kind":"tagWeight","tag":"english","weight":2.5}`,
			Reason{Kind: ReasonTagWeight, Tag: "english", Weight: 2.5}},
		{"threshold", `{"kind":"threshold","tag":"billing","weight":1,"threshold":3}`,
			Reason{Kind: ReasonThreshold, Tag: "billing", Weight: 1, Threshold: 3}},
		{"learning in shadow mode", `{"kind":"learningBoost","factor":1.23,"shadow":true}`,
			Reason{Kind: ReasonLearningBoost, Factor: 1.23, Shadow: true}},
		{"learning under the platform rules", `{"kind":"learningBoost","predicted":-0.05}`,
			Reason{Kind: ReasonLearningBoost, Predicted: -0.05}},
		{"load penalty", `{"kind":"loadPenalty","penalty":2}`,
			Reason{Kind: ReasonLoadPenalty, Penalty: 2}},
		{"tie", `{"kind":"tie","workers":["w001","w002"]}`,
			Reason{Kind: ReasonTie, Workers: []string{"w001", "w002"}}},
		{"unknown kind keeps its members in Raw", `{"kind":"geoDistance","km":12}`,
			Reason{Kind: "geoDistance"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Reason
			if err := json.Unmarshal([]byte(tt.wire), &got); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.FilterPath(func(p cmp.Path) bool {
				return p.Last().String() == ".Raw"
			}, cmp.Ignore())); diff != "" {
				t.Errorf("typed members (-want +got):\n%s", diff)
			}
			if string(got.Raw) != tt.wire {
				t.Errorf("Raw = %s, want %s", got.Raw, tt.wire)
			}
			again, err := json.Marshal(got)
			if err != nil || string(again) != tt.wire {
				t.Errorf("re-encode = %s, %v; want the bytes received", again, err)
			}
		})
	}
}

func TestReasonWithoutRawEncodesTypedMembers(t *testing.T) {
	b, err := json.Marshal(Reason{Kind: ReasonMissingTag, Tag: "spanish"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"missingTag","tag":"spanish"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
