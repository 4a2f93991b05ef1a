package taskrouting

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
)

// Rule: a call is tried again after a transport error the retry policy deems passing, a
// 429, or a 5xx other than 501; never after a 4xx, a 501, a cross-origin redirect or once
// the caller's context has ended; and not when the answer's Retry-After is longer than the
// longest wait allowed or than the time left before the context's deadline.
func TestRetryClassification(t *testing.T) {
	c := newTestClient(t, mockBase)
	answer := func(status int, retryAfter string) *http.Response {
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	soon, cancelSoon := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelSoon()
	bg := context.Background()
	type verdict struct {
		Retry bool
		Stop  error
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		resp *http.Response
		err  error
		want verdict
	}{
		{"429", bg, answer(429, ""), nil, verdict{Retry: true}},
		{"500", bg, answer(500, ""), nil, verdict{Retry: true}},
		{"501", bg, answer(501, ""), nil, verdict{}},
		{"502", bg, answer(502, ""), nil, verdict{Retry: true}},
		{"503", bg, answer(503, ""), nil, verdict{Retry: true}},
		{"599", bg, answer(599, ""), nil, verdict{Retry: true}},
		{"499", bg, answer(499, ""), nil, verdict{}},
		{"409", bg, answer(409, ""), nil, verdict{}},
		{"200", bg, answer(200, ""), nil, verdict{}},
		{"429 waiting the longest allowed", bg, answer(429, "60"), nil, verdict{Retry: true}},
		{"429 waiting longer than allowed", bg, answer(429, "61"), nil, verdict{}},
		{"503 waiting longer than allowed", bg, answer(503, "61"), nil, verdict{}},
		{"500 with a Retry-After it does not read", bg, answer(500, "61"), nil, verdict{Retry: true}},
		{"429 within the deadline", soon, answer(429, "20"), nil, verdict{Retry: true}},
		{"429 past the deadline", soon, answer(429, "40"), nil, verdict{}},
		{"a context ended", canceled, answer(503, ""), nil, verdict{Stop: context.Canceled}},
		{"a transport error", bg, nil, errors.New("connection reset by peer"), verdict{Retry: true}},
		{"a cross-origin redirect", bg, nil, fmt.Errorf("redirect: %w", ErrCrossOriginRedirect), verdict{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			retry, stop := c.classify(tc.ctx, tc.resp, tc.err, time.Minute)
			diff(t, "verdict", tc.want, verdict{retry, stop}, cmpopts.EquateErrors())
		})
	}
}

// Rule: Retry-After is read only on a 429 or a 503, in the client's unit, and sets the
// wait before the next attempt; otherwise the wait doubles from the shortest per attempt,
// is capped at the longest, and is jittered within its upper half (none when the shortest
// is 0). A number of seconds past a day reads as a day.
func TestRetryWaits(t *testing.T) {
	c := newTestClient(t, mockBase)
	withAfter := func(status int, v string) *http.Response {
		return &http.Response{StatusCode: status, Header: http.Header{"Retry-After": {v}}}
	}
	type read struct {
		Wait time.Duration
		OK   bool
	}
	for _, tc := range []struct {
		name string
		resp *http.Response
		want read
	}{
		{"429", withAfter(429, "2"), read{2 * time.Second, true}},
		{"503", withAfter(503, "3"), read{3 * time.Second, true}},
		{"500", withAfter(500, "2"), read{}},
		{"502", withAfter(502, "2"), read{}},
		{"no answer", nil, read{}},
	} {
		w, ok := c.retryAfter(tc.resp)
		diff(t, tc.name, tc.want, read{w, ok})
	}
	for _, tc := range []struct {
		in   string
		unit time.Duration
		want read
	}{
		{"86400", time.Second, read{24 * time.Hour, true}},
		{"86401", time.Second, read{24 * time.Hour, true}},
		{"3", time.Millisecond, read{3 * time.Millisecond, true}},
	} {
		got, ok := parseRetryAfter(tc.in, tc.unit, t0)
		diff(t, tc.in, tc.want, read{got, ok})
	}

	if d := c.backoff(0, time.Second, 3, nil); d != 0 {
		t.Errorf("a shortest wait of 0 waits %v", d)
	}
	if d := c.backoff(time.Second, time.Second, 0, withAfter(503, "5")); d != 5*time.Second {
		t.Errorf("a 503's Retry-After gives %v, want 5s", d)
	}
	if d := c.backoff(time.Second, time.Second, 0, withAfter(500, "5")); d < 500*time.Millisecond || d > time.Second {
		t.Errorf("a 500's Retry-After was read: %v", d)
	}
	// 300 ms doubles to 600 ms, then 1.2 s, capped at 1 s: the wait lies in [step/2, step].
	for attempt, step := range []time.Duration{300 * time.Millisecond, 600 * time.Millisecond, time.Second, time.Second} {
		lo, hi := time.Duration(1<<62), time.Duration(0)
		for range 200 {
			d := c.backoff(300*time.Millisecond, time.Second, attempt, nil)
			lo, hi = min(lo, d), max(hi, d)
		}
		if lo < step/2 || hi > step || hi-lo < step/4 {
			t.Errorf("attempt %d: waits in [%v, %v], want spread within [%v, %v]", attempt, lo, hi, step/2, step)
		}
	}
}
