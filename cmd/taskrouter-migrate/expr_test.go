package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExprErrorShowsTheLineAndPlace: an expression that does not parse is quoted by the line
// the parser stopped on, at most 40 bytes either side of the place, with the caret under it.
func TestExprErrorShowsTheLineAndPlace(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	tests := []struct {
		name, src, want string
	}{
		{"one line", `skills HAS`, "expression: column 11: expected a key or a constant (string, number, true, false, [list]), found end of expression\n  skills HAS\n            ^"},
		{"the failing line of several", "a == 1\nAND b ! 2\nOR c == 3",
			"expression: line 2, column 7: expected an operator (!= needs its =), found \"!\"\n  AND b ! 2\n        ^"},
		{"a megabyte before and after the place", long + " == 1 b == 2 " + long,
			"expression: column 1048583: expected AND, OR or the end of the expression, found \"b\"\n  …" +
				strings.Repeat("x", 34) + " == 1 b == 2 " + strings.Repeat("x", 33) + "…\n" + strings.Repeat(" ", 2+1+40) + "^"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, "expr", tt.src)
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
