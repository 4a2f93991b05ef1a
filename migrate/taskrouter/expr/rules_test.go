package expr

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// evalCase is one expression against one task document (a filter: keys read the task).
type evalCase struct {
	name, src, task string
	want            bool
}

func runEvalCases(t *testing.T, tests []evalCase, now time.Time) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse(%s): %v", tt.src, err)
			}
			task := "{}"
			if tt.task != "" {
				task = tt.task
			}
			env := &Env{Default: ScopeTask, Task: mustAttrs(t, task), Now: now}
			if got := Eval(n, env); got != tt.want {
				t.Errorf("Eval(%s) on %s = %v, want %v", tt.src, task, got, tt.want)
			}
		})
	}
}

// TestEvalOrderingAtEquality: each ordering operator at, below and above the boundary, for
// numbers, numeric strings and strings.
func TestEvalOrderingAtEquality(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"<= on equal numbers", `level <= 3`, `{"level": 3}`, true},
		{">= on equal numbers", `level >= 3`, `{"level": 3}`, true},
		{"< on equal numbers", `level < 3`, `{"level": 3}`, false},
		{"> on equal numbers", `level > 3`, `{"level": 3}`, false},
		{"<= below", `level <= 3`, `{"level": 2}`, true},
		{"<= above", `level <= 3`, `{"level": 4}`, false},
		{">= below", `level >= 3`, `{"level": 2}`, false},
		{">= above", `level >= 3`, `{"level": 4}`, true},
		{"< below", `level < 3`, `{"level": 2.5}`, true},
		{"> above", `level > 3`, `{"level": 3.5}`, true},
		{"<= on equal strings", `tier <= "gold"`, `{"tier": "gold"}`, true},
		{">= on equal strings", `tier >= "gold"`, `{"tier": "gold"}`, true},
		{"< on equal strings", `tier < "gold"`, `{"tier": "gold"}`, false},
		{"> on strings", `tier > "gold"`, `{"tier": "silver"}`, true},
		{"<= numeric string equal to the number", `level <= 8`, `{"level": "8"}`, true},
		{">= number equal to the numeric string", `8 >= level`, `{"level": "8"}`, true},
		{"numeric string against a number orders by value", `level > 9`, `{"level": "10"}`, true},
		{"number against a numeric string orders by value", `9 < level`, `{"level": "10"}`, true},
		{"two strings order by bytes", `level > "9"`, `{"level": "10"}`, false},
		{"a word against a number has no order", `level < 5`, `{"level": "abc"}`, false},
		{"a word against a number has no order, >=", `level >= 5`, `{"level": "abc"}`, false},
		{"a missing key has no order", `level <= 5`, `{}`, false},
		{"booleans have no order", `flag >= false`, `{"flag": true}`, false},
	}, time.Time{})
}

// TestEvalStringAgainstNumber: a string holding a number equals that number (the package
// doc says why); strings among themselves compare exactly.
func TestEvalStringAgainstNumber(t *testing.T) {
	runEvalCases(t, []evalCase{
		{`"8" == 8`, `"8" == 8`, ``, true},
		{`8 == "8"`, `8 == "8"`, ``, true},
		{`"8" != 8`, `"8" != 8`, ``, false},
		{`attribute "8" == 8`, `level == 8`, `{"level": "8"}`, true},
		{`attribute 8 == "8"`, `level == "8"`, `{"level": 8}`, true},
		{`"8.0" == 8`, `"8.0" == 8`, ``, true},
		{`"08" == 8`, `"08" == 8`, ``, true},
		{`"8" == 9`, `"8" == 9`, ``, false},
		{`"eight" == 8`, `"eight" == 8`, ``, false},
		{`"8" == "8.0": strings compare exactly`, `"8" == "8.0"`, ``, false},
		{`"Gold" == "gold": case counts`, `"Gold" == "gold"`, ``, false},
		{`true == "true"`, `true == "true"`, ``, false},
		{`1 == true`, `1 == true`, ``, false},
		{`8 IN ["8"]`, `8 IN ["8"]`, ``, true},
		{`skills HAS 8 on ["8"]`, `skills HAS 8`, `{"skills": ["8"]}`, true},
		{`missing == missing: null equals nothing`, `a == b`, `{}`, false},
		{`missing != missing`, `a != b`, `{}`, true},
		{`an array equals nothing`, `a == b`, `{"a": [1], "b": [1]}`, false},
	}, time.Time{})
}

// TestEvalNegativeConstants: a minus sign belongs to the number after it, in any position.
func TestEvalNegativeConstants(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"greater than a negative", `balance > -5`, `{"balance": -3}`, true},
		{"below a negative", `balance > -5`, `{"balance": -7}`, false},
		{"no space after the operator", `balance>=-5`, `{"balance": -5}`, true},
		{"negative fraction", `balance == -2.5`, `{"balance": -2.5}`, true},
		{"negative without a leading digit", `balance == -.5`, `{"balance": -0.5}`, true},
		{"negative exponent", `balance == -1e-3`, `{"balance": -0.001}`, true},
		{"negative on the left", `-1 < balance`, `{"balance": 0}`, true},
		{"negative in a list", `balance IN [-1, -2]`, `{"balance": -2}`, true},
		{"negative is not positive", `balance == -2`, `{"balance": 2}`, false},
		{"negative against a numeric string", `balance == -2`, `{"balance": "-2"}`, true},
	}, time.Time{})
	n, err := Parse(`a > -5`)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := n.(*Compare).R.(*Const); !ok || c.Value != -5.0 {
		t.Errorf("Parse(a > -5) right operand = %#v, want the constant -5", n.(*Compare).R)
	}
}

// TestNestingLimit: maxDepth levels of parentheses, NOT or lists parse; one more fails with a
// *SyntaxError naming the limit.
func TestNestingLimit(t *testing.T) {
	nest := func(depth int) map[string]string {
		return map[string]string{
			"parentheses": strings.Repeat("(", depth) + "a == 1" + strings.Repeat(")", depth),
			"NOT":         strings.Repeat("NOT ", depth) + "a == 1",
			"lists":       "a IN " + strings.Repeat("[", depth) + strings.Repeat("]", depth),
			"mixed":       strings.Repeat("NOT (", depth/2) + "a IN [1]" + strings.Repeat(")", depth/2),
		}
	}
	if maxDepth != 200 {
		t.Fatalf("maxDepth = %d; the documented limit is 200", maxDepth)
	}
	for name, src := range nest(maxDepth) {
		if _, err := Parse(src); err != nil {
			t.Errorf("%s %d deep: %v", name, maxDepth, err)
		}
	}
	for name, src := range nest(maxDepth + 2) {
		_, err := Parse(src)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Expected, "at most 200 levels of nesting") {
			t.Errorf("%s %d deep: error %v, want the nesting limit", name, maxDepth+2, err)
		}
	}
}

// TestClockValuesAreUTC: the taskrouter.* values are UTC whatever the zone of Env.Now (the
// documentation states each in UTC), with currentHour and currentMin as two-digit strings.
func TestClockValuesAreUTC(t *testing.T) {
	// 09:05 UTC on Monday 2026-11-30, given as 14:05 at UTC+5 and 23:05 Sunday at UTC-10.
	utc := time.Date(2026, 11, 30, 9, 5, 0, 0, time.UTC)
	for _, now := range []time.Time{utc, utc.In(time.FixedZone("UTC+5", 5*3600)), utc.In(time.FixedZone("UTC-10", -10*3600))} {
		t.Run(now.Format(time.RFC3339), func(t *testing.T) {
			runEvalCases(t, []evalCase{
				{"currentTime is HHMM", `taskrouter.currentTime == 905`, ``, true},
				{"currentTime is a number", `taskrouter.currentTime > 900 AND taskrouter.currentTime < 910`, ``, true},
				{"currentHour is HH", `taskrouter.currentHour == "09"`, ``, true},
				{"currentHour against a number", `taskrouter.currentHour == 9`, ``, true},
				{"currentMin is MM", `taskrouter.currentMin == "05"`, ``, true},
				{"dayOfWeek is the UTC day", `taskrouter.dayOfWeek == "Mon"`, ``, true},
				{"dayOfWeek ignores case", `taskrouter.dayOfWeek == "MON"`, ``, true},
				{"dayOfWeek on the right", `"mon" == taskrouter.dayOfWeek`, ``, true},
				{"dayOfWeek in a list", `taskrouter.dayOfWeek IN ["sun", "MON"]`, ``, true},
				{"dayOfWeek is not the local day", `taskrouter.dayOfWeek == "Sun"`, ``, false},
				{"dayOfWeek CONTAINS", `taskrouter.dayOfWeek CONTAINS "o"`, ``, true},
				{"dayOfWeek orders as a string", `taskrouter.dayOfWeek < "N"`, ``, true},
				{"an unknown clock value is null", `taskrouter.currentSecond == 0`, ``, false},
				{"a clock value has no members", `taskrouter.currentTime.x == 905`, ``, false},
			}, now)
		})
	}
}

// TestClockValuesIgnoreTheLocalZone: the machine's zone plays no part (a migration tool
// runs wherever its user is). The test moves time.Local for its duration, so it is not
// parallel.
func TestClockValuesIgnoreTheLocalZone(t *testing.T) {
	saved := time.Local
	time.Local = time.FixedZone("UTC+5", 5*3600)
	t.Cleanup(func() { time.Local = saved })
	now := time.Date(2026, 11, 30, 23, 5, 0, 0, time.UTC) // Monday 23:05 UTC, Tuesday 04:05 at UTC+5
	runEvalCases(t, []evalCase{
		{"currentTime", `taskrouter.currentTime == 2305`, ``, true},
		{"currentHour", `taskrouter.currentHour == "23"`, ``, true},
		{"dayOfWeek", `taskrouter.dayOfWeek == "Mon"`, ``, true},
	}, now)
}

// TestEvalEdges: rules found by breaking the evaluator one line at a time.
func TestEvalEdges(t *testing.T) {
	monday := time.Date(2026, 11, 30, 9, 5, 0, 0, time.UTC)
	runEvalCases(t, []evalCase{
		// HAS and IN compare a day name without regard to case, like ==.
		{"an array HAS the day, lower case", `open_days HAS taskrouter.dayOfWeek`, `{"open_days": ["sun", "mon"]}`, true},
		{"an array HAS the day, other days", `open_days HAS taskrouter.dayOfWeek`, `{"open_days": ["sun", "tue"]}`, false},
		{"the day IN an attribute", `taskrouter.dayOfWeek IN open_days`, `{"open_days": ["MON"]}`, true},
		{"a day equals itself", `taskrouter.dayOfWeek == taskrouter.dayOfWeek`, ``, true},
		{"a day is no number", `taskrouter.dayOfWeek == 1`, ``, false},
		// A numeric string is read as the number around any spaces (as JSON attributes
		// written by hand often carry them).
		// CONTAINS takes a string on its right: a number finds nothing.
		{"CONTAINS a number", `code CONTAINS 1`, `{"code": "x1"}`, false},
		{"CONTAINS a number in an array", `codes CONTAINS 1`, `{"codes": ["x1"]}`, false},
		{"spaces around a numeric string", `level == 8`, `{"level": " 8 "}`, true},
		{"spaces around a numeric string, order", `level > 7`, `{"level": "8 "}`, true},
	}, monday)
}

// TestEvalWorkerProperties: worker.sid, worker.activity_name and the other properties are
// the worker's own, before its attributes; a longer path reads the attributes.
func TestEvalWorkerProperties(t *testing.T) {
	worker := map[string]any{"activity_name": map[string]any{"x": "attr"}, "team": "sales"}
	props := map[string]any{"activity_name": "Available", "sid": "WK1"}
	tests := []struct {
		src  string
		want bool
	}{
		{`worker.activity_name == "Available"`, true},
		{`activity_name == "Available"`, true},
		{`worker.activity_name.x == "attr"`, true},
		{`worker.activity_name.x == "Available"`, false},
		{`worker.sid == "WK1"`, true},
		{`worker.team == "sales"`, true},
		{`worker.sid.x == "WK1"`, false},
	}
	for _, tt := range tests {
		n, err := Parse(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		env := &Env{Default: ScopeWorker, Worker: worker, WorkerProps: props}
		if got := Eval(n, env); got != tt.want {
			t.Errorf("Eval(%s) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

// TestAttributes: blank attributes are an empty object (the platform's default "{}"); text
// that is not JSON is an error.
func TestAttributes(t *testing.T) {
	for _, s := range []string{"", "  ", "\n\t"} {
		v, err := Attributes(s)
		if err != nil {
			t.Errorf("Attributes(%q): %v", s, err)
		}
		if m, ok := v.(map[string]any); !ok || len(m) != 0 {
			t.Errorf("Attributes(%q) = %#v, want an empty object", s, v)
		}
	}
	if _, err := Attributes(`{"a":`); err == nil {
		t.Error(`Attributes("{\"a\":") succeeded, want an error`)
	}
}

// TestParseEdges: what the parser makes of keys, escapes and numbers at the edges.
func TestParseEdges(t *testing.T) {
	tests := []struct {
		src  string
		want string // the tree printed, or the error's Expected
	}{
		{`task == 1`, `task == 1`}, // a lone "task" is a key of the default document
		{`task.task == 1`, `task.task == 1`},
		{`'it\'s' == "a\"b\\"`, `"it's" == "a\"b\\"`},
		{`a == 1 AND .5 < b`, `a == 1 AND 0.5 < b`},
		{`a == 1 AND NOT .5 < b`, `a == 1 AND NOT 0.5 < b`},
		{`a.b[0][12].c == 1`, `a.b[0][12].c == 1`},
		{`a[-1] == 1`, "an array index (0, 1, ...) after a["},
		{`a[1.5] == 1`, "an array index (0, 1, ...) after a["},
		{`a.5 == 1`, "a member name after a."},
		{`a.`, "a member name after a."},
		{`a == 'x\''`, `a == "x'"`},
		{`a == 'x\'`, "a closing ' for the string starting here"},
		{`a == 'x\`, "a closing '"},
		{`a == b-`, "a key without hyphens (TaskRouter expressions do not support them)"},
		{"@a == 1", "a key, a constant, an operator or a parenthesis"},
		{"`a` == 1", "a key, a constant, an operator or a parenthesis"},
		{"a == 1 AND {", "a key, a constant, an operator or a parenthesis"},
		{"Z_$9 == 1", "Z_$9 == 1"},
		{`a == 1 AND .`, "a key or a constant (string, number, true, false, [list])"},
		{`a == 1e400`, "a number"},
		{`a == 1..2`, "a number"},
		{`contains == 1`, "a key or a constant"},
		{`a HAS`, "a key or a constant (string, number, true, false, [list])"},
	}
	for _, tt := range tests {
		n, err := Parse(tt.src)
		var got string
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%s): %v", tt.src, err)
			}
			got = se.Expected
		} else {
			got = n.String()
		}
		if got != tt.want {
			t.Errorf("Parse(%s) = %s, want %s", tt.src, got, tt.want)
		}
	}
	n, _ := Parse(`task == 1`)
	if k := n.(*Compare).L.(*Key); k.Scope != ScopeDefault {
		t.Errorf("a lone task key has scope %q, want the default", k.Scope)
	}
}

// TestSkillTermsAndIsTrueEdges: a fractional constant keeps its digits in a tag, and IsTrue is
// false for anything but a single comparison.
func TestSkillTermsAndIsTrueEdges(t *testing.T) {
	n, err := Parse(`level == 2.5 AND rate == -0.125`)
	if err != nil {
		t.Fatal(err)
	}
	terms, ok := SkillTerms(n, ScopeWorker)
	var tags []string
	for _, term := range terms {
		tags = append(tags, term.Tag())
	}
	if want := []string{"level=2.5", "rate=-0.125"}; !ok || strings.Join(tags, " ") != strings.Join(want, " ") {
		t.Errorf("SkillTerms tags = %v (ok %v), want %v", tags, ok, want)
	}
	for _, src := range []string{`1 == 1 AND 1 == 1`, `NOT 1 == 2`, `1 == 1 OR 1 == 1`} {
		n, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if IsTrue(n) {
			t.Errorf("IsTrue(%s) = true, want false (not a single comparison)", src)
		}
	}
}

// TestEvalMembership: IN, NOT IN, HAS and CONTAINS as the package doc states them. IN with an
// array on its left is true when any element is in the right side; a scalar is IN an array
// holding it or equal to a scalar; null is in nothing; HAS needs an array on its left;
// CONTAINS is a substring test on a string or on any string element of an array.
func TestEvalMembership(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"an array IN: its first element listed", `langs IN ["en", "fr"]`, `{"langs": ["en", "de"]}`, true},
		{"an array IN: a middle element listed", `langs IN ["fr"]`, `{"langs": ["en", "fr", "de"]}`, true},
		{"an array IN: its last element listed", `langs IN ["de"]`, `{"langs": ["en", "fr", "de"]}`, true},
		{"an array IN: no element listed", `langs IN ["it", "pt"]`, `{"langs": ["en", "fr"]}`, false},
		{"an empty array IN", `langs IN ["en"]`, `{"langs": []}`, false},
		{"an array NOT IN: an element listed", `langs NOT IN ["fr"]`, `{"langs": ["en", "fr"]}`, false},
		{"an array NOT IN: no element listed", `langs NOT IN ["it"]`, `{"langs": ["en", "fr"]}`, true},
		{"an array IN an array attribute", `langs IN spoken`, `{"langs": ["de", "fr"], "spoken": ["en", "fr"]}`, true},
		{"a scalar IN an array attribute", `lang IN spoken`, `{"lang": "fr", "spoken": ["en", "fr"]}`, true},
		{"a scalar IN an equal scalar", `lang IN other`, `{"lang": "fr", "other": "fr"}`, true},
		{"a scalar IN another scalar", `lang IN other`, `{"lang": "fr", "other": "en"}`, false},
		{"null IN an array holding null", `a IN b`, `{"a": null, "b": [null]}`, false},
		{"null NOT IN", `a NOT IN b`, `{"a": null, "b": [null]}`, true},
		{"an array HAS an element", `skills HAS "tech"`, `{"skills": ["sales", "tech"]}`, true},
		{"an array HAS no such element", `skills HAS "tech"`, `{"skills": ["sales"]}`, false},
		{"a string HAS itself: HAS needs an array", `skill HAS "tech"`, `{"skill": "tech"}`, false},
		{"-> is HAS", `skills -> "tech"`, `{"skills": ["tech"]}`, true},
		{"CONTAINS in a string", `name CONTAINS "ill"`, `{"name": "billing"}`, true},
		{"CONTAINS not in a string", `name CONTAINS "x"`, `{"name": "billing"}`, false},
		{"CONTAINS in a later string element", `names CONTAINS "ill"`, `{"names": [1, "sales", "billing"]}`, true},
		{"CONTAINS in no string element", `names CONTAINS "ill"`, `{"names": [1, "sales"]}`, false},
		{"CONTAINS on a number", `n CONTAINS "1"`, `{"n": 1}`, false},
	}, time.Time{})
}
