package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// tasks.bookings answers the bookings whose slot overlaps [from, to), by start and then task
// id, optionally of one worker; to before from is 400. Booking an unknown worker, releasing
// a task without a booking and releasing an unknown task are 404, and a released booking
// leaves the list.
func TestBookingsListWindowOrderAndRefusals(t *testing.T) {
	srv := Start(t, WithClock(NewManualClock(t0)))
	ms, h := t0.UnixMilli(), time.Hour.Milliseconds()
	for _, w := range []string{"w1", "w2"} {
		mustAPI(t, srv, http.StatusOK, "POST", "/workers", map[string]any{"id": w, "tags": []string{"x"}})
	}
	for _, s := range []struct {
		id    string
		start int64
	}{{"s1", ms + h}, {"s2", ms + h}, {"s3", ms + 3*h}, {"s4", ms + 3*h}} {
		mustAPI(t, srv, http.StatusAccepted, "POST", "/tasks", map[string]any{"id": s.id, "tags": []string{"x"}, "slot": map[string]any{"startAt": s.start, "durationMs": h}})
	}
	// s2 is booked before s1: the list order comes from the slots and ids, not the bookings.
	for _, b := range [][2]string{{"s2", "w1"}, {"s1", "w2"}, {"s3", "w1"}} {
		mustAPI(t, srv, http.StatusOK, "POST", "/tasks/"+b[0]+"/booking", map[string]any{"workerId": b[1]})
	}
	list := func(query string) []string {
		t.Helper()
		var page struct {
			Bookings []struct {
				TaskID   string `json:"taskId"`
				WorkerID string `json:"workerId"`
			} `json:"bookings"`
			Count int `json:"count"`
		}
		require.NoError(t, json.Unmarshal(mustAPI(t, srv, http.StatusOK, "GET", "/tasks/bookings?"+query, nil).Body, &page))
		out := []string{}
		for _, b := range page.Bookings {
			out = append(out, b.TaskID+"@"+b.WorkerID)
		}
		require.Equal(t, len(out), page.Count)
		return out
	}
	window := func(from, to int64) string { return fmt.Sprintf("from=%d&to=%d", from, to) }
	tests := []struct {
		name, query string
		want        []string
	}{
		{"everything", window(ms, ms+5*h), []string{"s1@w2", "s2@w1", "s3@w1"}},
		{"one worker", window(ms, ms+5*h) + "&workerId=w1", []string{"s2@w1", "s3@w1"}},
		{"between the slots: an end at from and a start at to are outside", window(ms+2*h, ms+3*h), []string{}},
		{"a millisecond into each side", window(ms+2*h-1, ms+3*h+1), []string{"s1@w2", "s2@w1", "s3@w1"}},
	}
	for _, tc := range tests {
		if d := cmp.Diff(tc.want, list(tc.query)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}

	refusals := []struct {
		name, method, path string
		body               any
		status             int
		code               string
	}{
		{"to before from", "GET", "/tasks/bookings?" + window(ms+1, ms), nil, 400, CodeInvalidBody},
		{"book an unknown worker", "POST", "/tasks/s4/booking", map[string]any{"workerId": "nobody"}, 404, CodeNotFound},
		{"release a task without a booking", "DELETE", "/tasks/s4/booking", nil, 404, CodeNotFound},
		{"release an unknown task", "DELETE", "/tasks/nosuch/booking", nil, 404, CodeNotFound},
	}
	for _, tc := range refusals {
		a := api(t, srv, tc.method, tc.path, tc.body)
		if a.Status != tc.status || a.errCode(t) != tc.code {
			t.Errorf("%s: %d %s, want %d %s", tc.name, a.Status, a.Body, tc.status, tc.code)
		}
	}
	mustAPI(t, srv, http.StatusNoContent, "DELETE", "/tasks/s2/booking", nil)
	if d := cmp.Diff([]string{"s1@w2", "s3@w1"}, list(window(ms, ms+5*h))); d != "" {
		t.Errorf("after releasing s2 (-want +got):\n%s", d)
	}
}
