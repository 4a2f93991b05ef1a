package mockserver

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// A receiver whose verifier reads the wall clock, as every receiver in another language does,
// refuses deliveries signed at a manual clock moved an hour ahead; WithWallClockSignatures
// signs with the wall clock's time while the manual clock keeps driving everything else.
func TestWallClockSignaturesAfterAManualAdvance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		opts        []Option
		wantOutcome string
		wantLog     []string // substrings of the one refused attempt's test-log line; nil: no line
	}{
		{name: "signed at the manual clock", wantOutcome: OutcomeRetrying,
			wantLog: []string{"answered Unauthorized (401)", "from the wall clock", "-sign-with-wall-clock", "WithWallClockSignatures"}},
		{name: "WithWallClockSignatures", opts: []Option{WithWallClockSignatures()}, wantOutcome: OutcomeDelivered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := NewManualClock(time.Now())
			capture := &logCapture{TB: t}
			srv := Start(t, append([]Option{WithClock(clk), WithTestLogger(capture)}, tt.opts...)...)
			v, err := webhook.NewVerifier(srv.SigningSecret()) // on the wall clock
			require.NoError(t, err)
			var verified atomic.Int32
			_, detach, err := srv.AttachWebhookHandler(webhook.Handler(v, func(context.Context, webhook.Event) error {
				verified.Add(1)
				return nil
			}))
			require.NoError(t, err)
			defer detach()

			clk.Advance(time.Hour)
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"tags": []string{"english"}})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, srv.Flush(ctx))

			ds := srv.Deliveries()
			require.Len(t, ds, 1)
			assert.Equal(t, tt.wantOutcome, ds[0].Outcome)
			// The manual clock stays the time of record either way.
			assert.Equal(t, clk.Now(), ds[0].At, "Delivery.At")
			evs := srv.Events()
			require.Len(t, evs, 1)
			assert.Equal(t, clk.Now().UnixMilli(), evs[0].CreatedAt.UnixMilli(), "the event's createdAt")

			lines := capture.all()
			if tt.wantLog == nil {
				assert.Empty(t, lines)
				assert.Equal(t, int32(1), verified.Load())
				return
			}
			require.Len(t, lines, 1)
			for _, w := range tt.wantLog {
				assert.Contains(t, lines[0], w)
			}
			assert.Equal(t, int32(0), verified.Load())
		})
	}
}

// The hint names the wall clock only when the signature's time is further from it than a
// verifier's tolerance, for a 401, and not when signatures already use the wall clock.
func TestStaleHint(t *testing.T) {
	t.Parallel()
	wall := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		at         time.Time
		status     int
		wallSigned bool
		want       bool
	}{
		{"an hour ahead", wall.Add(time.Hour), http.StatusUnauthorized, false, true},
		{"an hour behind", wall.Add(-time.Hour), http.StatusUnauthorized, false, true},
		{"within the tolerance", wall.Add(4 * time.Minute), http.StatusUnauthorized, false, false},
		{"just past the tolerance", wall.Add(webhook.DefaultTolerance + time.Second), http.StatusUnauthorized, false, true},
		{"signed with the wall clock", wall.Add(time.Hour), http.StatusUnauthorized, true, false},
		{"another status", wall.Add(time.Hour), http.StatusInternalServerError, false, false},
	}
	for _, tt := range tests {
		got := staleHint(Delivery{At: tt.at, StatusCode: tt.status}, tt.wallSigned, wall)
		if (got != "") != tt.want || (tt.want && !strings.Contains(got, "1h0m0s") && tt.at.Sub(wall).Abs() == time.Hour) {
			t.Errorf("%s: hint %q, want one: %t", tt.name, got, tt.want)
		}
	}
}
