package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedBuffer collects a child's standard error while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startBinary runs bin with args and env, waits for its start line and returns a client and
// its standard error; stop ends the process and waits until all its standard error is in.
func startBinary(t *testing.T, bin string, env []string, args ...string) (c client, stderr *lockedBuffer, stop func()) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr = &lockedBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait() // returns once the copy of standard error is complete
		})
	}
	t.Cleanup(stop)
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
	}()
	var start startLine
	select {
	case line := <-lines:
		require.NoError(t, json.Unmarshal([]byte(line), &start), "start line %q; stderr %s", line, stderr)
	case <-time.After(30 * time.Second):
		t.Fatal("no start line")
	}
	return client{t: t, base: strings.TrimSuffix(start.URL, "/v1"), key: start.APIKey}, stderr, stop
}

// TestBinaryRefusesAnAnswerThatBreaksTheContract builds the command with the seam that makes
// one operation's answers drift from api/openapi.json (the mockserver_drifthook build tag,
// off in every ordinary build) and checks over HTTP that by default the binary sends 500
// internal_error in their place and logs it, and that -strict-responses=false sends them.
func TestBinaryRefusesAnAnswerThatBreaksTheContract(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "mockserver")
	build := exec.Command("go", "build", "-tags", "mockserver_drifthook", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	drift := []string{"MOCKSERVER_DRIFT_OPERATION=tasks.get"}

	cases := []struct {
		name       string
		args       []string
		wantStatus int
		wantBody   string
		wantLog    bool
	}{
		{name: "default", wantStatus: 500, wantBody: "internal_error", wantLog: true},
		{name: "strict off", args: []string{"-strict-responses=false"}, wantStatus: 200, wantBody: `"surprise":1`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, stderr, stop := startBinary(t, bin, drift, append([]string{"-manual-clock", "-log-format", "json"}, tc.args...)...)
			st, _ := c.do("POST", "/v1/tasks", `{"id":"t1","tags":["x"]}`)
			require.Equal(t, 202, st, "other operations are untouched")
			st, body := c.do("GET", "/v1/tasks/t1", "")
			assert.Equal(t, tc.wantStatus, st)
			raw, _ := json.Marshal(body)
			assert.Contains(t, string(raw), tc.wantBody)
			stop() // the log is complete once the process has exited
			if !tc.wantLog {
				assert.NotContains(t, stderr.String(), "broke api/openapi.json")
				return
			}
			msg := body["error"].(map[string]any)["message"].(string)
			assert.Equal(t, "the mock server's 200 answer to tasks.get broke api/openapi.json, so it was not sent: response must NOT have additional properties (surprise)", msg)
			assert.Contains(t, stderr.String(), `"level":"ERROR","msg":"answer broke api/openapi.json; sent 500 internal_error instead","method":"GET","path":"/v1/tasks/t1","operation":"tasks.get"`)
		})
	}
}
