package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildBinary builds the command once for a test.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mockserver")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	return bin
}

// raw sends a request and returns the status and the body as is.
func (c client) raw(method, path string, body []byte) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	require.NoError(c.t, err)
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return resp.StatusCode, out
}

// TestBinaryState saves a state over HTTP, starts a second binary with -state FILE, checks it
// carries on from that state, and sends it a broken state: 400 naming the member, the state
// untouched. A -state file it cannot load stops the binary with the file and the member named.
func TestBinaryState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	t.Parallel()
	bin := buildBinary(t)
	a, _, _ := startBinary(t, bin, nil, "-manual-clock", "-clock-start", "1763700000000", "-api-key", "sk_test_a")
	st, _ := a.do("POST", "/v1/workers", `{"id":"ana","tags":["en"],"available":true,"maxBacklogSize":1}`)
	require.Equal(t, 200, st)
	st, _ = a.do("POST", "/v1/tasks", `{"id":"t1","tags":["en"]}`)
	require.Equal(t, 202, st)
	st, _ = a.do("POST", "/v1/tasks", `{"id":"t2","tags":["en"]}`)
	require.Equal(t, 202, st)
	st, _ = a.do("POST", "/_mock/clock/advance", `{"ms":5000}`)
	require.Equal(t, 200, st)
	st, saved := a.raw("GET", "/_mock/state", nil)
	require.Equal(t, 200, st, "%s", saved)
	file := filepath.Join(t.TempDir(), "state.json")
	require.NoError(t, os.WriteFile(file, saved, 0o600))

	b, _, _ := startBinary(t, bin, nil, "-manual-clock", "-api-key", "sk_test_b", "-state", file)
	_, clock := b.do("GET", "/_mock/clock", "")
	assert.Equal(t, float64(1763700005000), clock["now"], "the manual clock is the state's")
	for _, c := range []client{a, b} {
		_, t1 := c.do("GET", "/v1/tasks/t1", "")
		assert.Equal(t, "pending", t1["status"])
		st, _ = c.do("POST", "/v1/tasks/t1/complete", `{"workerId":"ana"}`)
		assert.Equal(t, 409, st, "not accepted yet")
		st, _ = c.do("POST", "/_mock/clock/advance", `{"ms":60000}`)
		require.Equal(t, 200, st)
	}
	_, evA := a.do("GET", "/_mock/events", "")
	_, evB := b.do("GET", "/_mock/events", "")
	evsA := evA["events"].([]any)
	assert.Empty(t, cmp.Diff(evsA[len(evsA)-len(evB["events"].([]any)):], evB["events"]), "the same expiry and rematch on both")
	assert.NotEmpty(t, evB["events"])

	_, before := b.raw("GET", "/_mock/state", nil)
	broken := bytes.Replace(saved, []byte(`"available":true`), []byte(`"available":"yes"`), 1)
	require.NotEqual(t, saved, broken)
	st, body := b.raw("POST", "/_mock/state", broken)
	assert.Equal(t, 400, st)
	assert.Contains(t, string(body), `"message":"/workspaces/0/workers/0/available: must be boolean"`)
	_, after := b.raw("GET", "/_mock/state", nil)
	assert.Empty(t, cmp.Diff(string(before), string(after)), "a refused state changes nothing")

	st, _ = b.raw("POST", "/_mock/state", saved)
	assert.Equal(t, 204, st)
	_, again := b.raw("GET", "/_mock/state", nil)
	assert.JSONEq(t, string(saved), string(again), "loading a saved state gives it back")

	badFile := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(badFile, broken, 0o600))
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-state", badFile)
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 1, exit.ExitCode())
	assert.Contains(t, stderr.String(), "-state "+badFile+": /workspaces/0/workers/0/available: must be boolean")
}
