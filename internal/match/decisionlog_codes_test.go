package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReasonKindCodes pins the compact decision log's reason codes: each kind the engine
// gives a code reads back as itself, no two share a code, and the kinds without one
// (stored in full) get 0, as does an unknown kind; an unknown code reads back as no kind.
func TestReasonKindCodes(t *testing.T) {
	coded := []ReasonKind{ReasonMissingTag, ReasonVetoed, ReasonRejectedPreviously, ReasonBacklogFull, ReasonUnavailable,
		ReasonOnBreak, ReasonZeroWeight, ReasonThreshold, ReasonLearnedVeto, ReasonTagWeight, ReasonLearningBoost,
		ReasonLoadPenalty, ReasonManualAssign}
	full := []ReasonKind{ReasonBookedForOther, ReasonZeroPriority, ReasonMissingSkill, ReasonSkillExpired,
		ReasonSkillLevelTooLow, ReasonNotInTeam, ReasonTooFar, ReasonNoGeo, ReasonIPNotAllowed, ReasonSkillWeight,
		ReasonPreferredTeam, "", "somethingNew"}
	codes := map[uint8]ReasonKind{}
	for _, k := range coded {
		c := kindCode(k)
		if c == 0 {
			t.Errorf("%s has no code", k)
			continue
		}
		if other, dup := codes[c]; dup {
			t.Errorf("%s and %s share code %d", k, other, c)
		}
		codes[c] = k
		if back := kindOf(c); back != k {
			t.Errorf("%s: code %d reads back as %q", k, c, back)
		}
	}
	for _, k := range full {
		if c := kindCode(k); c != 0 {
			t.Errorf("%q: code %d, want 0 (stored in full)", k, c)
		}
	}
	got := map[uint8]ReasonKind{}
	for _, c := range []uint8{0, 14, 255} {
		got[c] = kindOf(c)
	}
	if diff := cmp.Diff(map[uint8]ReasonKind{0: "", 14: "", 255: ""}, got); diff != "" {
		t.Errorf("unknown codes (-want +got):\n%s", diff)
	}
}
