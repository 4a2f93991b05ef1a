package taskrouter

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTargetPriority: a target's priority is read from a JSON number or a string holding
// one; anything else (no priority, null, a word, an expression, a boolean) is 0 and false.
func TestTargetPriority(t *testing.T) {
	type result struct {
		P  float64
		OK bool
	}
	for _, tc := range []struct {
		raw  string
		want result
	}{
		{``, result{0, false}},
		{`null`, result{0, false}},
		{`5`, result{5, true}},
		{`-2.5`, result{-2.5, true}},
		{`0`, result{0, true}},
		{`"7"`, result{7, true}},
		{`"1e2"`, result{100, true}},
		{`"high"`, result{0, false}},
		{`"task.priority + 1"`, result{0, false}},
		{`true`, result{0, false}},
		{`[1]`, result{0, false}},
	} {
		p, ok := Target{RawPriority: json.RawMessage(tc.raw)}.Priority()
		if diff := cmp.Diff(tc.want, result{p, ok}); diff != "" {
			t.Errorf("priority %s (-want +got):\n%s", tc.raw, diff)
		}
	}
}
