package main

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBinaryProxyShadow runs one binary as the "deployment" (platform rules, webhooks to the
// proxy) and one as -proxy -proxy-shadow with the every-tag rules, and drives the proxy over
// HTTP with the deployment's key: worker a1 (tag x) and a2 (x, y), task t1 (x, y). The
// deployment offers t1 to a1, the shadow to a2, and the proxy's report says so.
func TestBinaryProxyShadow(t *testing.T) {
	t.Parallel()
	bin := plainBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	proxyAddr := ln.Addr().String()
	require.NoError(t, ln.Close()) // the proxy binary listens here next

	up, _, _ := startBinary(t, bin, nil, "-signing-secret", "whsec_up", "-webhook-url", "http://"+proxyAddr+"/_mock/proxy/webhook")
	px, _, _ := startBinary(t, bin, nil, "-addr", proxyAddr, "-proxy", up.base+"/v1", "-proxy-shadow", "-rules", "every-tag",
		"-proxy-signing-secret", "whsec_up", "-api-key", "sk_test_proxyadmin")
	assert.Equal(t, "sk_test_proxyadmin", px.key)
	through := client{t: t, base: px.base, key: up.key}

	st, _ := through.do("POST", "/v1/workers", `{"id":"a1","tags":["x"],"available":true}`)
	require.Equal(t, 200, st)
	st, _ = through.do("POST", "/v1/workers", `{"id":"a2","tags":["x","y"],"available":true}`)
	require.Equal(t, 200, st)
	st, _ = through.do("POST", "/v1/tasks", `{"id":"t1","tags":["x","y"]}`)
	require.Equal(t, 202, st)
	st, _ = through.do("POST", "/v1/tasks", `{"id":"t2","tags":["x"],"colour":"red"}`)
	require.Equal(t, 400, st, "the deployment's answer passes through")
	st, _ = up.do("POST", "/_mock/flush", "") // the task.matched delivery to the proxy is done
	require.Equal(t, 204, st)

	st, rep := px.do("GET", "/_mock/proxy/report", "")
	require.Equal(t, 200, st)
	assert.Equal(t, []any{map[string]any{"taskId": "t1", "upstreamWorkerId": "a1", "mockWorkerId": "a2", "agree": false,
		"reason": "the deployment offered the task to a1, the mock (rules every-tag, mode best-match) to a2"}}, rep["decisions"])
	diffs := rep["differences"].([]any)
	require.Len(t, diffs, 1)
	assert.Equal(t, "tasks.create: body must NOT have additional properties", diffs[0].(map[string]any)["problem"])

	other := client{t: t, base: px.base, key: up.key}
	st, _ = other.do("GET", "/_mock/proxy/report", "")
	assert.Equal(t, 401, st, "the report needs the proxy's own key")
}
