package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/taskrouting/taskrouting-go/webhook"
)

func TestParseConfig(t *testing.T) {
	secretFile := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte("whsec_from_file\n"), 0o600))
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    config
		wantErr string
	}{
		{name: "defaults", env: map[string]string{"TASKROUTING_SIGNING_SECRET": "whsec_env"},
			want: config{Addr: "127.0.0.1:8081", Secret: "whsec_env", MaxBodyBytes: 64 << 10}},
		{name: "env address", env: map[string]string{"TASKROUTING_SIGNING_SECRET": "whsec_env", "TASKROUTING_WEBHOOK_ADDR": ":9000"},
			want: config{Addr: ":9000", Secret: "whsec_env", MaxBodyBytes: 64 << 10}},
		{name: "flags win", args: []string{"-addr", "127.0.0.1:0", "-secret-file", secretFile, "-max-body", "1024"},
			env:  map[string]string{"TASKROUTING_SIGNING_SECRET": "whsec_env", "TASKROUTING_WEBHOOK_ADDR": ":9000"},
			want: config{Addr: "127.0.0.1:0", Secret: "whsec_from_file", MaxBodyBytes: 1024}},
		{name: "no secret", wantErr: "no signing secret"},
		{name: "missing secret file", args: []string{"-secret-file", filepath.Join(t.TempDir(), "nope")}, wantErr: "reading the secret file"},
		{name: "bad body limit", args: []string{"-max-body", "0"}, env: map[string]string{"TASKROUTING_SIGNING_SECRET": "s"}, wantErr: "-max-body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.NotContains(t, err.Error(), "whsec_", "errors never carry the secret")
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

// The handler verifies, limits, de-duplicates and counts; each case is one delivery, in order,
// against the same receiver.
func TestHandler(t *testing.T) {
	const secret = "whsec_receiver_test"
	st := newStats()
	h, err := newHandler(config{Secret: secret, MaxBodyBytes: 256}, st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	matched := `{"event":"task.matched","id":"evt_1","taskId":"task_1","workerId":"agent_1","priority":5,"tags":["chat"]}`
	signed := func(body string) string { return webhook.Sign([]byte(body), secret, time.Now()) }
	tests := []struct {
		name   string
		body   string
		header string
		want   int
	}{
		{name: "first delivery", body: matched, header: signed(matched), want: http.StatusNoContent},
		{name: "redelivery is skipped", body: matched, header: signed(matched), want: http.StatusNoContent},
		{name: "a kind without its own case is fine", body: `{"event":"worker.break_started","id":"evt_2","workerId":"agent_1"}`,
			header: signed(`{"event":"worker.break_started","id":"evt_2","workerId":"agent_1"}`), want: http.StatusNoContent},
		{name: "wrong secret", body: matched, header: webhook.Sign([]byte(matched), "whsec_other", time.Now()), want: http.StatusUnauthorized},
		{name: "stale", body: matched, header: webhook.Sign([]byte(matched), secret, time.Now().Add(-time.Hour)), want: http.StatusUnauthorized},
		{name: "no header", body: matched, want: http.StatusBadRequest},
		{name: "too large", body: strings.Repeat("x", 300), header: signed(strings.Repeat("x", 300)), want: http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/hooks", strings.NewReader(tt.body))
		require.NoError(t, err)
		if tt.header != "" {
			req.Header.Set(webhook.SignatureHeader, tt.header)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, tt.want, resp.StatusCode, tt.name)
	}
	assert.Equal(t, "summary: 2 events processed, 1 duplicates skipped, 4 deliveries refused (task.matched=1 worker.break_started=1)",
		st.summary())
}
