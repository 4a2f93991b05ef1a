package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scriptedDeduper answers every Claim with claim and err and records the releases.
type scriptedDeduper struct {
	claim    ClaimResult
	err      error
	mu       sync.Mutex
	released []bool
}

func (d *scriptedDeduper) Claim(context.Context, string) (ClaimResult, error) { return d.claim, d.err }

func (d *scriptedDeduper) Release(_ context.Context, _ string, processed bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.released = append(d.released, processed)
}

// Rule: with a deduper, a delivery is processed only on ClaimAcquired (and released as
// processed or not); an event processed before answers 204 without the callback; one
// another delivery is processing answers 409; a deduper that fails answers 503 and the
// error hook gets its error. Neither of the last three releases anything.
func TestHandlerFollowsTheDeduper(t *testing.T) {
	storeDown := errors.New("store down")
	type outcome struct {
		Status   int
		Calls    int
		Released []bool
		Hooked   string // the error hook's error, "" for none
	}
	for _, tc := range []struct {
		name  string
		claim ClaimResult
		err   error
		fnErr error
		want  outcome
	}{
		{"acquired", ClaimAcquired, nil, nil, outcome{Status: 204, Calls: 1, Released: []bool{true}}},
		{"acquired, the callback fails", ClaimAcquired, nil, errors.New("db down"), outcome{Status: 500, Calls: 1, Released: []bool{false}, Hooked: "db down"}},
		{"processed before", ClaimProcessed, nil, nil, outcome{Status: 204}},
		{"in flight elsewhere", ClaimInFlight, nil, nil, outcome{Status: 409, Hooked: "webhook: event is being processed by another delivery"}},
		{"the deduper fails", ClaimAcquired, storeDown, nil, outcome{Status: 503, Hooked: "store down"}},
		// ClaimResult's zero value is no claim: never processed, answered as retryable.
		{"no claim (the zero value)", ClaimResult(0), nil, nil, outcome{Status: 409, Hooked: "webhook: event is being processed by another delivery"}},
		{"an unknown claim", ClaimInFlight + 1, nil, nil, outcome{Status: 409, Hooked: "webhook: event is being processed by another delivery"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &scriptedDeduper{claim: tc.claim, err: tc.err}
			var mu sync.Mutex
			got := outcome{}
			h := Handler(testVerifier(t), func(context.Context, Event) error {
				mu.Lock()
				got.Calls++
				mu.Unlock()
				return tc.fnErr
			}, WithDeduper(d), WithErrorHook(func(_ *http.Request, err error) { got.Hooked = err.Error() }))
			body := `{"event":"task.accepted","id":"evt_1"}`
			req := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
			req.Header.Set(SignatureHeader, Sign([]byte(body), testSecret, testNow))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			got.Status, got.Released = rec.Code, d.released
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// failingBody is a request body whose reading fails.
type failingBody struct{}

func (failingBody) Read([]byte) (int, error) { return 0, errors.New("connection reset") }
func (failingBody) Close() error             { return nil }

// Rule: a body that cannot be read is a 400 with the generic text, and the error hook
// learns it was the reading (not the size, not the signature).
func TestHandlerAnswersAnUnreadableBody(t *testing.T) {
	var hooked error
	called := false
	h := Handler(testVerifier(t), func(context.Context, Event) error { called = true; return nil },
		WithErrorHook(func(_ *http.Request, err error) { hooked = err }))
	req := httptest.NewRequest(http.MethodPost, "/hook", nil)
	req.Body = failingBody{}
	req.ContentLength = -1
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || strings.TrimSpace(rec.Body.String()) != http.StatusText(http.StatusBadRequest) {
		t.Errorf("answer %d %q, want 400 with the generic text", rec.Code, rec.Body.String())
	}
	if hooked == nil || hooked.Error() != "webhook: reading the body failed" || errors.Is(hooked, ErrBodyTooLarge) {
		t.Errorf("error hook got %v, want the reading failure", hooked)
	}
	if called {
		t.Error("the callback ran")
	}
}

// Rule: the next handler of Middleware reaches the server's writer through the wrappers
// (deduper and observer) with http.ResponseController, so it can flush; an observer
// without Done is allowed, and one with Done learns 200 when next writes nothing.
func TestMiddlewareWrappersUnwrap(t *testing.T) {
	for _, withDone := range []bool{false, true} {
		dedup, err := NewMemoryDeduper(4)
		if err != nil {
			t.Fatal(err)
		}
		var results []DeliveryResult
		obs := Observer{}
		if withDone {
			obs.Done = func(_ context.Context, r DeliveryResult) { results = append(results, r) }
		}
		var flushErr error
		h := Middleware(testVerifier(t), WithDeduper(dedup), WithObserver(obs))(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			flushErr = http.NewResponseController(w).Flush()
		}))
		body := `{"event":"task.accepted","id":"evt_1"}`
		req := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
		req.Header.Set(SignatureHeader, Sign([]byte(body), testSecret, testNow))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if flushErr != nil || !rec.Flushed {
			t.Errorf("Done set %v: flush through the wrappers: %v, flushed %v", withDone, flushErr, rec.Flushed)
		}
		if withDone {
			if len(results) != 1 || results[0].Status != http.StatusOK || results[0].Event.ID != "evt_1" {
				t.Errorf("observer got %+v, want one delivery of evt_1 answered 200", results)
			}
		}
	}
}

// Rule: without WithMaxBodyBytes a delivery may be 1 MiB (1,048,576 bytes), as documented,
// and one byte more is refused with 413 before it is read.
func TestDefaultBodyLimitIsOneMiB(t *testing.T) {
	t.Run("no option", func(t *testing.T) { checkOneMiB(t) })
	// WithMaxBodyBytes of 0 or less keeps the default.
	t.Run("WithMaxBodyBytes(0)", func(t *testing.T) { checkOneMiB(t, WithMaxBodyBytes(0)) })
	t.Run("WithMaxBodyBytes(-1)", func(t *testing.T) { checkOneMiB(t, WithMaxBodyBytes(-1)) })
}

func checkOneMiB(t *testing.T, opts ...HandlerOption) {
	h := Handler(testVerifier(t), func(context.Context, Event) error { return nil }, opts...)
	for _, tc := range []struct {
		size int
		want int
	}{{1 << 20, http.StatusNoContent}, {1<<20 + 1, http.StatusRequestEntityTooLarge}} {
		prefix := `{"event":"task.accepted","pad":"`
		body := prefix + strings.Repeat("x", tc.size-len(prefix)-2) + `"}`
		req := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
		req.Header.Set(SignatureHeader, Sign([]byte(body), testSecret, testNow))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if len(body) != tc.size || rec.Code != tc.want {
			t.Errorf("a body of %d bytes: %d, want %d", len(body), rec.Code, tc.want)
		}
	}
}
