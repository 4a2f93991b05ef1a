package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type client struct {
	t    *testing.T
	base string // the server root, without /v1
	key  string
}

func (c client) do(method, path, body string) (int, map[string]any) {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	require.NoError(c.t, err)
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	var v map[string]any
	if len(raw) > 0 {
		require.NoError(c.t, json.Unmarshal(raw, &v), "%s", raw)
	}
	return resp.StatusCode, v
}

// TestBinary builds the command, starts it with a manual clock, steers it over HTTP like a
// test in another language would, and stops it with SIGTERM.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "mockserver")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	cmd := exec.Command(bin, "-manual-clock", "-clock-start", "1763700000000", "-api-key", "sk_test_binary", "-signing-secret", "whsec_binary")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})

	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
	}()
	var start startLine
	select {
	case line := <-lines:
		require.NoError(t, json.Unmarshal([]byte(line), &start), "start line %q", line)
	case <-time.After(30 * time.Second):
		t.Fatal("no start line")
	}
	assert.Equal(t, "sk_test_binary", start.APIKey)
	assert.Equal(t, "whsec_binary", start.SigningSecret)
	assert.Equal(t, "ws_sandbox", start.WorkspaceID)
	require.True(t, strings.HasSuffix(start.URL, "/v1"))
	c := client{t: t, base: strings.TrimSuffix(start.URL, "/v1"), key: start.APIKey}

	st, _ := c.do("POST", "/v1/workers", `{"id":"a1","tags":["x"],"available":true}`)
	require.Equal(t, 200, st)
	st, _ = c.do("POST", "/v1/tasks", `{"id":"t1","tags":["x"],"escalation":{"respondWithinMs":1000}}`)
	require.Equal(t, 202, st)
	kinds := func() []string {
		_, evs := c.do("GET", "/_mock/events", "")
		var out []string
		for _, e := range evs["events"].([]any) {
			out = append(out, e.(map[string]any)["event"].(string))
		}
		return out
	}
	// The offer is due after 1 s but expires on the next maintenance sweep (every 5 s by
	// default, on whole multiples of 5 s: the clock starts on one).
	st, clock := c.do("POST", "/_mock/clock/advance", `{"ms":1000}`)
	require.Equal(t, 200, st)
	assert.Equal(t, float64(1763700001000), clock["now"])
	assert.Empty(t, cmp.Diff([]string{"task.matched"}, kinds()), "due, not swept yet")
	st, clock = c.do("POST", "/_mock/clock/advance", `{"ms":4000}`)
	require.Equal(t, 200, st)
	assert.Equal(t, float64(1763700005000), clock["now"])
	assert.Empty(t, cmp.Diff([]string{"task.matched", "task.expired", "task.matched"}, kinds()), "expiry on the sweep")

	st, _ = c.do("POST", "/_mock/faults", `{"method":"GET","path":"/v1/workers","status":503,"retryAfterMs":2000,"times":1}`)
	require.Equal(t, 201, st)
	st, body := c.do("GET", "/v1/workers", "")
	assert.Equal(t, 503, st)
	assert.Equal(t, "service_unavailable", body["error"].(map[string]any)["code"])

	st, _ = c.do("POST", "/_mock/reset", "")
	assert.Equal(t, 204, st)
	_, list := c.do("GET", "/v1/workers", "")
	assert.Equal(t, float64(0), list["count"])

	other := client{t: t, base: c.base, key: "sk_test_other"}
	st, _ = other.do("GET", "/_mock/events", "")
	assert.Equal(t, 401, st, "admin endpoints need the key")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		assert.NoError(t, err, "clean exit on SIGTERM")
	case <-time.After(30 * time.Second):
		t.Fatal("did not exit after SIGTERM")
	}
}
