package mockserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestRestoreNamesAnEnumFault: a command's method outside the four a state log holds is
// named with the values the schema allows.
func TestRestoreNamesAnEnumFault(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "ana", "tags": []string{"en"}})
	saved, err := srv.Snapshot(context.Background())
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(saved, &m))
	m["workspaces"].([]any)[0].(map[string]any)["commands"].([]any)[0].(map[string]any)["method"] = "GET"
	raw, err := json.Marshal(m)
	require.NoError(t, err)
	var se *StateError
	if err := Start(t).Restore(context.Background(), raw); !errors.As(err, &se) {
		t.Fatalf("Restore = %v, want a *StateError", err)
	}
	if d := cmp.Diff(StateError{"/workspaces/0/commands/0/method", "must be one of [POST PUT PATCH DELETE]"}, *se); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestFirstDifferenceNamesThePlaceAndBothSides: the check of a state document's readable
// members against what its commands lead to names the first place they differ (object
// members in key order, the real state's members first, then list entries), what the
// document has there and what the commands lead to; numbers are equal by value and times
// by instant.
func TestFirstDifferenceNamesThePlaceAndBothSides(t *testing.T) {
	num := func(s string) json.Number { return json.Number(s) }
	obj := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	x := func(n int) string { return strings.Repeat("x", n) }
	type diff struct{ P, Doc, Real string }
	tests := []struct {
		name      string
		real, doc any
		want      diff
	}{
		{"equal objects", obj("a", num("1"), "b", "x"), obj("b", "x", "a", num("1")), diff{}},
		{"an object where a list is", []any{num("1")}, obj("a", num("1")), diff{"/s", "an object", "[1]"}},
		{"a member the document lacks", obj("a", num("1"), "b", num("2")), obj("a", num("1")), diff{"/s/b", "nothing", "2"}},
		{"a member the state lacks", obj("a", num("1")), obj("a", num("1"), "c", "z"), diff{"/s/c", `"z"`, "nothing"}},
		{"lacking members: the state's first", obj("b", num("2")), obj("a", num("1")), diff{"/s/b", "nothing", "2"}},
		{"members in key order", obj("a", num("1"), "b", num("1")), obj("a", num("2"), "b", num("2")), diff{"/s/a", "2", "1"}},
		{"nested, escaped", obj("a/b~", obj("c", true)), obj("a/b~", obj("c", false)), diff{"/s/a~1b~0/c", "false", "true"}},
		{"a list where an object is", obj("a", num("1")), []any{}, diff{"/s", "a list", `{"a":1}`}},
		{"list entries in order", []any{num("1"), num("3"), num("5")}, []any{num("1"), num("2"), num("4")}, diff{"/s/1", "2", "3"}},
		{"list lengths", []any{num("1"), num("2")}, []any{num("1")}, diff{"/s", "1 entries", "2"}},
		{"equal lists", []any{num("1")}, []any{num("1")}, diff{}},
		{"numbers by value", num("1"), num("1.0"), diff{}},
		{"different numbers", num("1"), num("1.5"), diff{"/s", "1.5", "1"}},
		{"a number and a string", "1", num("1"), diff{"/s", "1", `"1"`}},
		{"times by instant", "2025-11-21T05:40:00+01:00", "2025-11-21T04:40:00Z", diff{}},
		{"different times", "2025-11-21T04:40:01Z", "2025-11-21T04:40:00Z", diff{"/s", `"2025-11-21T04:40:00Z"`, `"2025-11-21T04:40:01Z"`}},
		{"different strings", "b", "a", diff{"/s", `"a"`, `"b"`}},
		{"a time and a plain string", "soon", "2025-11-21T04:40:00Z", diff{"/s", `"2025-11-21T04:40:00Z"`, `"soon"`}},
		{"equal booleans", true, true, diff{}},
		{"null and false", false, nil, diff{"/s", "null", "false"}},
		{"80 bytes of JSON are kept", x(78), "y", diff{"/s", `"y"`, `"` + x(78) + `"`}},
		{"81 bytes of JSON are cut to 80", x(79), "y", diff{"/s", `"y"`, `"` + x(76) + "..."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, doc, real := firstDifference("/s", tc.real, tc.doc)
			if d := cmp.Diff(tc.want, diff{p, doc, real}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
