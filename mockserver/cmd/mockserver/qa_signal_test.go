package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// qaBinary builds the command once per test and starts it with args; it returns the start
// line and a channel that receives the process's exit.
func qaBinary(t *testing.T, args ...string) (startLine, <-chan error, *exec.Cmd) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mockserver")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	var start startLine
	require.NoError(t, json.Unmarshal([]byte(line), &start), "start line %q", line)
	return start, exited, cmd
}

// holdingReceiver answers webhooks only once release is closed; arrived is closed on the
// first delivery.
func holdingReceiver(t *testing.T) (url string, arrived, release chan struct{}) {
	t.Helper()
	arrived, release = make(chan struct{}), make(chan struct{})
	var once sync.Once
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(arrived) })
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
		hook.Close()
	})
	return hook.URL, arrived, release
}

func matchOne(t *testing.T, start startLine) {
	t.Helper()
	c := client{t: t, base: strings.TrimSuffix(start.URL, "/v1"), key: start.APIKey}
	st, _ := c.do("POST", "/v1/workers", `{"id":"a1","tags":["x"],"available":true}`)
	require.Equal(t, 200, st)
	st, _ = c.do("POST", "/v1/tasks", `{"id":"t1","tags":["x"]}`)
	require.Equal(t, 202, st)
}

// TestQABinarySIGINTWaitsForDelivery: SIGINT exits cleanly (status 0), after the webhook
// attempt in flight has finished.
func TestQABinarySIGINTWaitsForDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	t.Parallel()
	hook, arrived, release := holdingReceiver(t)
	start, exited, cmd := qaBinary(t, "-webhook-url", hook)
	matchOne(t, start)
	<-arrived
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	close(release)
	select {
	case err := <-exited:
		assert.NoError(t, err, "clean exit on SIGINT")
	case <-time.After(30 * time.Second):
		t.Fatal("did not exit after SIGINT")
	}
}

// TestQABinarySecondSignalStopsAtOnce: while the binary waits for a hanging webhook receiver
// after a first SIGINT, a second SIGINT must stop it at once, as users expect of Ctrl-C. It
// used to be swallowed: the process only left when the attempt timed out.
func TestQABinarySecondSignalStopsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	t.Parallel()
	hook, arrived, _ := holdingReceiver(t)
	start, exited, cmd := qaBinary(t, "-webhook-url", hook)
	matchOne(t, start)
	<-arrived
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	// The first signal has been handled once the API listener is gone.
	host := strings.TrimSuffix(strings.TrimPrefix(start.URL, "http://"), "/v1")
	for {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			break
		}
		conn.Close()
		runtime.Gosched()
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := <-exited
	var exitErr *exec.ExitError
	require.True(t, errors.As(err, &exitErr), "exit %v: want death by the second signal", err)
	ws, ok := exitErr.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.True(t, ws.Signaled(), "killed by the second SIGINT, not a late clean exit (%v)", err)
}
