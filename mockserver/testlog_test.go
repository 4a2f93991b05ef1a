package mockserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// logCapture is a testing.TB whose Logf lines the test can read.
type logCapture struct {
	testing.TB
	mu    sync.Mutex
	lines []string
}

func (c *logCapture) Logf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, fmt.Sprintf(format, args...))
}

func (c *logCapture) Helper() {}

func (c *logCapture) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

// A receiver that refuses deliveries is named in the test's log, with the status, its
// answer and what usually causes it.
func TestRefusedDeliveriesReachTheTestLog(t *testing.T) {
	t.Parallel()
	ok := func(context.Context, webhook.Event) error { return nil }
	tests := []struct {
		name    string
		handler func(srv *Server) http.Handler
		want    []string
	}{
		{"wrong secret", func(*Server) http.Handler {
			v, err := webhook.NewVerifier("whsec_not_the_servers", webhook.WithClock(func() time.Time { return t0 }))
			if err != nil {
				t.Fatal(err)
			}
			return webhook.Handler(v, ok)
		}, []string{"webhook task.matched", "attempt 1 answered Unauthorized (401)", `receiver said "Unauthorized"`,
			"srv.SigningSecret()", "webhook.WithClock(clk.Now)", "will retry when the manual clock reaches"}},
		{"verifier on the real clock", func(srv *Server) http.Handler {
			v, err := webhook.NewVerifier(srv.SigningSecret()) // the manual clock is in 2025
			if err != nil {
				t.Fatal(err)
			}
			return webhook.Handler(v, ok)
		}, []string{"answered Unauthorized (401)", "webhook.WithClock(clk.Now)", "-sign-with-wall-clock"}},
		{"receiver's own reason", func(*Server) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "inventory database down\nsecond line", http.StatusServiceUnavailable)
			})
		}, []string{"answered Service Unavailable (503)", `receiver said "inventory database down"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			capture := &logCapture{TB: t}
			srv := Start(t, WithClock(NewManualClock(t0)), WithTestLogger(capture))
			_, detach, err := srv.AttachWebhookHandler(tt.handler(srv))
			if err != nil {
				t.Fatal(err)
			}
			defer detach()
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"tags": []string{"english"}})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := srv.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			lines := capture.all()
			if len(lines) != 1 {
				t.Fatalf("%d lines logged, want 1 for the one refused attempt: %q", len(lines), lines)
			}
			for _, w := range tt.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("log line lacks %q:\n%s", w, lines[0])
				}
			}
			if strings.Contains(lines[0], srv.SigningSecret()) {
				t.Error("the signing secret reached the log")
			}
		})
	}
}

// Delivered attempts, and a server started with WithTestLogger(nil), log nothing.
func TestTestLoggerQuietOnSuccessAndWhenOff(t *testing.T) {
	t.Parallel()
	for _, off := range []bool{false, true} {
		capture := &logCapture{TB: t}
		opts := []Option{WithClock(NewManualClock(t0)), WithTestLogger(capture)}
		if off {
			opts = append(opts, WithTestLogger(nil))
		}
		srv := Start(t, opts...)
		handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) })
		if !off {
			handler = func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }
		}
		_, detach, err := srv.AttachWebhookHandler(handler)
		if err != nil {
			t.Fatal(err)
		}
		mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
		mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"tags": []string{"english"}})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := srv.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		detach()
		if lines := capture.all(); len(lines) != 0 || len(srv.Deliveries()) == 0 {
			t.Errorf("off=%t: %d deliveries, logged %q; want deliveries and no line", off, len(srv.Deliveries()), lines)
		}
	}
}
