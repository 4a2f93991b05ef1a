package e2e

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fuzzTargets are the fuzz functions docs/reliability.md section 5 relies on, by package directory
// relative to the module root. Their seed corpora run in every plain `go test` of their
// package; TestFuzzTargetsLong runs each with the fuzzing engine for a fixed time.
var fuzzTargets = []struct{ dir, name string }{
	{"webhook", "FuzzParseHeader"},       // the signature header parser
	{"webhook", "FuzzVerify"},            // Verify on arbitrary bodies, headers and clocks
	{"mockserver", "FuzzCreateTaskBody"}, // the mock server's POST /tasks decoding and validation
	{".", "FuzzDecodeResponses"},         // the client's response decoding
}

// TestFuzzTargetsExist fails when a fuzz target this package's long mode runs, and
// docs/reliability.md cites, is renamed or removed.
func TestFuzzTargetsExist(t *testing.T) {
	t.Parallel()
	for _, ft := range fuzzTargets {
		assert.True(t, declares(t, filepath.Join("..", "..", ft.dir), ft.name), "%s declares %s", ft.dir, ft.name)
	}
}

// declares reports whether a _test.go file of dir declares the function name.
func declares(t *testing.T, dir, name string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	require.NoError(t, err)
	for _, f := range files {
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range parsed.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name {
				return true
			}
		}
	}
	return false
}

// TestFuzzTargetsLong runs every fuzz target with the fuzzing engine for a fixed time (30s
// each, or TASKROUTING_FUZZTIME) with TASKROUTING_LONG=1. The fuzzer needs its own `go test`
// per target, so this test starts one; new crashers land in the target package's
// testdata/fuzz, where the next plain run replays them.
func TestFuzzTargetsLong(t *testing.T) {
	if !long() {
		t.Skip("set TASKROUTING_LONG=1 to fuzz each target for a fixed time")
	}
	fuzzTime := 30 * time.Second
	if v := os.Getenv("TASKROUTING_FUZZTIME"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "TASKROUTING_FUZZTIME")
		fuzzTime = d
	}
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	for _, ft := range fuzzTargets {
		t.Run(strings.TrimPrefix(ft.dir+"/"+ft.name, "./"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), fuzzTime+5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, goBin, "test", "-run", "^$", "-fuzz", "^"+ft.name+"$",
				"-fuzztime", fuzzTime.String(), "./"+ft.dir)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			t.Logf("%s: %s", ft.name, lines[max(0, len(lines)-3)])
			assert.NoError(t, err, "%s", out)
		})
	}
}
