package mockserver

import (
	"testing"
	"time"
)

// TestHistoryWindowBuckets checks the bucket arithmetic against the listing: a window
// closed at both ends, at least one bucket, and an instant at exactly to counting in the
// last bucket.
func TestHistoryWindowBuckets(t *testing.T) {
	h4 := time.Date(2025, 11, 21, 4, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		from, to time.Time
		want     int
	}{
		{"an instant", h4, h4, 1},
		{"exactly an hour", h4, h4.Add(time.Hour), 1},
		{"an hour and a nanosecond", h4, h4.Add(time.Hour + 1), 2},
		{"mid-hour to mid-hour", h4.Add(30 * time.Minute), h4.Add(90 * time.Minute), 2},
		{"a day of hours", h4, h4.Add(24 * time.Hour), 24},
	}
	for _, tc := range tests {
		h := historyWindow{from: tc.from, to: tc.to, bucket: "hour", size: time.Hour}
		if got := len(h.starts()); got != tc.want {
			t.Errorf("%s: %d buckets listed, want %d", tc.name, got, tc.want)
		}
		if got := h.count(); got != tc.want {
			t.Errorf("%s: count %d, want %d", tc.name, got, tc.want)
		}
		if got := h.index(tc.to); got != tc.want-1 {
			t.Errorf("%s: an instant at to is in bucket %d, want the last (%d)", tc.name, got, tc.want-1)
		}
		if got := h.index(tc.to.Add(1)); got != -1 {
			t.Errorf("%s: after to is in bucket %d, want none", tc.name, got)
		}
	}
}
