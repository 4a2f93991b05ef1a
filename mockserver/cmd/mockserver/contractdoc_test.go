package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/taskrouting/taskrouting-go/internal/contract"
)

// contractSection returns the lines of docs/contract.md from the heading that starts with
// heading up to the next heading of the same or a higher level.
func contractSection(t *testing.T, heading string) []string {
	t.Helper()
	raw, err := os.ReadFile("../../../docs/contract.md")
	require.NoError(t, err)
	level := strings.Index(heading, " ")
	var out []string
	in := false
	for _, l := range strings.Split(string(raw), "\n") {
		if in && strings.HasPrefix(l, "#") {
			if n := strings.Index(l, " "); n > 0 && n <= level && strings.Trim(l[:n], "#") == "" {
				break
			}
		}
		if strings.HasPrefix(l, heading) {
			in = true
		}
		if in {
			out = append(out, l)
		}
	}
	require.NotEmpty(t, out, "docs/contract.md has no %q", heading)
	return out
}

// tableRows returns the cells of every body row of the markdown tables in lines.
func tableRows(lines []string) [][]string {
	var rows [][]string
	for _, l := range lines {
		if !strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "| ---") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) > 0 {
		rows = rows[1:] // the header
	}
	return rows
}

var docFlag = regexp.MustCompile("`(-[a-z][a-z0-9-]*)`")

// TestContractFlagTableMatchesTheFlags: docs/contract.md section 9, "Standalone binary", has
// a row for every flag the command defines (as -h lists them) and none it does not.
func TestContractFlagTableMatchesTheFlags(t *testing.T) {
	documented := map[string]bool{}
	for _, row := range tableRows(contractSection(t, "### Standalone binary")) {
		for _, m := range docFlag.FindAllStringSubmatch(row[0], -1) {
			documented[strings.TrimPrefix(m[1], "-")] = true
		}
	}
	defined := map[string]bool{}
	for _, name := range helpFlags(t) {
		defined[name] = true
	}
	require.NotEmpty(t, defined)
	for name := range defined {
		assert.True(t, documented[name], "flag -%s is not in the flag table of docs/contract.md section 9, \"Standalone binary\"", name)
	}
	for name := range documented {
		assert.True(t, defined[name], "docs/contract.md section 9 documents -%s, which the command does not define", name)
	}
}

// helpFlags returns the names of the flags -h lists: every flag the command defines.
func helpFlags(t *testing.T) []string {
	t.Helper()
	var stderr bytes.Buffer
	err := run(t.Context(), []string{"-h"}, io.Discard, &stderr)
	require.True(t, errors.Is(err, flag.ErrHelp), "%v", err)
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(stderr.String(), -1) {
		names = append(names, m[1])
	}
	return names
}

// TestHelpNamesTheDeliveryMembers: -h lists every member a /_mock/deliveries entry has.
func TestHelpNamesTheDeliveryMembers(t *testing.T) {
	var help bytes.Buffer
	err := run(t.Context(), []string{"-h"}, io.Discard, &help)
	require.True(t, errors.Is(err, flag.ErrHelp), "%v", err)
	text := help.String()
	i := strings.Index(text, "GET    /_mock/deliveries")
	require.GreaterOrEqual(t, i, 0)
	// The member list: from the entry's "[{" to its "}]".
	entry := text[i:]
	entry = entry[strings.Index(entry, "[{"):]
	entry = entry[:strings.Index(entry, "}]")]

	srv := startInProcess(t, "-manual-clock", "-webhook-url", "http://127.0.0.1:1/unreachable")
	st, _ := srv.do("POST", "/v1/workers", `{"id":"a1","tags":["x"],"available":true}`)
	require.Equal(t, 200, st)
	st, _ = srv.do("POST", "/v1/tasks", `{"id":"t1","tags":["x"]}`)
	require.Equal(t, 202, st)
	st, _ = srv.do("POST", "/_mock/flush", "")
	require.Equal(t, 204, st)
	_, ds := srv.do("GET", "/_mock/deliveries", "")
	deliveries := ds["deliveries"].([]any)
	require.NotEmpty(t, deliveries)
	for member := range deliveries[0].(map[string]any) {
		assert.Contains(t, entry, strconv.Quote(member), "-h's /_mock/deliveries entry lacks the member %q", member)
	}
	srv.stop()
}

// TestContractLoopBodiesAreValid plays the bodies of docs/contract.md section 9, "The basic
// loop over HTTP", through the command, each with the status the table gives.
func TestContractLoopBodiesAreValid(t *testing.T) {
	type step struct{ op, method, path, body string }
	steps := map[string]step{}
	status := map[string]int{}
	for _, row := range tableRows(contractSection(t, "### The basic loop over HTTP")) {
		require.Len(t, row, 4, "%q", row)
		op := strings.Trim(row[0], "`")
		method, path, ok := strings.Cut(strings.Trim(row[1], "`"), " ")
		require.True(t, ok, "%q", row[1])
		steps[op] = step{op, method, path, strings.Trim(row[2], "`")}
		code, err := strconv.Atoi(strings.TrimLeft(row[3], "`")[:3])
		require.NoError(t, err, "%q", row[3])
		status[op] = code
	}
	want := []string{"tasks.accept", "tasks.complete", "tasks.create", "tasks.reject", "workers.upsert"}
	require.Empty(t, cmp.Diff(want, slices.Sorted(func(yield func(string) bool) {
		for k := range steps {
			if !yield(k) {
				return
			}
		}
	})))

	// Each decision on a task of its own: accept, then complete; reject.
	for _, flow := range [][]string{{"tasks.accept", "tasks.complete"}, {"tasks.reject"}} {
		srv := startInProcess(t, "-manual-clock")
		ids := map[string]string{}
		for _, op := range append([]string{"workers.upsert", "tasks.create"}, flow...) {
			s := steps[op]
			path := strings.ReplaceAll(s.path, "{id}", ids["task"])
			st, answer := srv.do(s.method, path, s.body)
			assert.Equal(t, status[op], st, "%s %s %s: %v", s.method, path, s.body, answer)
			if op == "tasks.create" {
				ids["task"], _ = answer["id"].(string)
				require.NotEmpty(t, ids["task"])
			}
		}
		srv.stop()
	}
}

// inProcess is the command run in this process with a client for its API.
type inProcess struct {
	client
	stop func() string // stops the command and returns its standard error
}

// startInProcess runs the command with args and returns once its start line is out.
func startInProcess(t *testing.T, args ...string) inProcess {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, outW, &stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		cancel()
		<-done
		t.Fatalf("no start line: %v; standard error:\n%s", err, stderr.String())
	}
	var start startLine
	require.NoError(t, json.Unmarshal([]byte(line), &start))
	stopped := false
	stop := func() string {
		if !stopped {
			stopped = true
			cancel()
			require.NoError(t, <-done)
		}
		return stderr.String()
	}
	t.Cleanup(func() { stop() })
	return inProcess{client: client{t: t, base: strings.TrimSuffix(start.URL, "/v1"), key: start.APIKey}, stop: stop}
}

// TestHelpLoopBodiesAreValid: the basic loop -h shows has valid bodies for its operations,
// checked against api/openapi.json.
func TestHelpLoopBodiesAreValid(t *testing.T) {
	var help bytes.Buffer
	err := run(t.Context(), []string{"-h"}, io.Discard, &help)
	require.True(t, errors.Is(err, flag.ErrHelp), "%v", err)
	spec, err := contract.Default()
	require.NoError(t, err)
	lines := regexp.MustCompile(`(?m)^  POST (/v1/\S+)\s+(\{.*?\})(?:[: ].*)?$`).FindAllStringSubmatch(help.String(), -1)
	require.Len(t, lines, 5, "the loop's five requests in -h")
	for _, m := range lines {
		op, ok := spec.Operation("POST", strings.ReplaceAll(m[1], "{id}", "t1"))
		require.True(t, ok, "-h names %s, which api/openapi.json lacks", m[1])
		assert.NoError(t, spec.ValidateRequest(op, nil, []byte(m[2])), "%s %s", m[1], m[2])
	}
}
