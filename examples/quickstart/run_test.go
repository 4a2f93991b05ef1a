package main

import (
	"context"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

func TestConfigFromEnv(t *testing.T) {
	live := map[string]string{
		"TASKROUTING_BASE_URL":       "https://api.example.com/v1",
		"TASKROUTING_API_KEY":        "sk_test_x",
		"TASKROUTING_SIGNING_SECRET": "whsec_x",
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range live {
			m[a] = b
		}
		m[k] = v
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    config
		wantErr string
	}{
		{name: "offline by default", want: config{WebhookAddr: "127.0.0.1:0", Timeout: 30 * time.Second}},
		{name: "offline ignores a stray key", env: map[string]string{"TASKROUTING_API_KEY": "sk_test_x"},
			want: config{WebhookAddr: "127.0.0.1:0", Timeout: 30 * time.Second}},
		{name: "live", env: live, want: config{BaseURL: "https://api.example.com/v1", APIKey: "sk_test_x",
			SigningSecret: "whsec_x", WebhookAddr: ":8080", Timeout: 2 * time.Minute}},
		{name: "live with address", env: with("TASKROUTING_WEBHOOK_ADDR", "127.0.0.1:9999"), want: config{BaseURL: "https://api.example.com/v1",
			APIKey: "sk_test_x", SigningSecret: "whsec_x", WebhookAddr: "127.0.0.1:9999", Timeout: 2 * time.Minute}},
		{name: "live without key", env: with("TASKROUTING_API_KEY", ""), wantErr: "TASKROUTING_API_KEY"},
		{name: "live without secret", env: with("TASKROUTING_SIGNING_SECRET", ""), wantErr: "TASKROUTING_SIGNING_SECRET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := configFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

// The offline run is deterministic: the same lines come out in the same order every time.
func TestRunOffline(t *testing.T) {
	cfg, err := configFromEnv(func(string) string { return "" })
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, run(context.Background(), cfg, &out))
	got := out.String()

	// Lines that tell the story, in the order they must appear.
	want := []string{
		// A worker with routing weights reaches only its weighted tags; one without reaches
		// every tag it carries.
		"ben    on shift  skills english  tags english,billing,technical  weights none                  reaches every tag it carries (each scores 1/3)",
		"dev    off shift skills english  tags english,technical          weights technical=5           reaches technical only: english is not weighted",
		`"Password reset"`,
		// Why a task waits, from tasks.check and tasks.suggestWorkers: operations the
		// platform has, so the same explanation works against it.
		"queued: nearest workers: ana backlogFull; ben backlogFull; dev unavailable, missingTag english, missingTag billing",
		"queued: nearest workers: ana backlogFull; ben backlogFull; dev unavailable; chloe backlogFull, missingSkill english",
		// One shared tag would make chloe (technical) a candidate for the English "Password
		// reset"; its required skill english keeps her out, and ana's english weight 2
		// outscores ben's share of 1/3.
		"matched    task_n4oi1hof2x9o \"Password reset\" (priority 10) -> ana",
		"chloe  not eligible              missingSkill english, technical x3",
		"ana rejects it",
		"rejected   task_n4oi1hof2x9o by ana",
		"matched    task_tx6c3s9janmx \"Checkout is down\" (priority 90) -> ana",
		"it waited in the queue",
		"matched    task_n4oi1hof2x9o \"Password reset\" (priority 10) -> ben",
		"re-routed: ana rejected it before",
		"(6 of 6 done)",
		"summary: 6 tasks completed, 1 rejection re-routed, 20 webhooks verified, 0 refused",
	}
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if !assert.GreaterOrEqual(t, i, 0, "missing, or out of order: %q", w) {
			continue
		}
		rest = rest[i+len(w):]
	}
	// chloe speaks Spanish: the only task she is offered is the Spanish one.
	for _, line := range regexp.MustCompile(`(?m)^.*matched .*-> chloe$`).FindAllString(got, -1) {
		assert.Contains(t, line, `"El router se reinicia"`, "an English task offered to chloe")
	}
	// dev is off shift: the explanations may name it, but only as unavailable.
	for _, line := range regexp.MustCompile(`(?m)^ {6}dev .*$`).FindAllString(got, -1) {
		assert.Contains(t, line, "not eligible", "dev is off shift and never chosen")
		assert.Contains(t, line, "unavailable", "dev's explanation says why")
	}
	if t.Failed() {
		t.Logf("output:\n%s", got)
	}
}

func TestRunStopsAtTheDeadline(t *testing.T) {
	cfg, err := configFromEnv(func(string) string { return "" })
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = run(ctx, cfg, &strings.Builder{})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
}

// The live path, pointed at a standalone-style mock server: the program only gets the
// environment a real deployment would give it. A busy worker of someone else in the same
// workspace must get none of the quickstart's tasks.
func TestRunLive(t *testing.T) {
	// The receiver's address must be known before the server that posts to it exists: take a
	// free port and give it back. Another process could grab it meanwhile; that is unlikely
	// enough for a test.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	srv := mockserver.Start(t, mockserver.WithWebhookURL("http://"+addr+"/hooks"))
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	require.NoError(t, err)
	_, err = c.Workers.Upsert(context.Background(), taskrouting.UpsertWorkerParams{ID: "someone_else",
		Tags: []string{"english", "billing", "technical", "spanish"}, RoutingWeights: map[string]float64{"english": 100},
		Available: taskrouting.Ptr(true)})
	require.NoError(t, err)

	env := map[string]string{
		"TASKROUTING_BASE_URL":       srv.URL(),
		"TASKROUTING_API_KEY":        srv.APIKey(),
		"TASKROUTING_SIGNING_SECRET": srv.SigningSecret(),
		"TASKROUTING_WEBHOOK_ADDR":   addr,
	}
	cfg, err := configFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	cfg.Timeout = 20 * time.Second
	var out strings.Builder
	require.NoError(t, run(context.Background(), cfg, &out), "output:\n%s", out.String())

	assert.Contains(t, out.String(), "summary: 6 tasks completed, 1 rejection re-routed, 20 webhooks verified, 0 refused")
	for _, ev := range srv.Events() {
		assert.NotEqual(t, "someone_else", ev.WorkerID, "%s of %s", ev.Kind, ev.TaskID)
	}
}
