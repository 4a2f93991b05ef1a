package webhook

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIntegerTimestampsAreExact reads timestamps too large for a float64 to
// hold exactly: each must come back to the millisecond, so an integer is
// never read through a float.
func TestIntegerTimestampsAreExact(t *testing.T) {
	for _, ms := range []int64{
		1<<53 + 1,                // the first integer a float64 cannot hold
		-(1<<53 + 1),             // and its negative
		1<<62 + 1,                // past 62 bits
		9223372036854775807,      // the largest int64
		-9223372036854775807 - 1, // the smallest
	} {
		t.Run(strconv.FormatInt(ms, 10), func(t *testing.T) {
			ev, err := ParseEvent([]byte(`{"event":"task.cancelled","taskId":"t1","createdAt":` + strconv.FormatInt(ms, 10) + `}`))
			if err != nil {
				t.Fatal(err)
			}
			if want := time.UnixMilli(ms).UTC(); !ev.CreatedAt.Equal(want) {
				t.Errorf("CreatedAt = %v, want %v", ev.CreatedAt, want)
			}
		})
	}
}

// TestHeaderWithLeadingCommaIsEmptyElement: a signature header that starts
// (or ends, or has two commas in a row) with an empty element says so, not
// that the element is of an unknown kind.
func TestHeaderWithLeadingCommaIsEmptyElement(t *testing.T) {
	payload := []byte(`{"event":"task.cancelled","taskId":"t1"}`)
	signed := Sign(payload, "whsec_test", time.Now())
	for _, header := range []string{"," + signed, signed + ",", signed[:len("t=")+13] + ",," + signed[len("t=")+14:]} {
		t.Run(header, func(t *testing.T) {
			err := Verify(payload, header, "whsec_test")
			if !errors.Is(err, errEmptyElement) {
				t.Errorf("Verify(%q) = %v, want %v", header, err, errEmptyElement)
			}
		})
	}
}

// TestTimestampRangeInEveryNotation: an integer timestamp written with a
// zero fraction or an exponent is read over the same range as one written
// as an integer, the whole of int64, to the millisecond; one past the range
// is ErrInvalidPayload in every notation.
func TestTimestampRangeInEveryNotation(t *testing.T) {
	tests := []struct {
		raw    string
		ms     int64
		reject bool
	}{
		{raw: "-9223372036854775808", ms: -1 << 63},
		{raw: "-9223372036854775808.0", ms: -1 << 63},
		{raw: "-9.223372036854775808e18", ms: -1 << 63},
		{raw: "9.223372036854774784e18", ms: 1<<63 - 1024}, // the largest float64 below 2^63
		{raw: "1763700000123.000", ms: 1763700000123},
		{raw: "-9223372036854775809", reject: true},
		{raw: "-9.223372036854777856e18", reject: true}, // the float64 next below -2^63
		{raw: "9223372036854775808", reject: true},
		{raw: "9.223372036854775808e18", reject: true},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			ev, err := ParseEvent([]byte(`{"event":"task.cancelled","taskId":"t1","createdAt":` + tc.raw + `}`))
			if tc.reject {
				if !errors.Is(err, ErrInvalidPayload) {
					t.Errorf("ParseEvent(createdAt %s) = %v, want ErrInvalidPayload", tc.raw, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseEvent(createdAt %s): %v", tc.raw, err)
			}
			if want := time.UnixMilli(tc.ms).UTC(); !ev.CreatedAt.Equal(want) {
				t.Errorf("CreatedAt = %v, want %v", ev.CreatedAt, want)
			}
		})
	}
}

// TestTimestampOfEveryLengthParses: a header's timestamp of any length from
// 1 to 19 digits (the head read digit by digit, the last eight at once) is
// read exactly; leading zeros count as digits, and one non-digit anywhere
// refuses it.
func TestTimestampOfEveryLengthParses(t *testing.T) {
	const digits = "9223372036854775807"
	for n := 1; n <= len(digits); n++ {
		for _, s := range []string{digits[:n], strings.Repeat("0", n-1) + "7", "1" + strings.Repeat("0", n-1)} {
			want, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := parseMillis(s); !ok || got != want {
				t.Errorf("parseMillis(%q) = %d, %v, want %d, true", s, got, ok, want)
			}
			for i := range s {
				bad := s[:i] + "x" + s[i+1:]
				if _, ok := parseMillis(bad); ok {
					t.Errorf("parseMillis(%q) accepted a non-digit", bad)
				}
			}
		}
	}
}
