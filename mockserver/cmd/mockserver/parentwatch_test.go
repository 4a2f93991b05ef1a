package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWatchParent(t *testing.T) {
	tests := []struct {
		name      string
		ppids     []int // what getppid answers: at the start, then at each tick
		wantFired bool
	}{
		{"parent stays", []int{40, 40, 40, 40}, false},
		{"parent exits, reparented to init", []int{40, 40, 1}, true},
		{"parent exits, reparented to a subreaper", []int{40, 7}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			getppid := func() int {
				mu.Lock()
				defer mu.Unlock()
				p := tt.ppids[min(calls, len(tt.ppids)-1)]
				calls++
				return p
			}
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			tick := make(chan time.Time) // unbuffered: a send returns once the watch took it
			fired := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				watchParent(ctx, func() { close(fired) }, getppid, tick)
			}()
			for range len(tt.ppids) - 1 {
				select {
				case tick <- time.Time{}:
				case <-done:
				}
			}
			// One more tick is taken only after the previous one was compared.
			select {
			case tick <- time.Time{}:
			case <-done:
			}
			stop()
			<-done
			select {
			case <-fired:
				assert.True(t, tt.wantFired, "fired with the parent still there")
			default:
				assert.False(t, tt.wantFired, "did not fire when the parent changed")
			}
		})
	}
}

func TestWatchStdinFiresOnClose(t *testing.T) {
	r, w := io.Pipe()
	fired := make(chan struct{})
	go watchStdin(func() { close(fired) }, r)
	_, err := w.Write([]byte("anything written is dropped\n"))
	require.NoError(t, err)
	select {
	case <-fired:
		t.Fatal("fired before the end of input")
	default:
	}
	require.NoError(t, w.Close())
	<-fired
}

var stamped struct {
	once sync.Once
	bin  string
	err  error
}

// stampedBinary builds the command once per test run the way a release does: static, with
// the version stamped in.
func stampedBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	stamped.once.Do(func() {
		dir, err := os.MkdirTemp("", "mockserver-bin")
		if err != nil {
			stamped.err = err
			return
		}
		stamped.bin = filepath.Join(dir, "mockserver")
		build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version=v9.8.7-test", "-o", stamped.bin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			stamped.err = err
			t.Logf("%s", out)
		}
	})
	require.NoError(t, stamped.err)
	return stamped.bin
}

func TestBinaryVersionIsStamped(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(stampedBinary(t), "-version").Output()
	require.NoError(t, err)
	assert.Equal(t, "v9.8.7-test\n", string(out))
}

// readStartLine waits for the JSON line the server prints once it accepts connections.
func readStartLine(t *testing.T, r *bufio.Reader) startLine {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		line, _ := r.ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		var s startLine
		require.NoError(t, json.Unmarshal([]byte(line), &s), "start line %q", line)
		return s
	case <-time.After(60 * time.Second):
		t.Fatal("no start line")
		return startLine{}
	}
}

// waitEOF reads r to its end: a pipe reaches it once every process holding its write end has
// exited. It fails the test after a bound.
func waitEOF(t *testing.T, r io.Reader, what string) {
	t.Helper()
	eof := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, r)
		close(eof)
	}()
	select {
	case <-eof:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: the mock server still runs 30s later", what)
	}
}

// TestBinaryExitsWithItsParent starts the server from a shell, as a harness in another
// language might, kills that shell with SIGKILL (nothing forwards a signal to the server), and
// waits for the server to exit: its standard output, a pipe only the shell and the server
// held, reaches its end when the server is gone.
func TestBinaryExitsWithItsParent(t *testing.T) {
	t.Parallel()
	bin := stampedBinary(t)
	sh := exec.Command("sh", "-c", `"$0" -addr 127.0.0.1:0 & echo "$!"; wait`, bin)
	// Pipes of our own, not StdoutPipe: Wait on the killed shell would close those while the
	// server still writes to them.
	stdout, stdoutW, err := os.Pipe()
	require.NoError(t, err)
	stderr, stderrW, err := os.Pipe()
	require.NoError(t, err)
	sh.Stdout, sh.Stderr = stdoutW, stderrW
	require.NoError(t, sh.Start())
	// Only the shell and the server hold the write ends now.
	require.NoError(t, stdoutW.Close())
	require.NoError(t, stderrW.Close())
	defer stdout.Close()
	defer stderr.Close()
	logs := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(stderr)
		logs <- string(b)
	}()
	out := bufio.NewReader(stdout)
	pidLine, err := out.ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(pidLine))
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // only if the test failed
	readStartLine(t, out)

	require.NoError(t, sh.Process.Kill())
	_ = sh.Wait()
	waitEOF(t, out, "after its parent was killed")
	assert.Contains(t, <-logs, "parent process exited")
}

// TestBinaryExitsOnStdinClose: with -exit-on-stdin-close, closing the pipe the harness holds
// stops the server cleanly.
func TestBinaryExitsOnStdinClose(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(stampedBinary(t), "-addr", "127.0.0.1:0", "-exit-on-stdin-close")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var logs strings.Builder
	cmd.Stderr = &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // only if the test failed
	out := bufio.NewReader(stdout)
	readStartLine(t, out)

	require.NoError(t, stdin.Close())
	waitEOF(t, out, "after its standard input closed")
	require.NoError(t, cmd.Wait(), "a clean exit")
	assert.Contains(t, logs.String(), "standard input closed")
}
