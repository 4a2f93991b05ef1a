package taskrouting

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testKey is the key every test client uses; the secret-leak test looks for it.
const testKey = "sk_test_5ecret_DoNotLeak_91f3"

// wireFixture is one file of testdata/wire (format in its README.md).
type wireFixture struct {
	Operation string `json:"operation"`
	Seq       int    `json:"seq"`
	Request   struct {
		Method         string            `json:"method"`
		Path           string            `json:"path"`
		Query          map[string]string `json:"query"`
		Headers        map[string]string `json:"headers"`
		IdempotencyKey bool              `json:"idempotencyKey"`
		Body           json.RawMessage   `json:"body"`
	} `json:"request"`
	Response struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"response"`
}

func loadFixture(t *testing.T, op string) wireFixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "wire", op+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx wireFixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	if fx.Operation != op {
		t.Fatalf("operation %q in %s.json must match the file name", fx.Operation, op)
	}
	return fx
}

// seenRequest is what a test server received, captured in the handler and
// checked by the test goroutine afterwards.
type seenRequest struct {
	Method  string
	Path    string // escaped, relative to /v1
	Query   url.Values
	Header  http.Header
	Body    []byte
	Arrived time.Time
}

// recorder collects requests across handler goroutines.
type recorder struct {
	mu   sync.Mutex
	reqs []seenRequest
}

func (r *recorder) record(req *http.Request) seenRequest {
	body, _ := io.ReadAll(req.Body)
	s := seenRequest{
		Method:  req.Method,
		Path:    strings.TrimPrefix(req.URL.EscapedPath(), "/v1"),
		Query:   req.URL.Query(),
		Header:  req.Header.Clone(),
		Body:    body,
		Arrived: time.Now(),
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, s)
	r.mu.Unlock()
	return s
}

func (r *recorder) all() []seenRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seenRequest(nil), r.reqs...)
}

// serveFixture answers every request with the fixture's response.
func serveFixture(t *testing.T, fx wireFixture) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	var body []byte
	if len(fx.Response.Body) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, fx.Response.Body); err != nil {
			t.Fatal(err)
		}
		body = buf.Bytes()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		for k, v := range fx.Response.Headers {
			w.Header().Set(k, v)
		}
		if body != nil {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(fx.Response.Status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func newTestClient(t *testing.T, baseURL string, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(baseURL, testKey, opts...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// jsonValue parses b for comparison as data rather than bytes.
func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return v
}

// noError is the precondition check: the test cannot go on after err.
func noError(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// diff reports a cmp.Diff as a non-fatal failure.
func diff(t *testing.T, what string, want, got any, opts ...cmp.Option) {
	t.Helper()
	if d := cmp.Diff(want, got, opts...); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}
