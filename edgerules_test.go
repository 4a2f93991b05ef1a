package taskrouting

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestBookingsRefusesAWindowBefore1970: a window starting even a millisecond
// before the Unix epoch is a *ParamError, and nothing is sent.
func TestBookingsRefusesAWindowBefore1970(t *testing.T) {
	var sent atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"bookings":[]}`))
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL)
	epoch := time.UnixMilli(0).UTC()
	tests := []struct {
		name     string
		from, to time.Time
		refused  bool
	}{
		{"from 1 ms before 1970", epoch.Add(-time.Millisecond), epoch.Add(time.Hour), true},
		{"to 1 ms before 1970", epoch.Add(-time.Hour), epoch.Add(-time.Millisecond), true},
		{"from at 1970", epoch, epoch.Add(time.Hour), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := sent.Load()
			_, err := c.Tasks.Bookings(context.Background(), BookingsParams{From: tc.from, To: tc.to})
			var pe *ParamError
			if got := errors.As(err, &pe); got != tc.refused {
				t.Fatalf("Bookings(%v, %v) = %v, want refused %v", tc.from, tc.to, err, tc.refused)
			}
			if wantSent := !tc.refused; (sent.Load() > before) != wantSent {
				t.Errorf("request sent = %v, want %v", sent.Load() > before, wantSent)
			}
		})
	}
}

// TestCallWithoutOutIgnoresTheAnswerBody: a call that keeps no answer
// (Do with out nil, Booking.Release) succeeds on a 2xx answer with a body.
func TestCallWithoutOutIgnoresTheAnswerBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL)
	ctx := context.Background()
	if err := c.Do(ctx, "POST", "/tasks/t1/escalate", nil, nil); err != nil {
		t.Errorf("Do with out nil: %v", err)
	}
	if err := c.Tasks.Booking.Release(ctx, "t1"); err != nil {
		t.Errorf("Booking.Release: %v", err)
	}
}

// TestOneOfErrorListsTheAllowedValues: a value outside an allowed list is
// refused with the allowed values quoted and separated by ", ".
func TestOneOfErrorListsTheAllowedValues(t *testing.T) {
	c := newTestClient(t, "http://127.0.0.1:1")
	_, err := c.Stats.Timeseries(context.Background(), StatsWindow{Bucket: "week"})
	want := `taskrouting: invalid parameter StatsWindow.Bucket: must be one of "hour", "day"`
	if err == nil || err.Error() != want {
		t.Errorf("Timeseries(Bucket week) = %v, want %s", err, want)
	}
}
