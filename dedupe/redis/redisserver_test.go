package redisdedupe

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// startRedis runs a private redis-server on a free loopback port, with its
// files in a temporary directory and no persistence, and stops it when the
// test ends. Without redis-server on PATH the test is skipped, except in CI
// (CI=true), where .ci/run installs it and a skip would hide a broken setup.
func startRedis(t testing.TB) *goredis.Client {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed")
		}
		t.Skip("redis-server is not installed (apt-get install redis-server)")
	}
	// The port is free when chosen; another process could take it before
	// redis-server binds it, which then fails the test loudly, not silently.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())

	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", t.TempDir(), "--save", "", "--appendonly", "no", "--loglevel", "notice")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// Readiness is the server's own log line, not a polling loop.
	ready := false
	sc := bufio.NewScanner(out)
	var log []string
	for sc.Scan() {
		log = append(log, sc.Text())
		if strings.Contains(sc.Text(), "Ready to accept connections") {
			ready = true
			break
		}
	}
	require.True(t, ready, "redis-server did not start:\n%s", strings.Join(log, "\n"))
	go func() { // keep draining so the server never blocks on its log
		for sc.Scan() {
		}
	}()

	rdb := goredis.NewClient(&goredis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))})
	t.Cleanup(func() { _ = rdb.Close() })
	require.NoError(t, rdb.Ping(context.Background()).Err())
	return rdb
}
