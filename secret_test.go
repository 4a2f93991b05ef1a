package taskrouting

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a log sink safe for the handler's concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func debugLogger(w *syncBuffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestSecretNeverLeaks runs every error path with a logger on and checks
// the API key appears in no error text, no formatted value and no log line,
// even when the server echoes the key back.
func TestSecretNeverLeaks(t *testing.T) {
	logs := &syncBuffer{}
	var errs []error
	record := func(err error) {
		if err == nil {
			t.Error("expected an error")
			return
		}
		errs = append(errs, err)
	}
	ctx := context.Background()
	echo := `{"error":{"code":"unauthorized","message":"key ` + testKey + ` is revoked"}}`
	statuses := []struct {
		status int
		header map[string]string
		body   string
	}{
		{401, nil, echo},
		{400, nil, `{"error":{"code":"validation_failed","message":"bad"}}`},
		{404, nil, `{"error":{"code":"not_found","message":"no"}}`},
		{409, nil, `{"error":{"code":"` + testKey + `","message":"x"}}`},
		{429, map[string]string{"Retry-After": "9999"}, `{"error":{"code":"rate_limited","message":"later"}}`},
		{503, nil, testKey},
		{500, nil, `not json`},
		{200, nil, testKey}, // a 2xx that does not decode
	}
	var clients []*Client
	for _, s := range statuses {
		srv, _ := serveOnce(t, s.status, s.header, s.body)
		c := newTestClient(t, srv.URL+"/v1", WithLogger(debugLogger(logs)), WithRetryWait(0, time.Millisecond))
		clients = append(clients, c)
		_, err := c.Tasks.Get(ctx, "task_8fk2")
		record(err)
		_, err = c.Tasks.Create(ctx, CreateTaskParams{Tags: []string{"a"}})
		record(err)
	}

	// Connection refused, a reset from the transport, a cancelled context.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	c := newTestClient(t, closed.URL+"/v1", WithLogger(debugLogger(logs)), WithRetryWait(0, time.Millisecond))
	_, err := c.Workers.List(ctx)
	record(err)

	mt := httpmock.NewMockTransport()
	mt.RegisterNoResponder(httpmock.NewErrorResponder(&net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset")}))
	c = newTestClient(t, mockBase, WithHTTPClient(&http.Client{Transport: mt}), WithLogger(debugLogger(logs)), WithRetryWait(0, time.Millisecond))
	_, err = c.Workers.List(ctx)
	record(err)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.Workers.List(cancelled)
	record(err)

	// Caller mistakes, including one that tries to smuggle the key in a header.
	_, err = c.Tasks.Get(ctx, "")
	record(err)
	_, err = c.Workers.List(ctx, WithHeader("Authorization", "Bearer "+testKey))
	record(err)
	_, err = NewClient("https://api.example.com/v1", testKey+"\n")
	record(err)
	_, err = NewClient("not a url", testKey)
	record(err)

	var texts []string
	for _, err := range errs {
		texts = append(texts, err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			texts = append(texts, fmt.Sprintf("%#v", *apiErr), apiErr.Message, apiErr.Code)
		}
	}
	for _, cl := range append(clients, c) {
		j, _ := json.Marshal(cl)
		texts = append(texts,
			fmt.Sprintf("%v", cl), fmt.Sprintf("%+v", cl), fmt.Sprintf("%#v", cl),
			fmt.Sprintf("%v", *cl), fmt.Sprintf("%+v", *cl), fmt.Sprintf("%#v", *cl),
			fmt.Sprintf("%+v", cl.Tasks), fmt.Sprintf("%#v", cl.Workers), string(j))
		debugLogger(logs).Info("client", "client", cl)
	}
	texts = append(texts, logs.String())
	for i, s := range texts {
		if strings.Contains(s, testKey) || strings.Contains(s, "5ecret_DoNotLeak") {
			t.Errorf("text %d leaks the key: %s", i, s)
		}
	}
	if !strings.Contains(logs.String(), `"status":401`) {
		t.Error("the log sink saw no attempt lines; the test is not exercising logging")
	}
	if !strings.Contains(logs.String(), `"apiKey":"[redacted]"`) {
		t.Error("LogValue did not redact the key")
	}
}

func TestLogLines(t *testing.T) {
	logs := &syncBuffer{}
	c, _ := scriptedClient(t, []step{unavailable, created}, WithLogger(debugLogger(logs)))
	_, err := createTask(c, context.Background())
	noError(t, err)
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		noError(t, json.Unmarshal([]byte(l), &m))
		if _, ok := m["duration"].(float64); !ok {
			t.Errorf("line without a duration: %s", l)
		}
		delete(m, "time")
		delete(m, "duration")
		lines = append(lines, m)
	}
	want := []map[string]any{
		{"level": "WARN", "msg": "taskrouting request", "method": "POST", "path": "/tasks", "status": float64(503), "attempt": float64(1), "retrying": true},
		{"level": "DEBUG", "msg": "taskrouting request", "method": "POST", "path": "/tasks", "status": float64(202), "attempt": float64(2), "retrying": false},
	}
	diff(t, "log lines", want, lines)
}

func TestNoLoggerNoOutput(t *testing.T) {
	// retryablehttp's default logger writes through the standard log
	// package; the client must have switched it off. Not parallel: it
	// takes over the log package's output.
	var out bytes.Buffer
	prev := log.Writer()
	log.SetOutput(&out)
	t.Cleanup(func() { log.SetOutput(prev) })

	c, _ := scriptedClient(t, []step{unavailable, created})
	_, err := c.Tasks.Create(context.Background(), CreateTaskParams{Tags: []string{"billing"}})
	require.NoError(t, err)
	assert.Empty(t, out.String(), "the standard logger received output")
}

// TestQuotaConcurrent reads the snapshot while requests update it; run with -race.
func TestQuotaConcurrent(t *testing.T) {
	srv, _ := serveOnce(t, 200, map[string]string{"X-Quota-Workers-Limit": "10", "X-Quota-Workers-Remaining": "3"}, `{"workers":[],"count":0}`)
	c := newTestClient(t, srv.URL+"/v1")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if _, err := c.Workers.List(context.Background()); err != nil {
					t.Error(err)
					return
				}
				_ = c.Quota()
			}
		}()
	}
	wg.Wait()
	diff(t, "quota", QuotaCounter{Limit: 10, Remaining: 3, Known: true}, c.Quota().Workers)
}
