package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// TestSignWithWallClock drives the command as a test in another language would: a receiver
// whose verifier reads the wall clock, the manual clock advanced an hour. Without
// -sign-with-wall-clock every delivery is refused as stale and the log's hint names the flag;
// with it the delivery verifies, while the event's createdAt stays on the manual clock.
func TestSignWithWallClock(t *testing.T) {
	for _, tc := range []struct {
		name        string
		flags       []string
		wantOutcome string
		wantHint    bool
	}{
		{name: "signed at the manual clock", wantOutcome: "retrying", wantHint: true},
		{name: "-sign-with-wall-clock", flags: []string{"-sign-with-wall-clock"}, wantOutcome: "delivered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const secret = "whsec_wallclock"
			v, err := webhook.NewVerifier(secret) // on the wall clock
			require.NoError(t, err)
			receiver := httptest.NewServer(webhook.Handler(v, func(context.Context, webhook.Event) error { return nil }))
			defer receiver.Close()

			c := startInProcess(t, append([]string{"-manual-clock", "-log-format", "json", "-signing-secret", secret,
				"-webhook-url", receiver.URL}, tc.flags...)...)
			st, clock := c.do("POST", "/_mock/clock/advance", `{"ms":3600000}`)
			require.Equal(t, 200, st)
			st, _ = c.do("POST", "/v1/workers", `{"id":"a1","tags":["x"],"available":true}`)
			require.Equal(t, 200, st)
			st, _ = c.do("POST", "/v1/tasks", `{"id":"t1","tags":["x"]}`)
			require.Equal(t, 202, st)
			st, _ = c.do("POST", "/_mock/flush", "")
			require.Equal(t, 204, st)

			_, ds := c.do("GET", "/_mock/deliveries", "")
			deliveries := ds["deliveries"].([]any)
			require.Len(t, deliveries, 1)
			assert.Equal(t, tc.wantOutcome, deliveries[0].(map[string]any)["outcome"])
			_, evs := c.do("GET", "/_mock/events", "")
			events := evs["events"].([]any)
			require.Len(t, events, 1)
			assert.Equal(t, clock["now"], events[0].(map[string]any)["createdAt"], "createdAt is the manual clock's")

			stderr := c.stop()
			hinted := false
			for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
				var m map[string]any
				require.NoError(t, json.Unmarshal([]byte(l), &m), "log line %q", l)
				if h, ok := m["hint"].(string); ok && strings.Contains(h, "-sign-with-wall-clock") {
					hinted = true
				}
			}
			assert.Equal(t, tc.wantHint, hinted, "a log line's hint names -sign-with-wall-clock:\n%s", stderr)
		})
	}
}
