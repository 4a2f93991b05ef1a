package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRunRejectsBadUse(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no package", args: nil, want: "-pkg is required"},
		{name: "positional argument", args: []string{"-pkg", ".", "extra"}, want: "-pkg is required"},
		{name: "unknown flag", args: []string{"-pkg", ".", "-nope"}, want: "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tt.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit = %d, want 2", code)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr = %q, want it to hold %q", stderr.String(), tt.want)
			}
		})
	}
}

// TestListNamesEveryMutant runs -list on the tiny test module: nothing is tested, every mutant
// is printed with its path, line, kind and mutated line.
func TestListNamesEveryMutant(t *testing.T) {
	t.Setenv("GOWORK", "off")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-C", "../../testdata/tiny", "-pkg", ".", "-list", "-kinds", "swap,boundary"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit = %d, stderr:\n%s", code, stderr.String())
	}
	want := "example.com/tiny: 2 mutants, 2 chosen\n" +
		"  tiny.go:7: swap: if b > a {\n" +
		"  tiny.go:7: boundary: if a >= b {\n"
	if got := stdout.String(); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
}
