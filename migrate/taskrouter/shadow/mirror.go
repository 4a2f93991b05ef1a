// Package shadow replays a TaskRouter event export through the mock server with a migration
// plan applied, and reports how this service's choices compare with TaskRouter's: how often
// the worker TaskRouter reserved is eligible here and this service's first choice (alone or
// tied), the acceptance rates on both sides, the tasks nobody here could take, and each
// reservation with the reasons on both sides. Verify checks a plan against the mock server's
// matching rules before any replay; Explain compares one past choice with a suggest-workers
// ranking.
//
// The mock server runs in process (its Handler behind an http.RoundTripper, no socket) on a
// manual clock set to each event's time, with its default matcher settings: the comparison
// uses whatever rules the mock server matches by default, and follows them when they change.
package shadow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// mirror is an in-process mock server and a client that reaches it without a socket.
type mirror struct {
	srv *mockserver.Server
	clk *mockserver.ManualClock
	c   *taskrouting.Client
}

// inProcessBase is the base URL the client is given; requests never leave the process.
const inProcessBase = "http://mockserver.in-process" + mockserver.BasePath

// newMirror starts the server with its default matcher settings; extra options are for
// tests only.
func newMirror(start time.Time, extra ...mockserver.Option) (*mirror, error) {
	clk := mockserver.NewManualClock(start)
	srv, err := mockserver.NewUnstarted(append([]mockserver.Option{mockserver.WithClock(clk), mockserver.WithRequestLog(0)}, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("mock server: %w", err)
	}
	hc := &http.Client{Transport: handlerTransport{srv.Handler()}}
	c, err := taskrouting.NewClient(inProcessBase, srv.APIKey(), taskrouting.WithHTTPClient(hc), taskrouting.WithMaxRetries(0)) // mutation:ignore: the in-process mock server has no limits and no faults, so no answer is retried
	if err != nil {
		srv.Close()
		return nil, err
	}
	return &mirror{srv: srv, clk: clk, c: c}, nil
}

func (m *mirror) close() { m.srv.Close() }

// at moves the mock server's clock forward to t (never back), running whatever falls due.
func (m *mirror) at(t time.Time) {
	if t.After(m.clk.Now()) {
		m.clk.Set(t)
	}
}

func (m *mirror) upsert(ctx context.Context, ws []taskrouting.UpsertWorkerParams) error {
	for _, w := range ws {
		if _, err := m.c.Workers.Upsert(ctx, w); err != nil {
			return fmt.Errorf("upsert worker %s: %w", w.ID, err)
		}
	}
	return nil
}

// candidate is the part of a suggest-workers candidate the comparison reads; its reasons
// stay undecoded until a reservation's detail needs them.
type candidate struct {
	WorkerID string          `json:"workerId"`
	Eligible bool            `json:"eligible"`
	Score    float64         `json:"score"`
	Reasons  json.RawMessage `json:"reasons"`
}

// full is the candidate in the client's type, its reasons decoded.
func (c candidate) full() taskrouting.Candidate {
	out := taskrouting.Candidate{WorkerID: c.WorkerID, Eligible: c.Eligible, Score: c.Score}
	_ = json.Unmarshal(c.Reasons, &out.Reasons) // the mock server's own answer; reasons are detail
	return out
}

// suggest is tasks.suggestWorkers (POST /tasks/suggest-workers) sent straight to the
// handler, reading only each candidate's id, eligibility and score: the comparison's hot path,
// where decoding every reason into the client's types costs more than the question. The
// params are the client's, so the body is what the client would send.
func (m *mirror) suggest(ctx context.Context, p taskrouting.SuggestWorkersParams) ([]candidate, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, inProcessBase+"/tasks/suggest-workers", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+m.srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	w := &recorder{header: http.Header{}, status: http.StatusOK}
	m.srv.Handler().ServeHTTP(w, req)
	if w.status != http.StatusOK {
		return nil, fmt.Errorf("status %d: %.300s", w.status, w.body.String())
	}
	var out struct {
		Workers []candidate `json:"workers"`
	}
	if err := json.Unmarshal(w.body.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("answer: %w", err)
	}
	return out.Workers, nil
}

// handlerTransport answers a request by calling the handler in the same goroutine.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	w := &recorder{header: http.Header{}, status: http.StatusOK}
	if r.Body == nil {
		r.Body = http.NoBody
	}
	t.h.ServeHTTP(w, r)
	return &http.Response{
		Status: fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)), StatusCode: w.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, // mutation:ignore: the client reads no protocol version
		Header: w.header, Body: io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()), Request: r,
	}, nil
}

type recorder struct {
	header  http.Header
	status  int
	written bool
	body    bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(code int) {
	if !w.written {
		w.status, w.written = code, true
	}
}

func (w *recorder) Write(b []byte) (int, error) {
	w.written = true
	return w.body.Write(b)
}
