package expr

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// docTask is the task of the documentation's key examples.
const docTask = `{"string_const": "foo", "object": {"array": ["a","b","c"], "attr": "bar"}}`

func mustAttrs(t *testing.T, s string) any {
	t.Helper()
	v, err := Attributes(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEvalDocumentedExamples evaluates the examples of TaskRouter's expression, activity
// and time-of-day pages, with documents written to make each one true or false.
func TestEvalDocumentedExamples(t *testing.T) {
	thu0930 := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC) // a Thursday
	sat1200 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	sun1200 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	wed0930 := time.Date(2026, 11, 25, 9, 30, 0, 0, time.UTC)
	const dayRules = `(taskrouter.dayOfWeek IN ['Mon', 'Tue', 'THU']
		AND taskrouter.currentTime > 800
		AND taskrouter.currentTime < 1730)
		OR
		(taskrouter.dayOfWeek IN ['Wed', 'Fri']
		AND taskrouter.currentTime > 900
		AND taskrouter.currentTime < 1830)
		OR
		(taskrouter.dayOfWeek = 'Sat'
		AND taskrouter.currentTime > 1100
		AND taskrouter.currentTime < 1530)`
	tests := []struct {
		name, src, task, worker string
		props                   map[string]any
		def                     Scope
		now                     time.Time
		want                    bool
	}{
		{name: "target workers", src: `(skills HAS 'support') AND (languages HAS 'english')`, def: ScopeWorker,
			worker: `{"skills":["support","sales"],"languages":["english"]}`, want: true},
		{name: "target workers, one skill missing", src: `(skills HAS 'support') AND (languages HAS 'english')`, def: ScopeWorker,
			worker: `{"skills":["sales"],"languages":["english"]}`, want: false},
		{name: "filter", src: `customer_value == 'Gold' AND type == 'ticket'`, task: `{"customer_value":"Gold","type":"ticket"}`, want: true},
		{name: "filter, other value", src: `customer_value == 'Gold' AND type == 'ticket'`, task: `{"customer_value":"Silver","type":"ticket"}`, want: false},
		{name: "1 == 1", src: `1 == 1`, want: true},
		{name: "0 != 1", src: `0 != 1`, want: true},
		{name: "apple != orange", src: `"apple" != "orange"`, want: true},
		{name: "key > 1", src: `key > 1`, task: `{"key": 2}`, want: true},
		{name: "key > 1, equal", src: `key > 1`, task: `{"key": 1}`, want: false},
		{name: "object.param != apple", src: `object.param != "apple"`, task: `{"object":{"param":"pear"}}`, want: true},
		{name: "language IN", src: `language IN ["en", "es"]`, task: `{"language":"es"}`, want: true},
		{name: "language IN, not listed", src: `language IN ["en", "es"]`, task: `{"language":"fr"}`, want: false},
		{name: "OR of booleans", src: `(condition_a == true) OR (condition_b == true)`, task: `{"condition_a":false,"condition_b":true}`, want: true},
		{name: "OR then AND", src: `(language == "en" OR language == "fr") AND skill_rating >= 5.1`, task: `{"language":"fr","skill_rating":5.1}`, want: true},
		{name: "OR then AND, rating low", src: `(language == "en" OR language == "fr") AND skill_rating >= 5.1`, task: `{"language":"fr","skill_rating":5}`, want: false},
		{name: "key string_const", src: `string_const == "foo"`, task: docTask, want: true},
		{name: "key object.array", src: `object.array HAS "b"`, task: docTask, want: true},
		{name: "key object.array[2]", src: `object.array[2] == "c"`, task: docTask, want: true},
		{name: "key object.attr", src: `object.attr == "bar"`, task: docTask, want: true},
		{name: "missing key is null", src: `object.nope == "bar"`, task: docTask, want: false},
		{name: "index past the end is null", src: `object.array[3] == "c"`, task: docTask, want: false},
		{name: "activity name in", src: `worker.activity_name in ['Generally Available', 'High Value Tasks']`, def: ScopeWorker,
			props: map[string]any{"activity_name": "High Value Tasks"}, want: true},
		{name: "activity sid", src: `worker.activity_sid == 'WAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX'`, def: ScopeWorker,
			props: map[string]any{"activity_sid": "WAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}, want: true},
		{name: "activity name contains", src: `activity_name contains 'MNO'`, def: ScopeWorker,
			props: map[string]any{"activity_name": "xMNOx"}, want: true},
		{name: "preferred agents", src: `worker.id IN task.preferred_agents`, def: ScopeWorker,
			worker: `{"id":"a2"}`, task: `{"preferred_agents":["a1","a2"]}`, want: true},
		{name: "current time between", src: `taskrouter.currentTime > 0800 AND taskrouter.currentTime < 1830`, now: thu0930, want: true},
		{name: "current time after", src: `taskrouter.currentTime > 0800 AND taskrouter.currentTime < 1830`, now: thu0930.Add(10 * time.Hour), want: false},
		{name: "current hour", src: `taskrouter.currentHour > 8 AND taskrouter.currentHour < 18`, now: thu0930, want: true},
		{name: "current hour, early", src: `taskrouter.currentHour > 8 AND taskrouter.currentHour < 18`, now: thu0930.Add(-2 * time.Hour), want: false},
		{name: "current minute", src: `taskrouter.currentMin > 10 AND taskrouter.currentMin < 50`, now: thu0930, want: true},
		{name: "day rules, Wednesday morning", src: dayRules, now: wed0930, want: true},
		{name: "day rules, Saturday noon", src: dayRules, now: sat1200, want: true},
		{name: "day rules, Sunday", src: dayRules, now: sun1200, want: false},
		// Day names compare without regard to case: the documentation's 'THU' names Thursday.
		{name: "day rules, Thursday written THU", src: dayRules, now: thu0930, want: true},
		{name: "NOT IN", src: `language NOT IN ["en"]`, task: `{"language":"es"}`, want: true},
		{name: "NOT IN of a missing key", src: `language NOT IN ["en"]`, task: `{}`, want: true},
		{name: "NOT", src: `NOT (vip == true)`, task: `{"vip":false}`, want: true},
		{name: "-> is HAS", src: `skills -> "a"`, task: `{"skills":["a"]}`, want: true},
		{name: "HAS needs an array", src: `skills HAS "a"`, task: `{"skills":"a"}`, want: false},
		{name: "CONTAINS on a string", src: `email CONTAINS "@example.com"`, task: `{"email":"x@example.com"}`, want: true},
		{name: "CONTAINS on an array", src: `notes CONTAINS "urg"`, task: `{"notes":["x","urgent"]}`, want: true},
		{name: "single = is ==", src: `type = "sales"`, task: `{"type":"sales"}`, want: true},
		{name: "missing != constant", src: `type != "sales"`, task: `{}`, want: true},
		{name: "string order", src: `tier < "m"`, task: `{"tier":"gold"}`, want: true},
		{name: "mixed types never order", src: `tier < 5`, task: `{"tier":true}`, want: false},
		{name: "task prefix in a filter", src: `task.type == "x"`, task: `{"type":"x"}`, want: true},
		{name: "lower-case keywords", src: `a == 1 and not b == 2 or c has "z"`, task: `{"a":1,"b":3}`, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			env := &Env{Default: tt.def, WorkerProps: tt.props, Now: tt.now}
			if env.Default == ScopeDefault {
				env.Default = ScopeTask
			}
			if tt.task != "" {
				env.Task = mustAttrs(t, tt.task)
			}
			if tt.worker != "" {
				env.Worker = mustAttrs(t, tt.worker)
			}
			if got := Eval(n, env); got != tt.want {
				t.Errorf("Eval(%s) = %v, want %v (tree %s)", tt.src, got, tt.want, n)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		want SyntaxError
	}{
		{`skills HAS`, SyntaxError{Pos: 10, Expected: "a key or a constant (string, number, true, false, [list])", Found: "end of expression"}},
		{`skills`, SyntaxError{Pos: 6, Expected: "a comparison operator (==, !=, <, <=, >, >=, HAS, CONTAINS, IN, NOT IN) after skills", Found: "end of expression"}},
		{`(a == 1`, SyntaxError{Pos: 7, Expected: `")" to close the "(" at column 1`, Found: "end of expression"}},
		{`a == 'x`, SyntaxError{Pos: 5, Expected: "a closing ' for the string starting here", Found: "end of expression"}},
		{`first-name == 'x'`, SyntaxError{Pos: 5, Expected: "a key without hyphens (TaskRouter expressions do not support them)", Found: `"-"`}},
		{`a == 1 b == 2`, SyntaxError{Pos: 7, Expected: "AND, OR or the end of the expression", Found: `"b"`}},
		{`a NOT b`, SyntaxError{Pos: 6, Expected: `IN after NOT (as in "x NOT IN [..]")`, Found: `"b"`}},
		{`a IN [1, 2`, SyntaxError{Pos: 10, Expected: `"," or "]" in the list starting at column 6`, Found: "end of expression"}},
		{`a[x] == 1`, SyntaxError{Pos: 2, Expected: "an array index (0, 1, ...) after a[", Found: `"x"`}},
		{`a == 1 AND`, SyntaxError{Pos: 10, Expected: "a key or a constant (string, number, true, false, [list])", Found: "end of expression"}},
		{`a ! 1`, SyntaxError{Pos: 2, Expected: "an operator (!= needs its =)", Found: `"!"`}},
		{`AND == 1`, SyntaxError{Pos: 0, Expected: "a key or a constant", Found: `"AND"`}},
		{`a == #`, SyntaxError{Pos: 5, Expected: "a key, a constant, an operator or a parenthesis", Found: `'#'`}},
		// "->" (HAS) ending the expression is still the operator, missing its right side; a
		// lone "-" ending it is an unexpected character (no read past the end).
		{`skills ->`, SyntaxError{Pos: 9, Expected: "a key or a constant (string, number, true, false, [list])", Found: "end of expression"}},
		{`a == -`, SyntaxError{Pos: 5, Expected: "a key, a constant, an operator or a parenthesis", Found: `'-'`}},
		// The same right after a key: "->" is HAS, a hyphen ending the key is refused.
		{`skills->`, SyntaxError{Pos: 8, Expected: "a key or a constant (string, number, true, false, [list])", Found: "end of expression"}},
		{`first-`, SyntaxError{Pos: 5, Expected: "a key without hyphens (TaskRouter expressions do not support them)", Found: `"-"`}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := Parse(tt.src)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error = %v, want a *SyntaxError", tt.src, err)
			}
			// Every case is one line: the column is the offset plus one.
			tt.want.Line, tt.want.Column = 1, tt.want.Pos+1
			if diff := cmp.Diff(tt.want, *se); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

func TestErrorMessageNamesColumn(t *testing.T) {
	_, err := Parse(`skills HAS`)
	want := "expression: column 11: expected a key or a constant (string, number, true, false, [list]), found end of expression"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		src  string
		def  Scope
		want Usage
	}{
		{`skills HAS "a"`, ScopeWorker, Usage{}},
		{`taskrouter.currentTime > 800`, ScopeTask, Usage{Time: true}},
		{`worker.languages HAS task.language`, ScopeWorker, Usage{CrossScope: true}},
		{`task.language IN languages`, ScopeWorker, Usage{CrossScope: true}},
		{`worker.sid == task.agent`, ScopeWorker, Usage{CrossScope: true, KnownWorker: true}},
		{`worker.friendly_name == "alice"`, ScopeWorker, Usage{KnownWorker: true}},
	}
	for _, tt := range tests {
		n, err := Parse(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, Analyze(n, tt.def)); diff != "" {
			t.Errorf("Analyze(%s) (-want +got):\n%s", tt.src, diff)
		}
	}
}

func TestSkillTerms(t *testing.T) {
	tests := []struct {
		src    string
		want   []Term
		wantOK bool
	}{
		{`(skills HAS 'support') AND (languages HAS 'english')`,
			[]Term{{Key: "skills", Op: OpHas, Value: "support"}, {Key: "languages", Op: OpHas, Value: "english"}}, true},
		{`team == "sales" AND routing.level == 2`, []Term{{Key: "team", Op: OpEq, Value: "sales"}, {Key: "routing.level", Op: OpEq, Value: "2"}}, true},
		{`skills HAS 'a' OR skills HAS 'b'`, nil, false},
		{`rating > 3`, nil, false},
		{`worker.skills HAS task.skill`, nil, false},
		{`sid == "WK1"`, nil, false},
	}
	for _, tt := range tests {
		n, err := Parse(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := SkillTerms(n, ScopeWorker)

		if ok != tt.wantOK {
			t.Errorf("SkillTerms(%s) ok = %v, want %v", tt.src, ok, tt.wantOK)
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Term{}, "Source")); diff != "" {
			t.Errorf("SkillTerms(%s) (-want +got):\n%s", tt.src, diff)
		}
	}
	if got := (Term{Key: "skills", Op: OpHas, Value: "a"}).Tag(); got != "skills:a" {
		t.Errorf("tag = %q", got)
	}
	// A term's Source evaluates the term alone, with the constant's own type.
	n, _ := Parse(`skills HAS "a" AND manager == true AND tiers[1] == 2`)
	terms, _ := SkillTerms(n, ScopeWorker)
	worker := map[string]any{"skills": []any{"b"}, "manager": true, "tiers": []any{1.0, 2.0}}
	var got []bool
	for _, term := range terms {
		got = append(got, Eval(term.Source, &Env{Default: ScopeTask, Worker: worker}))
	}
	if diff := cmp.Diff([]bool{false, true, true}, got); diff != "" {
		t.Errorf("terms alone (-want +got):\n%s", diff)
	}
}

func TestIsTrue(t *testing.T) {
	for src, want := range map[string]bool{`1==1`: true, `1 == 2`: false, `a == a`: false, `"x" = "x"`: true} {
		n, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := IsTrue(n); got != want {
			t.Errorf("IsTrue(%s) = %v, want %v", src, got, want)
		}
	}
}

// FuzzParse checks that any input parses or fails with a *SyntaxError (at a place inside the
// input, quoting a short excerpt), never panics, and that a parsed tree prints as an
// expression that parses to the same tree. Its seeds are the inputs below, expressions of
// the grammar generator, and the files under testdata/fuzz/FuzzParse (long chains, nesting at
// the limit); `go test` runs the seeds only.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`(skills HAS 'support') AND (languages HAS 'english')`,
		`customer_value == 'Gold' AND type == 'ticket'`,
		`language IN ["en", "es"]`, `object.array[2] == "c"`, `a NOT IN [1, 2.5, true]`,
		`taskrouter.currentTime > 0800`, `worker.id IN task.preferred_agents`, `NOT (a -> "x")`,
		`a == 'unterminated`, `((((`, `x-y == 1`, `.5 < a.b`, `a == 1 AND NOT .5 < b`,
		"a == 1\nAND\n  b ==", `a == 1 AND (b == 2 OR c == 3)`, `NOT (a == 1 OR b == 2) AND c > -1e-3`,
	} {
		f.Add(s)
	}
	g := newExprGen(2)
	for i := 0; i < 20; i++ {
		f.Add(g.expression())
	}
	f.Fuzz(func(t *testing.T, src string) {
		n, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q): %T %v, want *SyntaxError", src, err, err)
			}
			if se.Pos < 0 || se.Pos > len(src) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("Parse(%q): position %d (line %d, column %d) outside the input", src, se.Pos, se.Line, se.Column)
			}
			if len(se.Found) > 4*excerptMax+20 {
				t.Fatalf("Parse(%q): found %d bytes long, want a short excerpt", src, len(se.Found))
			}
			return
		}
		printed := n.String()
		again, err := Parse(printed)
		if err != nil {
			t.Fatalf("Parse(%q) printed %q, which does not parse: %v", src, printed, err)
		}
		if !sameTree(n, again) {
			t.Fatalf("round trip of %q through %q changed the tree:\n%s\n%s", src, printed, dump(n), dump(again))
		}
		if again.String() != printed {
			t.Fatalf("round trip of %q: %q then %q", src, printed, again.String())
		}
		Eval(n, &Env{Default: ScopeTask, Task: map[string]any{"a": []any{"x"}}})
	})
}
