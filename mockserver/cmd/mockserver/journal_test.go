package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var plainBuild struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes the binary plainBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if plainBuild.dir != "" {
		_ = os.RemoveAll(plainBuild.dir)
	}
	os.Exit(code)
}

// plainBinary builds the command once for the tests that run it as shipped.
func plainBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	plainBuild.once.Do(func() {
		plainBuild.dir, plainBuild.err = os.MkdirTemp("", "mockserver-bin")
		if plainBuild.err != nil {
			return
		}
		build := exec.Command("go", "build", "-o", filepath.Join(plainBuild.dir, "mockserver"), ".")
		build.Stderr = os.Stderr
		plainBuild.err = build.Run()
	})
	require.NoError(t, plainBuild.err)
	return filepath.Join(plainBuild.dir, "mockserver")
}

// TestBinaryJournalQueries asks the binary over HTTP "how many creates of t1" and "which
// task.matched events since the last poll", as a suite in another language would.
func TestBinaryJournalQueries(t *testing.T) {
	t.Parallel()
	c, _, _ := startBinary(t, plainBinary(t), nil, "-manual-clock")
	st, _ := c.do("POST", "/v1/workers", `{"id":"a1","tags":["x"],"available":true}`)
	require.Equal(t, 200, st)
	for _, id := range []string{"t1", "t2", "t1"} {
		c.do("POST", "/v1/tasks", `{"id":"`+id+`","tags":["x"]}`)
	}
	st, got := c.do("GET", "/_mock/requests?method=POST&taskId=t1&count=true", "")
	require.Equal(t, 200, st)
	assert.Equal(t, map[string]any{"count": float64(2), "nextSince": float64(4)}, got)

	st, got = c.do("GET", "/_mock/events?kind=task.matched&since=1", "")
	require.Equal(t, 200, st)
	assert.Len(t, got["events"], 1, "t2's offer; t1's was event 1")
	assert.Equal(t, float64(2), got["nextSince"])

	st, got = c.do("GET", "/_mock/events?limit=0", "")
	assert.Equal(t, 400, st)
	assert.Equal(t, "validation_failed", got["error"].(map[string]any)["code"])
}
