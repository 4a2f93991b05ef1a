package examples_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// quickstartLimit is the bar examples/README.md sets for the quickstart on a 2-core machine: the
// built program, started to finished.
const quickstartLimit = 5 * time.Second

var programs = []string{"quickstart", "webhook-receiver", "shadow-run", "agent-desk", "supervisor-board", "skills-routing"}

// TestExamples builds every example program once with go build, then runs each built binary
// as a user would, with a timeout, and checks its summary line.
func TestExamples(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: the example programs cannot be built here")
	}
	if testing.Short() {
		t.Skip("-short: building the example programs takes a while")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	bin := t.TempDir()

	// Generous: with an empty build cache this compiles the standard library too.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := []string{"build", "-o", bin + string(os.PathSeparator)}
	for _, p := range programs {
		args = append(args, "./examples/"+p)
	}
	build := exec.CommandContext(ctx, goBin, args...)
	build.Dir = root
	outBytes, err := build.CombinedOutput()
	require.NoError(t, err, "go build:\n%s", outBytes)
	exe := func(name string) string {
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		return filepath.Join(bin, name)
	}

	t.Run("quickstart", func(t *testing.T) {
		start := time.Now()
		out := runProgram(t, root, exe("quickstart"), 20*time.Second)
		elapsed := time.Since(start)
		assert.Contains(t, out, "summary: 6 tasks completed, 1 rejection re-routed, 20 webhooks verified, 0 refused")
		assert.Contains(t, out, "re-routed: ana rejected it before")
		assert.LessOrEqual(t, elapsed, quickstartLimit, "the quickstart must finish in under %v", quickstartLimit)
		t.Logf("quickstart ran in %v", elapsed.Round(time.Millisecond))
	})
	t.Run("shadow-run", func(t *testing.T) {
		out := runProgram(t, root, exe("shadow-run"), 20*time.Second)
		assert.Contains(t, out, "summary: 12 past tasks, agreement 6/12 (50%), old choices accepted 8/12 (67%)")
	})
	t.Run("skills-routing", func(t *testing.T) {
		out := runProgram(t, root, exe("skills-routing"), 20*time.Second)
		assert.Contains(t, out, "summary: 4 tasks routed by skill level, es-complaint -> ana, refund-1 -> ben, es-escalation -> carla, es-followup -> ben")
	})
	t.Run("supervisor-board", func(t *testing.T) {
		out := runProgram(t, root, exe("supervisor-board"), 20*time.Second)
		assert.Contains(t, out, "summary: 2 queued and 4 pending before, 3 queued and 3 pending after; vip bumped and handed to ana, ben paused (2 offers released), 1 out-of-team action refused")
	})
	t.Run("agent-desk", func(t *testing.T) {
		out := runProgram(t, root, exe("agent-desk"), 20*time.Second)
		assert.Regexp(t, `summary: sam completed 2 tasks, 0 offers during the break, kim took \S+ meanwhile`, out)
	})
	t.Run("webhook-receiver", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("the receiver is stopped with SIGINT, which Windows cannot send")
		}
		testReceiver(t, exe("webhook-receiver"))
	})
}

// runProgram runs a built example without any TASKROUTING_* variable (so it stays offline)
// and returns its standard output; a non-zero exit fails the test.
func runProgram(t *testing.T, dir, path string, timeout time.Duration, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Env = offlineEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s failed; stderr:\n%s\nstdout:\n%s", filepath.Base(path), stderr.String(), out)
	return string(out)
}

func offlineEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TASKROUTING_") {
			env = append(env, kv)
		}
	}
	return env
}

var listeningLine = regexp.MustCompile(`msg=listening url=(\S+)`)

// testReceiver starts the receiver, sends it events from an in-process mock server signed with
// the same secret plus one forged delivery, stops it with SIGINT and reads its summary.
func testReceiver(t *testing.T, path string) {
	const secret = "whsec_examples_test"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-addr", "127.0.0.1:0")
	cmd.Env = append(offlineEnv(), "TASKROUTING_SIGNING_SECRET="+secret)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // no-op once it has exited

	// The first line names the address; the rest is collected until the program exits.
	lines := bufio.NewScanner(stdout)
	require.True(t, lines.Scan(), "no output from the receiver; stderr:\n%s", stderr.String())
	m := listeningLine.FindStringSubmatch(lines.Text())
	require.NotNil(t, m, "first line %q does not name the address", lines.Text())
	hookURL := m[1]
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for lines.Scan() {
			b.WriteString(lines.Text() + "\n")
		}
		_, _ = io.Copy(io.Discard, stdout)
		rest <- b.String()
	}()

	srv := mockserver.Start(t, mockserver.WithWebhookURL(hookURL), mockserver.WithSigningSecret(secret))
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	require.NoError(t, err)
	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"chat"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"chat"}})
	require.NoError(t, err)
	_, err = c.Decisions.Accept(ctx, "task_1", "agent_1")
	require.NoError(t, err)
	require.NoError(t, srv.WaitForDeliveries(ctx))

	// A delivery signed with another secret must be refused.
	forged, err := http.NewRequestWithContext(ctx, http.MethodPost, hookURL, strings.NewReader(`{"event":"task.matched","id":"evt_x"}`))
	require.NoError(t, err)
	forged.Header.Set("X-Fivexer-Signature", "t="+strconv.FormatInt(time.Now().UnixMilli(), 10)+",v1="+strings.Repeat("ab", 32))
	resp, err := http.DefaultClient.Do(forged)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "forged delivery")

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	var out string
	select {
	case out = <-rest:
	case <-ctx.Done():
		t.Fatalf("the receiver did not stop after SIGINT; stderr:\n%s", stderr.String())
	}
	require.NoError(t, cmd.Wait(), "stderr:\n%s", stderr.String())
	assert.Contains(t, out, "summary: 2 events processed, 0 duplicates skipped, 1 deliveries refused (task.accepted=1 task.matched=1)")
}
