package mockserver

import (
	"encoding/json"
	"testing"
)

// TestConditionHolds pins the routing conditions the mock evaluates; anything else never
// holds, so a run takes its default route.
func TestConditionHolds(t *testing.T) {
	result := json.RawMessage(`{"ok":true,"amount":3,"zero":0,"one":1,"minus":-1,"tier":"gold","nested":{"flag":false},"empty":"","none":null}`)
	context := json.RawMessage(`{"region":"eu"}`)
	cases := []struct {
		cond string
		want bool
	}{
		{"result.ok", true},
		{"ok", true},
		{"!result.ok", false},
		{"result.missing", false},
		{"!result.missing", true},
		{"result.nested.flag", false},
		{"result.empty", false},
		{"result.tier", true},
		{"result.none", false},
		{"result.zero", false},
		{"!result.zero", true},
		{"result.one", true},
		{"result.minus", true},
		{"result.amount", true},
		{"result.nested", true}, // an object is truthy
		{"result.amount == 3", true},
		{"result.amount != 3", false},
		{"result.amount == 4", false},
		{`result.tier == "gold"`, true},
		{"result.tier == gold", true},
		{"result.tier == 'gold'", true},
		{"context.region == eu", true},
		{"context.region == us", false},
		{"result.nested == null", false},
		{"result.missing == null", true},
		{"result.amount > 2", false}, // not a form the mock evaluates
	}
	for _, tc := range cases {
		if got := conditionHolds(tc.cond, result, context); got != tc.want {
			t.Errorf("conditionHolds(%q) = %v, want %v", tc.cond, got, tc.want)
		}
	}
}
