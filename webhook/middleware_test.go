package webhook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recorder collects what reached a callback or next handler; handlers run
// on server goroutines, so they record instead of failing the test.
type recorder struct {
	mu     sync.Mutex
	events []Event
	bodies []string
}

func (r *recorder) add(ev Event, body string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	r.bodies = append(r.bodies, body)
}

func (r *recorder) ids() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for _, ev := range r.events {
		ids = append(ids, ev.ID)
	}
	return ids
}

func (r *recorder) snapshot() ([]Event, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...), append([]string(nil), r.bodies...)
}

// delivery posts body with a signature made by secret at the test clock.
type delivery struct {
	method string
	body   []byte
	header string // signature header; "-" for none
}

func signed(body string, secret string, at time.Time) delivery {
	return delivery{method: http.MethodPost, body: []byte(body), header: Sign([]byte(body), secret, at)}
}

func send(t *testing.T, url string, d delivery) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), d.method, url, bytes.NewReader(d.body))
	if err != nil {
		t.Fatalf("NewRequest: %v", err)
	}
	if d.header != "-" {
		req.Header.Set(SignatureHeader, d.header)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading answer: %v", err)
	}
	return resp.StatusCode, string(b)
}

var testNow = time.UnixMilli(1763700000000)

func testVerifier(t *testing.T) *Verifier {
	return mustVerifier(t, testSecret, fixedClock(testNow))
}

func TestHandlerAnswers(t *testing.T) {
	good := `{"event":"task.accepted","id":"evt_1","taskId":"t1","workerId":"w1"}`
	big := `{"event":"task.accepted","pad":"` + strings.Repeat("x", DefaultMaxBodyBytes) + `"}`
	exact := `{"event":"task.accepted","pad":"` + strings.Repeat("x", DefaultMaxBodyBytes-len(`{"event":"task.accepted","pad":""}`)) + `"}`
	tests := []struct {
		name       string
		d          delivery
		fnErr      error
		wantStatus int
		wantCalls  int
	}{
		{"valid", signed(good, testSecret, testNow), nil, http.StatusNoContent, 1},
		{"callback fails", signed(good, testSecret, testNow), errors.New("database down"), http.StatusInternalServerError, 1},
		{"GET", delivery{method: http.MethodGet, header: "-"}, nil, http.StatusMethodNotAllowed, 0},
		{"PUT signed", delivery{method: http.MethodPut, body: []byte(good), header: Sign([]byte(good), testSecret, testNow)}, nil, http.StatusMethodNotAllowed, 0},
		{"no header", delivery{method: http.MethodPost, body: []byte(good), header: "-"}, nil, http.StatusBadRequest, 0},
		{"malformed header", delivery{method: http.MethodPost, body: []byte(good), header: "garbage"}, nil, http.StatusBadRequest, 0},
		{"wrong secret", signed(good, "whsec_other", testNow), nil, http.StatusUnauthorized, 0},
		{"stale", signed(good, testSecret, testNow.Add(-time.Hour)), nil, http.StatusUnauthorized, 0},
		{"future", signed(good, testSecret, testNow.Add(time.Hour)), nil, http.StatusUnauthorized, 0},
		{"tampered", delivery{method: http.MethodPost, body: []byte(good + " "), header: Sign([]byte(good), testSecret, testNow)}, nil, http.StatusUnauthorized, 0},
		{"signed non-JSON", signed("hello", testSecret, testNow), nil, http.StatusBadRequest, 0},
		{"1 MiB + 1", signed(big[:DefaultMaxBodyBytes+1], testSecret, testNow), nil, http.StatusRequestEntityTooLarge, 0},
		{"exactly 1 MiB", signed(exact, testSecret, testNow), nil, http.StatusNoContent, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rec recorder
			srv := httptest.NewServer(Handler(testVerifier(t), func(ctx context.Context, ev Event) error {
				fromCtx, ok := EventFromContext(ctx)
				if !ok || fromCtx.ID != ev.ID {
					return errors.New("event missing from context")
				}
				rec.add(ev, string(ev.Raw))
				return tc.fnErr
			}))
			defer srv.Close()
			status, answer := send(t, srv.URL, tc.d)
			if status != tc.wantStatus {
				t.Errorf("status = %d, want %d", status, tc.wantStatus)
			}
			if status >= 400 && strings.TrimSpace(answer) != http.StatusText(status) {
				t.Errorf("answer %q is not the generic %q", answer, http.StatusText(status))
			}
			events, bodies := rec.snapshot()
			if len(events) != tc.wantCalls {
				t.Fatalf("callback ran %d times, want %d", len(events), tc.wantCalls)
			}
			if tc.wantCalls == 1 && bodies[0] != string(tc.d.body) {
				t.Errorf("callback saw a body of %d bytes, want the %d sent", len(bodies[0]), len(tc.d.body))
			}
		})
	}
}

func TestMiddlewarePassesVerifiedRequestOnly(t *testing.T) {
	var rec recorder
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		ev, ok := EventFromContext(r.Context())
		if err != nil || !ok {
			http.Error(w, "next handler could not read", http.StatusTeapot)
			return
		}
		rec.add(ev, string(body))
		w.WriteHeader(http.StatusAccepted)
	})
	var hookErrs []error
	var hookMu sync.Mutex
	hook := WithErrorHook(func(_ *http.Request, err error) {
		hookMu.Lock()
		defer hookMu.Unlock()
		hookErrs = append(hookErrs, err)
	})
	srv := httptest.NewServer(Middleware(testVerifier(t), hook, WithMaxBodyBytes(64<<10))(next))
	defer srv.Close()

	body := `{"event":"task.completed","id":"evt_7","taskId":"t1","workerId":"w1","result":{"ok":true}}`
	status, _ := send(t, srv.URL, signed(body, testSecret, testNow))
	if status != http.StatusAccepted {
		t.Errorf("valid delivery: status %d, want the next handler's 202", status)
	}
	if status, _ := send(t, srv.URL, signed(body, "whsec_other", testNow)); status != http.StatusUnauthorized {
		t.Errorf("bad signature: status %d, want 401", status)
	}
	large := signed(`{"event":"x","pad":"`+strings.Repeat("y", 64<<10)+`"}`, testSecret, testNow)
	if status, _ := send(t, srv.URL, large); status != http.StatusRequestEntityTooLarge {
		t.Errorf("body over the configured limit: status %d, want 413", status)
	}
	events, bodies := rec.snapshot()
	if diff := cmp.Diff([]string{body}, bodies); diff != "" {
		t.Errorf("bodies read by next (-want +got):\n%s", diff)
	}
	if len(events) == 1 && events[0].ID != "evt_7" {
		t.Errorf("event in context has id %q, want evt_7", events[0].ID)
	}
	hookMu.Lock()
	defer hookMu.Unlock()
	if len(hookErrs) != 2 || !errors.Is(hookErrs[0], ErrNoMatchingSignature) || !errors.Is(hookErrs[1], ErrBodyTooLarge) {
		t.Errorf("error hook saw %v, want [no matching signature, body too large]", hookErrs)
	}
}

func TestHandlerDeduplicates(t *testing.T) {
	dedup, err := NewMemoryDeduper(16)
	if err != nil {
		t.Fatalf("NewMemoryDeduper: %v", err)
	}
	var rec recorder
	failNext := map[string]bool{"evt_2": true}
	var failMu sync.Mutex
	srv := httptest.NewServer(Handler(testVerifier(t), func(_ context.Context, ev Event) error {
		rec.add(ev, "")
		failMu.Lock()
		defer failMu.Unlock()
		if failNext[ev.ID] {
			delete(failNext, ev.ID)
			return errors.New("transient failure")
		}
		return nil
	}, WithDeduper(dedup)))
	defer srv.Close()

	deliver := func(id string) int {
		status, _ := send(t, srv.URL, signed(`{"event":"task.accepted","id":"`+id+`"}`, testSecret, testNow))
		return status
	}
	// evt_1 twice, evt_2 fails once and is redelivered twice, events
	// without an id are never de-duplicated.
	got := []int{deliver("evt_1"), deliver("evt_1"), deliver("evt_2"), deliver("evt_2"), deliver("evt_2"), deliver(""), deliver("")}
	want := []int{204, 204, 500, 204, 204, 204, 204}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"evt_1", "evt_2", "evt_2", "", ""}, rec.ids()); diff != "" {
		t.Errorf("events processed (-want +got):\n%s", diff)
	}
}

func TestMiddlewareDeduplicatesOnNextStatus(t *testing.T) {
	dedup, err := NewMemoryDeduper(16)
	if err != nil {
		t.Fatalf("NewMemoryDeduper: %v", err)
	}
	var rec recorder
	statuses := []int{http.StatusServiceUnavailable, http.StatusOK}
	var mu sync.Mutex
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, _ := EventFromContext(r.Context())
		rec.add(ev, "")
		mu.Lock()
		status := statuses[0]
		statuses = statuses[1:]
		mu.Unlock()
		w.WriteHeader(status)
	})
	srv := httptest.NewServer(Middleware(testVerifier(t), WithDeduper(dedup))(next))
	defer srv.Close()
	d := signed(`{"event":"task.rejected","id":"evt_3"}`, testSecret, testNow)
	got := []int{}
	for i := 0; i < 3; i++ {
		status, _ := send(t, srv.URL, d)
		got = append(got, status)
	}
	if diff := cmp.Diff([]int{503, 200, 204}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"evt_3", "evt_3"}, rec.ids()); diff != "" {
		t.Errorf("next saw (-want +got):\n%s", diff)
	}
}

func TestHandlerPanicReleasesClaim(t *testing.T) {
	dedup, err := NewMemoryDeduper(4)
	if err != nil {
		t.Fatalf("NewMemoryDeduper: %v", err)
	}
	calls := 0
	h := Handler(testVerifier(t), func(context.Context, Event) error {
		calls++
		if calls == 1 {
			panic("boom")
		}
		return nil
	}, WithDeduper(dedup))
	d := signed(`{"event":"task.expired","id":"evt_p"}`, testSecret, testNow)
	serve := func() int {
		req := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(d.body))
		req.Header.Set(SignatureHeader, d.header)
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, req)
		return rr.Code
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("the callback's panic did not propagate")
			}
		}()
		serve()
	}()
	if status := serve(); status != http.StatusNoContent || calls != 2 {
		t.Errorf("redelivery after a panic: status %d after %d calls, want 204 after 2", status, calls)
	}
}

func TestHandlerRequiresVerifierAndCallback(t *testing.T) {
	v := testVerifier(t)
	for name, build := range map[string]func(){
		"nil verifier":            func() { Handler(nil, func(context.Context, Event) error { return nil }) },
		"nil callback":            func() { Handler(v, nil) },
		"nil verifier middleware": func() { Middleware(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			build()
		}()
	}
}

func TestHandlerLimitsBodyWithoutContentLength(t *testing.T) {
	calls := 0
	h := Handler(testVerifier(t), func(context.Context, Event) error { calls++; return nil }, WithMaxBodyBytes(1024))
	tests := []struct {
		name string
		size int
		want int
	}{
		{"at the limit", 1024, http.StatusNoContent},
		{"one byte over", 1025, http.StatusRequestEntityTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prefix := `{"event":"x","pad":"`
			body := []byte(prefix + strings.Repeat("p", tc.size-len(prefix)-2) + `"}`)
			// A reader without a known length, as a chunked request has.
			req := httptest.NewRequest(http.MethodPost, "/hooks", io.MultiReader(bytes.NewReader(body)))
			req.ContentLength = -1
			req.Header.Set(SignatureHeader, Sign(body, testSecret, testNow))
			rr := httptest.NewRecorder()
			h.ServeHTTP(rr, req)
			if rr.Code != tc.want {
				t.Errorf("status = %d, want %d", rr.Code, tc.want)
			}
		})
	}
	if calls != 1 {
		t.Errorf("callback ran %d times, want 1", calls)
	}
}

// TestMiddlewareClientErrorIsNotProcessed: only a 2xx from next marks an event processed. A
// 3xx, 4xx or 5xx answer leaves it to the redelivery, which reaches next again.
func TestMiddlewareClientErrorIsNotProcessed(t *testing.T) {
	for _, status := range []int{http.StatusFound, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict,
		http.StatusUnprocessableEntity, http.StatusTooManyRequests, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			dedup, err := NewMemoryDeduper(16)
			if err != nil {
				t.Fatalf("NewMemoryDeduper: %v", err)
			}
			var calls atomic.Int32
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					w.WriteHeader(status)
					return
				}
				w.WriteHeader(http.StatusOK)
			})
			srv := httptest.NewServer(Middleware(testVerifier(t), WithDeduper(dedup))(next))
			defer srv.Close()
			d := signed(`{"event":"task.created","id":"evt_4xx"}`, testSecret, testNow)
			got := []int{}
			for range 3 {
				s, _ := send(t, srv.URL, d)
				got = append(got, s)
			}
			if diff := cmp.Diff([]int{status, 200, 204}, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			if n := calls.Load(); n != 2 {
				t.Errorf("next ran %d times, want 2 (the failed delivery and its redelivery)", n)
			}
		})
	}
}

// TestMiddlewareJudgesTheFinalStatus: with a deduper, whether an event is
// processed follows the final status the sender received from next, not an
// informational 1xx sent before it, nor a second WriteHeader that net/http
// ignores.
func TestMiddlewareJudgesTheFinalStatus(t *testing.T) {
	tests := []struct {
		name      string
		next      func(w http.ResponseWriter)
		want      []int // statuses of three deliveries of one event
		wantCalls int32
	}{
		{"103 then a body", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusEarlyHints)
			_, _ = w.Write([]byte("ok"))
		}, []int{200, 204, 204}, 1},
		{"103 then 202", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusAccepted)
		}, []int{202, 204, 204}, 1},
		{"103 then 503", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusServiceUnavailable)
		}, []int{503, 503, 503}, 3},
		{"200 then a superfluous 500", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusOK)
			w.WriteHeader(http.StatusInternalServerError)
		}, []int{200, 204, 204}, 1},
		{"500 then a superfluous 200", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusInternalServerError)
			w.WriteHeader(http.StatusOK)
		}, []int{500, 500, 500}, 3},
		{"a body without a status", func(w http.ResponseWriter) {
			_, _ = w.Write([]byte("ok"))
			w.WriteHeader(http.StatusInternalServerError)
		}, []int{200, 204, 204}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dedup, err := NewMemoryDeduper(16)
			if err != nil {
				t.Fatalf("NewMemoryDeduper: %v", err)
			}
			var calls atomic.Int32
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				tc.next(w)
			})
			srv := httptest.NewUnstartedServer(Middleware(testVerifier(t), WithDeduper(dedup))(next))
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the superfluous WriteHeader calls
			srv.Start()
			defer srv.Close()
			d := signed(`{"event":"task.created","id":"evt_final"}`, testSecret, testNow)
			got := []int{}
			for range 3 {
				s, _ := send(t, srv.URL, d)
				got = append(got, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			if n := calls.Load(); n != tc.wantCalls {
				t.Errorf("next ran %d times, want %d", n, tc.wantCalls)
			}
		})
	}
}
