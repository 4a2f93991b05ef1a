package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunLogsAndNamesTheAdminURL runs the command in process with JSON logs: the start line
// names the admin URL (besides its earlier members), each request is logged on standard
// error, and so is the shutdown with the count of dropped deliveries.
func TestRunLogsAndNamesTheAdminURL(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-log-format", "json", "-manual-clock"}, outW, &stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	var members map[string]string
	require.NoError(t, json.Unmarshal([]byte(line), &members))
	for _, k := range []string{"url", "apiKey", "signingSecret", "workspaceId", "adminUrl"} {
		assert.NotEmpty(t, members[k], "start line member %s", k)
	}
	root := strings.TrimSuffix(members["url"], "/v1")
	assert.Equal(t, root+"/_mock", members["adminUrl"])

	c := client{t: t, base: root, key: members["apiKey"]}
	st, _ := c.do("GET", "/_mock/clock", "")
	require.Equal(t, 200, st)
	st, _ = c.do("POST", "/v1/workers", `{"id":"a1","tags":["x"],"available":true}`)
	require.Equal(t, 200, st)
	cancel()
	require.NoError(t, <-done)

	var msgs []string
	sawWorker := false
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "log line %q", l)
		msgs = append(msgs, m["msg"].(string))
		sawWorker = sawWorker || (m["msg"] == "request" && m["path"] == "/v1/workers" && m["status"] == float64(200))
	}
	assert.True(t, sawWorker, "the worker upsert is logged: %v", msgs)
	assert.Contains(t, msgs, "mock server listening")
	assert.Contains(t, msgs, "admin request")
	assert.Contains(t, msgs, "closing: queued webhook deliveries are dropped")
	assert.NotContains(t, stderr.String(), members["apiKey"])
	assert.NotContains(t, stderr.String(), members["signingSecret"])
}

// TestHelpListsTheAdminEndpoints: -h documents the steering API, not only the flags.
func TestHelpListsTheAdminEndpoints(t *testing.T) {
	var stderr bytes.Buffer
	err := run(t.Context(), []string{"-h"}, io.Discard, &stderr)
	require.True(t, errors.Is(err, flag.ErrHelp), "%v", err)
	for _, want := range []string{"-log-level", "-log-format", "POST   /_mock/clock/advance", "POST   /_mock/reset", "GET    /_mock/deliveries", "POST   /_mock/supervisor-links", "adminUrl"} {
		assert.Contains(t, stderr.String(), want)
	}
}

// TestBadLogFlags are refused before the server starts.
func TestBadLogFlags(t *testing.T) {
	for _, args := range [][]string{{"-log-level", "loud"}, {"-log-format", "xml"}} {
		err := run(t.Context(), args, io.Discard, io.Discard)
		assert.Error(t, err, "%v", args)
	}
}
