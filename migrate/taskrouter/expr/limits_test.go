package expr

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

const megabyte = 1 << 20

// heapBytes is what f allocates on the heap.
func heapBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileInputFailsFast: an input that fails early is not read past the failure. A
// megabyte of "(" fails at the nesting limit having allocated a few kilobytes, not a token
// per byte.
func TestHostileInputFailsFast(t *testing.T) {
	tests := []struct {
		name, src   string
		wantPos     int
		wantErrPart string
	}{
		{"a megabyte of (", strings.Repeat("(", megabyte), maxDepth + 1, "at most 200 levels of nesting"},
		{"a megabyte of NOT", strings.Repeat("NOT ", megabyte/4), 4 * (maxDepth + 1), "at most 200 levels of nesting"},
		{"a megabyte of [", "a IN " + strings.Repeat("[", megabyte), 5 + maxDepth + 1, "at most 200 levels of nesting"},
		{"a missing operator, then a megabyte", "a b" + strings.Repeat(" c", megabyte/2), 2, "a comparison operator"},
		{"a megabyte after an early lexical error", "a ! 1 AND " + strings.Repeat("x == 1 AND ", megabyte/11), 2, "!= needs its ="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			allocated := heapBytes(func() { _, err = Parse(tt.src) })
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse error = %v, want a *SyntaxError", err)
			}
			if se.Pos != tt.wantPos || !strings.Contains(se.Error(), tt.wantErrPart) {
				t.Errorf("error at offset %d: %v; want offset %d and %q", se.Pos, se, tt.wantPos, tt.wantErrPart)
			}
			// The input is a megabyte; what a parse that stops early allocates is bounded by
			// the nesting limit, not by the input.
			if allocated > 64<<10 {
				t.Errorf("Parse allocated %d bytes before failing, want at most 64 KiB", allocated)
			}
		})
	}
	allocs := testing.AllocsPerRun(5, func() { _, _ = Parse(strings.Repeat("(", megabyte)) })
	if allocs > 50 {
		t.Errorf("a megabyte of ( : %.0f allocations per Parse, want at most 50", allocs)
	}
}

// TestErrorsQuoteAnExcerpt: an error about a huge token or operand quotes at most 40 bytes of
// it, with an ellipsis, so the message stays short.
func TestErrorsQuoteAnExcerpt(t *testing.T) {
	long := strings.Repeat("é", megabyte/2) // two bytes a character: the cut must not split one
	tests := []struct {
		name, src, wantExpected, wantFound string
	}{
		{"a long string where an operator belongs", `a '` + long + `'`,
			"a comparison operator (==, !=, <, <=, >, >=, HAS, CONTAINS, IN, NOT IN) after a",
			`string "` + strings.Repeat("é", 20) + `…"`},
		{"a long key with no operator", strings.Repeat("k", megabyte),
			"a comparison operator (==, !=, <, <=, >, >=, HAS, CONTAINS, IN, NOT IN) after " + strings.Repeat("k", 40) + "…",
			"end of expression"},
		{"a long list with no operator", "[" + strings.Repeat("1, ", 64<<10) + "1] )",
			"a comparison operator (==, !=, <, <=, >, >=, HAS, CONTAINS, IN, NOT IN) after [" + strings.Repeat("1, ", 13) + "…",
			`")"`},
		{"a long string of bytes that are not UTF-8", `a '` + strings.Repeat("\x80", 100) + `'`,
			"a comparison operator (==, !=, <, <=, >, >=, HAS, CONTAINS, IN, NOT IN) after a",
			`string "` + strings.Repeat(`\x80`, excerptMax-utf8.UTFMax) + `…"`},
		{"an identifier of exactly 40 bytes", "a == 1 " + strings.Repeat("b", excerptMax),
			"AND, OR or the end of the expression", `"` + strings.Repeat("b", excerptMax) + `"`},
		{"a long number", "a == " + strings.Repeat("1.", megabyte/2),
			"a number", "number " + strings.Repeat("1.", 20) + "…"},
		{"a long identifier after a comparison", "a == 1 " + strings.Repeat("b", megabyte),
			"AND, OR or the end of the expression", `"` + strings.Repeat("b", 40) + `…"`},
		{"a long member path", strings.Repeat("a.", 64<<10) + "5 == 1",
			"a member name after " + strings.Repeat("a.", 20) + "…", "number 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.src)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse error = %v, want a *SyntaxError", err)
			}
			got := [2]string{se.Expected, se.Found}
			if diff := cmp.Diff([2]string{tt.wantExpected, tt.wantFound}, got); diff != "" {
				t.Errorf("Expected, Found (-want +got):\n%s", diff)
			}
			if n := len(err.Error()); n > 300 {
				t.Errorf("the message is %d bytes long, want at most 300", n)
			}
		})
	}
}

// TestSyntaxErrorLineAndColumn: an expression on several lines (as in a workflow's JSON)
// gets the line and the column within it.
func TestSyntaxErrorLineAndColumn(t *testing.T) {
	tests := []struct {
		src  string
		want SyntaxError
		msg  string
	}{
		{"a == 1\nAND\n  b ==", SyntaxError{Pos: 17, Line: 3, Column: 7, Expected: "a key or a constant (string, number, true, false, [list])", Found: "end of expression"},
			"expression: line 3, column 7: expected a key or a constant (string, number, true, false, [list]), found end of expression"},
		{"a == 1\r\n  OR b # 2", SyntaxError{Pos: 15, Line: 2, Column: 8, Expected: "a key, a constant, an operator or a parenthesis", Found: "'#'"},
			"expression: line 2, column 8: expected a key, a constant, an operator or a parenthesis, found '#'"},
		{"(a == 1\n", SyntaxError{Pos: 8, Line: 2, Column: 1, Expected: `")" to close the "(" at column 1`, Found: "end of expression"},
			`expression: line 2, column 1: expected ")" to close the "(" at column 1, found end of expression`},
		{"a == 1 b", SyntaxError{Pos: 7, Line: 1, Column: 8, Expected: "AND, OR or the end of the expression", Found: `"b"`},
			`expression: column 8: expected AND, OR or the end of the expression, found "b"`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Parse(%q) error = %v, want a *SyntaxError", tt.src, err)
		}
		if diff := cmp.Diff(tt.want, *se); diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tt.src, diff)
		}
		if err.Error() != tt.msg {
			t.Errorf("Parse(%q) message %q, want %q", tt.src, err.Error(), tt.msg)
		}
	}
}

// TestStringAllocatesLinearly: printing allocates a small multiple of what it prints (a
// growing buffer copies itself: about 5x in all, as append grows a large slice by a quarter),
// for a chain of 20k comparisons and a list of 256 KiB, where
// printing each node into a new string allocated gigabytes.
func TestStringAllocatesLinearly(t *testing.T) {
	list := "a IN [" + strings.Repeat("1, ", megabyte/12) + "1]"
	for name, src := range map[string]string{"20k comparisons": chainSource(20000), "a list of 256 KiB": list} {
		n, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		var printed string
		allocated := heapBytes(func() { printed = n.String() })
		if allocated > 8*uint64(len(printed)) {
			t.Errorf("%s: String allocated %d bytes for %d printed, want at most 8x", name, allocated, len(printed))
		}
	}
}

// TestLongStringIsNotCopied: a string constant without escapes is a slice of the source: a
// megabyte-long one costs no megabyte more.
func TestLongStringIsNotCopied(t *testing.T) {
	src := `a == '` + strings.Repeat("x", megabyte) + `'`
	var n Node
	var err error
	allocated := heapBytes(func() { n, err = Parse(src) })
	if err != nil {
		t.Fatal(err)
	}
	if got := n.(*Compare).R.(*Const).Value.(string); len(got) != megabyte {
		t.Fatalf("the constant is %d bytes long, want %d", len(got), megabyte)
	}
	if allocated > 64<<10 {
		t.Errorf("Parse allocated %d bytes, want at most 64 KiB", allocated)
	}
}
