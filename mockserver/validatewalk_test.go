package mockserver

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEachMemberWalksPlainObjects pins the text-level walk the hot handlers use instead of
// encoding/json: every member of a plain object with its value's exact text, and false (the
// caller then decodes with encoding/json) for anything else.
func TestEachMemberWalksPlainObjects(t *testing.T) {
	type result struct {
		OK      bool
		Members []string
	}
	cases := []struct {
		name, body string
		stopAt     string // fn returns false at this member
		want       result
	}{
		{"empty object", " {\t} \n", "", result{true, nil}},
		{"empty object and more", "{} x", "", result{false, nil}},
		{"members with their exact text", ` { "a" : 1 , "b":[1,{"c":"}"}] ,"d":"x\"y","e":true ,"f":{"g":null}}`, "",
			result{true, []string{`a=1`, `b=[1,{"c":"}"}]`, `d="x\"y"`, `e=true`, `f={"g":null}`}}},
		{"not an object", `[1]`, "", result{false, nil}},
		{"nothing", ``, "", result{false, nil}},
		{"a name with an escape", `{"a\u0062":1}`, "", result{false, nil}},
		{"a name not quoted", `{a:1}`, "", result{false, nil}},
		{"a name not closed", `{"a`, "", result{false, nil}},
		{"no colon", `{"a" 1}`, "", result{false, nil}},
		{"cut after a value", `{"a":12`, "", result{false, []string{"a=12"}}},
		{"cut inside a string", `{"a":"xy`, "", result{false, nil}},
		{"cut inside an array", `{"a":[1,2`, "", result{false, nil}},
		{"no comma between members", `{"a":1 "b":2}`, "", result{false, []string{"a=1"}}},
		{"a trailing comma", `{"a":1,}`, "", result{false, []string{"a=1"}}},
		{"cut after a comma", `{"a":1, `, "", result{false, []string{"a=1"}}},
		{"trailing text", `{"a":1} x`, "", result{false, []string{"a=1"}}},
		{"fn stops the walk", `{"a":1,"b":2,"c":3}`, "b", result{false, []string{"a=1", "b=2"}}},
	}
	for _, tc := range cases {
		var got result
		got.OK = eachMember([]byte(tc.body), func(name, raw []byte) bool {
			got.Members = append(got.Members, string(name)+"="+string(raw))
			return string(name) != tc.stopAt
		})
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: eachMember(%q) (-want +got):\n%s", tc.name, tc.body, diff)
		}
	}
}

// TestSkipValueFindsTheEnd pins where skipValue says a value ends, including a value that runs
// to the end of the text.
func TestSkipValueFindsTheEnd(t *testing.T) {
	type end struct {
		At int
		OK bool
	}
	cases := []struct {
		text string
		want end
	}{
		{`12`, end{2, true}},
		{`12,`, end{2, true}},
		{`12 `, end{2, true}},
		{`12}`, end{2, true}},
		{`"a\"b",`, end{6, true}},
		{`"ab`, end{0, false}},
		{`[1,[2]],`, end{7, true}},
		{`{"a":{}}x`, end{8, true}},
		{`[1,2`, end{0, false}},
		{``, end{0, true}},
	}
	for _, tc := range cases {
		at, ok := skipValue([]byte(tc.text), 0)
		if diff := cmp.Diff(tc.want, end{at, ok}); diff != "" {
			t.Errorf("skipValue(%q) (-want +got):\n%s", tc.text, diff)
		}
	}
}

// TestSentWithoutTheSchemaTree pins request.sent for a request whose body the schema check
// did not parse: a member counts as sent when present and not null.
func TestSentWithoutTheSchemaTree(t *testing.T) {
	r := &request{body: []byte(`{"a":1,"b":null,"c":"","d":{}}`)}
	got := map[string]bool{}
	for _, m := range []string{"a", "b", "c", "d", "e"} {
		got[m] = r.sent(m)
	}
	want := map[string]bool{"a": true, "b": false, "c": true, "d": true, "e": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sent (-want +got):\n%s", diff)
	}
}

// TestCheckIDHoldsTheIDSchema pins checkID to the Id schema: 1 to 128 characters of
// [A-Za-z0-9_.-].
func TestCheckIDHoldsTheIDSchema(t *testing.T) {
	cases := []struct {
		id, want string // want: the error's message, "" when accepted
	}{
		{"", "path/id must NOT have more than 128 characters"},
		{"a", ""},
		{"Az09_.-", ""},
		{strings.Repeat("x", 128), ""},
		{strings.Repeat("x", 129), "path/id must NOT have more than 128 characters"},
		{"a b", `path/id must match pattern "^[A-Za-z0-9_.-]+$"`},
		{"a/b", `path/id must match pattern "^[A-Za-z0-9_.-]+$"`},
	}
	for _, tc := range cases {
		got := ""
		if err := checkID("path/id", tc.id); err != nil {
			got = err.message
		}
		if got != tc.want {
			t.Errorf("checkID(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}
