package webhook

import (
	"errors"
	"testing"
	"time"
)

// TestToleranceEdgesInMilliseconds: the age of a signature is exact to the nanosecond of the
// clock and the millisecond of the timestamp, not rounded to whole seconds: a timestamp exactly
// one tolerance away passes, one millisecond further fails, on both sides, and the clock's
// sub-millisecond part counts.
func TestToleranceEdgesInMilliseconds(t *testing.T) {
	const tol = 10 * time.Second
	body := []byte(`{"event":"task.accepted"}`)
	half := time.Date(2026, 11, 27, 12, 0, 0, 500_000_000, time.UTC) // .500 s
	odd := half.Add(400 * time.Microsecond)                          // .500400 s
	for _, tc := range []struct {
		name   string
		now    time.Time
		signed time.Time
		want   error
	}{
		{"exactly one tolerance old", half, half.Add(-tol), nil},
		{"a millisecond older", half, half.Add(-tol - time.Millisecond), ErrTimestampTooOld},
		{"exactly one tolerance ahead", half, half.Add(tol), nil},
		{"a millisecond further ahead", half, half.Add(tol + time.Millisecond), ErrTimestampTooNew},
		// 11:59:50.500 is 10.0004 s before .500400: too old; .501 is 9.9994 s before: fine.
		{"the clock's microseconds make it too old", odd, half.Add(-tol), ErrTimestampTooOld},
		{"the clock's microseconds keep it inside", odd, half.Add(-tol + time.Millisecond), nil},
		{"ahead by 9.9996 s", odd, half.Add(tol), nil},
	} {
		v := mustVerifier(t, testSecret, WithTolerance(tol), fixedClock(tc.now))
		err := v.Verify(body, Sign(body, testSecret, tc.signed))
		if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Errorf("%s: Verify = %v, want %v", tc.name, err, tc.want)
		}
	}
}
