package taskrouting

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNewClientValidates(t *testing.T) {
	tests := []struct {
		name, baseURL, key string
		opts               []Option
		param              string // "" when valid
	}{
		{"ok", "https://api.example.com/v1", "sk_live_x", nil, ""},
		{"trailing slashes", "https://api.example.com/v1///", "sk_live_x", nil, ""},
		{"other key kind allowed", "http://localhost:8080/v1", "custom-key", nil, ""},
		{"empty url", "", "sk_live_x", nil, "baseURL"},
		{"no scheme", "api.example.com/v1", "sk_live_x", nil, "baseURL"},
		{"ftp", "ftp://api.example.com/v1", "sk_live_x", nil, "baseURL"},
		{"no host", "https:///v1", "sk_live_x", nil, "baseURL"},
		{"query", "https://api.example.com/v1?x=1", "sk_live_x", nil, "baseURL"},
		{"user info", "https://u:p@api.example.com/v1", "sk_live_x", nil, "baseURL"},
		{"bad escape", "https://api.example.com/%zz", "sk_live_x", nil, "baseURL"},
		{"empty key", "https://api.example.com/v1", "", nil, "apiKey"},
		{"key with newline", "https://api.example.com/v1", "sk_live_x\r\nX-Evil: 1", nil, "apiKey"},
		{"nil http client", "https://api.example.com/v1", "sk_live_x", []Option{WithHTTPClient(nil)}, "WithHTTPClient"},
		{"negative retries", "https://api.example.com/v1", "sk_live_x", []Option{WithMaxRetries(-1)}, "WithMaxRetries"},
		{"wait order", "https://api.example.com/v1", "sk_live_x", []Option{WithRetryWait(time.Second, time.Millisecond)}, "WithRetryWait"},
		{"negative cap", "https://api.example.com/v1", "sk_live_x", []Option{WithMaxRetryAfter(-time.Second)}, "WithMaxRetryAfter"},
		{"ua newline", "https://api.example.com/v1", "sk_live_x", []Option{WithUserAgent("a\nb")}, "WithUserAgent"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClient(tc.baseURL, tc.key, tc.opts...)
			if tc.param == "" {
				noError(t, err)
				diff(t, "BaseURL", strings.TrimRight(tc.baseURL, "/"), c.BaseURL())
				return
			}
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want *ParamError", err)
			}
			diff(t, "param", tc.param, pe.Param)
			if c != nil {
				t.Error("client returned with an error")
			}
		})
	}
}

func TestSandbox(t *testing.T) {
	for key, want := range map[string]bool{"sk_test_abc": true, "sk_live_abc": false, "other": false} {
		c, err := NewClient("https://api.example.com/v1", key)
		noError(t, err)
		if c.Sandbox() != want {
			t.Errorf("Sandbox() for %q = %t", key, !want)
		}
	}
}

func TestHeadersAndOptions(t *testing.T) {
	srv, rec := serveOnce(t, 200, nil, `{"workers":[],"count":0}`)
	c := newTestClient(t, srv.URL+"/v1", WithUserAgent("myapp/1.2"))
	_, err := c.Workers.List(context.Background(), WithHeader("X-Request-Id", "req-1"), WithIdempotencyKey("ignored-on-get"))
	noError(t, err)
	reqs := rec.all()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	h := reqs[0].Header
	got := map[string]string{
		"X-Request-Id":    h.Get("X-Request-Id"),
		"Idempotency-Key": h.Get("Idempotency-Key"),
		"Accept":          h.Get("Accept"),
		"Content-Type":    h.Get("Content-Type"),
	}
	want := map[string]string{"X-Request-Id": "req-1", "Idempotency-Key": "", "Accept": "application/json", "Content-Type": ""}
	diff(t, "headers", want, got)
	if ua := h.Get("User-Agent"); !strings.HasPrefix(ua, "myapp/1.2 taskrouting-go/"+Version+" go/go") {
		t.Errorf("User-Agent %q", ua)
	}
}

func TestPathSegmentsEscaped(t *testing.T) {
	srv, rec := serveOnce(t, 200, nil, `{"id":"a/b c"}`)
	c := newTestClient(t, srv.URL+"/v1")
	_, err := c.Workers.Patch(context.Background(), "a/b c?", PatchWorkerParams{Available: Ptr(false)})
	noError(t, err)
	reqs := rec.all()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	diff(t, "path", "/workers/a%2Fb%20c%3F", reqs[0].Path)
	diff(t, "body", map[string]any{"available": false}, jsonValue(t, reqs[0].Body))
}

// TestOptionalFields: absent, zero and empty values reach the wire as the
// API needs them.
func TestOptionalFields(t *testing.T) {
	tests := []struct {
		name string
		call func(context.Context, *Client) error
		want any
	}{
		{"upsert {} lets the server make the id", func(ctx context.Context, c *Client) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{})
			return err
		}, map[string]any{}},
		{"available false and backlog 0 are sent", func(ctx context.Context, c *Client) error {
			_, err := c.Workers.Upsert(ctx, UpsertWorkerParams{ID: "w", Available: Ptr(false), MaxBacklogSize: Ptr(0)})
			return err
		}, map[string]any{"id": "w", "available": false, "maxBacklogSize": float64(0)}},
		{"empty tags clear, nil tags keep", func(ctx context.Context, c *Client) error {
			_, err := c.Workers.Patch(ctx, "w", PatchWorkerParams{Tags: []string{}})
			return err
		}, map[string]any{"tags": []any{}}},
		{"escalation null", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"a"}, Escalation: Null[Escalation]()})
			return err
		}, map[string]any{"tags": []any{"a"}, "escalation": nil}},
		{"escalation absent, schedule in ms", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"a"}, Schedule: &Schedule{NotAfter: t0}})
			return err
		}, map[string]any{"tags": []any{"a"}, "schedule": map[string]any{"notAfter": float64(1763700000000)}}},
		{"priority 0 is sent by SetPriority", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.SetPriority(ctx, "t", 0)
			return err
		}, map[string]any{"priority": float64(0)}},
		{"release backlog only when true", func(ctx context.Context, c *Client) error {
			_, err := c.Workers.SetAvailability(ctx, "w", SetAvailabilityParams{Available: true})
			return err
		}, map[string]any{"available": true}},
		{"complete without result", func(ctx context.Context, c *Client) error {
			_, err := c.Decisions.Complete(ctx, "t", "w", nil)
			return err
		}, map[string]any{"workerId": "w"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, `{}`)
			c := newTestClient(t, srv.URL+"/v1")
			noError(t, tc.call(context.Background(), c))
			reqs := rec.all()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			diff(t, "body", tc.want, jsonValue(t, reqs[0].Body))
		})
	}
}

func TestQuotaMergesAcrossResponses(t *testing.T) {
	step1 := http.Header{
		"X-Quota-Workers-Limit":     {"100"},
		"X-Quota-Workers-Remaining": {"99"},
		"X-Quota-Skills-Limit":      {"50"},
	}
	step2 := http.Header{
		"X-Quota-Workers-Remaining": {"98"},
		"X-Quota-Skills-Remaining":  {"not-a-number"},
	}
	var q quotaTracker
	q.update(step1)
	got := q.update(step2)
	want := Quota{
		Workers: QuotaCounter{Limit: 100, Remaining: 98, Known: true},
		Skills:  QuotaCounter{Limit: 50, Known: true},
	}
	diff(t, "quota", want, got)
	diff(t, "get", want, q.get())
}
