package webhook

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// mustVerifier builds a verifier or stops the test: a precondition.
func mustVerifier(t testing.TB, secret string, opts ...Option) *Verifier {
	t.Helper()
	v, err := NewVerifier(secret, opts...)
	if err != nil {
		t.Fatalf("NewVerifier: %v", err)
	}
	return v
}

func fixedClock(at time.Time) Option { return WithClock(func() time.Time { return at }) }

func TestSignMatchesContractVectors(t *testing.T) {
	for _, vec := range contractVectors {
		t.Run(vec.name, func(t *testing.T) {
			if diff := cmp.Diff(vec.header(), Sign([]byte(vec.body), vec.secret, vec.at())); diff != "" {
				t.Errorf("Sign (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVerifierAcceptsContractVectors(t *testing.T) {
	for _, vec := range contractVectors {
		t.Run(vec.name, func(t *testing.T) {
			v := mustVerifier(t, vec.secret, fixedClock(vec.at()))
			if err := v.Verify([]byte(vec.body), vec.header()); err != nil {
				t.Errorf("Verify: %v", err)
			}
			upper := "t=" + strconv.FormatInt(vec.millis, 10) + ",v1=" + strings.ToUpper(vec.sig)
			if err := v.Verify([]byte(vec.body), upper); err != nil {
				t.Errorf("Verify with uppercase hex: %v", err)
			}
			if _, err := v.ConstructEvent([]byte(vec.body), vec.header()); err != nil {
				t.Errorf("ConstructEvent: %v", err)
			}
		})
	}
}

func TestVerifierRejectsAlteredContractVectors(t *testing.T) {
	for _, vec := range contractVectors {
		ts := strconv.FormatInt(vec.millis, 10)
		tests := []struct {
			name   string
			secret string
			body   string
			header string
		}{
			{"wrong secret", vec.secret + "x", vec.body, vec.header()},
			{"secret without prefix", strings.TrimPrefix(vec.secret, "whsec_"), vec.body, vec.header()},
			{"tampered body", vec.secret, vec.body + " ", vec.header()},
			{"body re-encoded", vec.secret, strings.ToValidUTF8(vec.body, "\uFFFD") + "\n", vec.header()},
			{"first hex digit flipped", vec.secret, vec.body, "t=" + ts + ",v1=" + flipHex(vec.sig, 0)},
			{"last hex digit flipped", vec.secret, vec.body, "t=" + ts + ",v1=" + flipHex(vec.sig, 63)},
			{"timestamp changed", vec.secret, vec.body, "t=" + strconv.FormatInt(vec.millis+1, 10) + ",v1=" + vec.sig},
			{"timestamp with leading zero", vec.secret, vec.body, "t=0" + ts + ",v1=" + vec.sig},
		}
		for _, tc := range tests {
			t.Run(vec.name+"/"+tc.name, func(t *testing.T) {
				v := mustVerifier(t, tc.secret, fixedClock(vec.at()))
				if err := v.Verify([]byte(tc.body), tc.header); !errors.Is(err, ErrNoMatchingSignature) {
					t.Errorf("Verify = %v, want ErrNoMatchingSignature", err)
				}
			})
		}
	}
}

func TestMalformedHeaders(t *testing.T) {
	sig := contractVectors[0].sig
	tests := []struct {
		name   string
		header string
		want   error
	}{
		{"empty", "", ErrMissingHeader},
		{"blank", " \t ", ErrMissingHeader},
		{"garbage", "garbage", ErrMalformedHeader},
		{"non-digit timestamp, short hex", "t=abc,v1=def", ErrMalformedHeader},
		{"timestamp only", "t=123", ErrMalformedHeader},
		{"signature only", "v1=abc", ErrMalformedHeader},
		{"full signature only", "v1=" + sig, ErrMalformedHeader},
		{"64 x", "t=123,v1=" + strings.Repeat("x", 64), ErrMalformedHeader},
		{"unknown key", "x=1,v1=" + strings.Repeat("0", 64), ErrMalformedHeader},
		{"unknown extra element", "t=123,v1=" + sig + ",v0=" + sig, ErrMalformedHeader},
		{"fractional timestamp", "t=12.5,v1=" + sig, ErrMalformedHeader},
		{"not hex", "t=12345,v1=nothex!", ErrMalformedHeader},
		{"63 hex digits", "t=12345,v1=" + sig[:63], ErrMalformedHeader},
		{"65 hex digits", "t=12345,v1=" + sig + "0", ErrMalformedHeader},
		{"non-ASCII in hex", "t=12345,v1=" + sig[:62] + "\xc3\xa9", ErrMalformedHeader},
		{"negative timestamp", "t=-1750000000000,v1=" + sig, ErrMalformedHeader},
		{"plus sign", "t=+1750000000000,v1=" + sig, ErrMalformedHeader},
		{"huge timestamp", "t=99999999999999999999,v1=" + sig, ErrMalformedHeader},
		{"int64 overflow by one", "t=9223372036854775808,v1=" + sig, ErrMalformedHeader},
		{"empty timestamp", "t=,v1=" + sig, ErrMalformedHeader},
		{"two timestamps", "t=1,t=2,v1=" + sig, ErrMalformedHeader},
		{"space inside", "t=1750000000000, v1=" + sig, ErrMalformedHeader},
		{"trailing comma", "t=1750000000000,v1=" + sig + ",", ErrMalformedHeader},
		{"leading comma", ",t=1750000000000,v1=" + sig, ErrMalformedHeader},
		{"10,000 commas", strings.Repeat(",", 10000), ErrMalformedHeader},
		{"10,000 commas after a valid pair", "t=1,v1=" + sig + strings.Repeat(",", 10000), ErrMalformedHeader},
		{"uppercase key", "T=1750000000000,V1=" + sig, ErrMalformedHeader},
		{"nine signatures", "t=1" + strings.Repeat(",v1="+sig, 9), ErrMalformedHeader},
	}
	v := mustVerifier(t, testSecret)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Verify([]byte("{}"), tc.header)
			if !errors.Is(err, tc.want) {
				t.Errorf("Verifier.Verify = %v, want %v", err, tc.want)
			}
			if err := Verify([]byte("{}"), tc.header, testSecret); !errors.Is(err, tc.want) {
				t.Errorf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestHeaderFormsAccepted(t *testing.T) {
	vec := contractVectors[0]
	ts := strconv.FormatInt(vec.millis, 10)
	other := strings.Repeat("ab", 32)
	tests := []struct{ name, header string }{
		{"canonical", "t=" + ts + ",v1=" + vec.sig},
		{"surrounding white space", " \t" + "t=" + ts + ",v1=" + vec.sig + "\r\n"},
		{"signature first", "v1=" + vec.sig + ",t=" + ts},
		{"matching signature second", "t=" + ts + ",v1=" + other + ",v1=" + vec.sig},
		{"matching signature last of eight", "t=" + ts + strings.Repeat(",v1="+other, 7) + ",v1=" + vec.sig},
		{"mixed case hex", "t=" + ts + ",v1=" + strings.ToUpper(vec.sig[:32]) + vec.sig[32:]},
	}
	v := mustVerifier(t, vec.secret, fixedClock(vec.at()))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := v.Verify([]byte(vec.body), tc.header); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}

func TestToleranceBoundaries(t *testing.T) {
	vec := contractVectors[0]
	tests := []struct {
		name      string
		tolerance time.Duration
		offset    time.Duration // receiver clock minus signing time
		want      error
	}{
		{"same instant", DefaultTolerance, 0, nil},
		{"old at exact boundary", DefaultTolerance, DefaultTolerance, nil},
		{"old boundary minus 1ms", DefaultTolerance, DefaultTolerance - time.Millisecond, nil},
		{"old boundary plus 1ms", DefaultTolerance, DefaultTolerance + time.Millisecond, ErrTimestampTooOld},
		{"old boundary plus 1ns", DefaultTolerance, DefaultTolerance + time.Nanosecond, ErrTimestampTooOld},
		{"new at exact boundary", DefaultTolerance, -DefaultTolerance, nil},
		{"new boundary minus 1ms", DefaultTolerance, -DefaultTolerance + time.Millisecond, nil},
		{"new boundary plus 1ms", DefaultTolerance, -DefaultTolerance - time.Millisecond, ErrTimestampTooNew},
		{"custom tolerance, inside", 10 * time.Second, 10 * time.Second, nil},
		{"custom tolerance, old", 10 * time.Second, 10*time.Second + time.Millisecond, ErrTimestampTooOld},
		{"custom tolerance, new", 10 * time.Second, -10*time.Second - time.Millisecond, ErrTimestampTooNew},
		{"a day old", DefaultTolerance, 24 * time.Hour, ErrTimestampTooOld},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := mustVerifier(t, vec.secret, WithTolerance(tc.tolerance), fixedClock(vec.at().Add(tc.offset)))
			err := v.Verify([]byte(vec.body), vec.header())
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
			if tc.want != nil && !errors.Is(err, ErrTimestampOutsideTolerance) {
				t.Errorf("Verify = %v, want it to match ErrTimestampOutsideTolerance", err)
			}
		})
	}
}

func TestExtremeTimestampsDoNotOverflow(t *testing.T) {
	now := time.UnixMilli(1750000000000)
	for _, ms := range []int64{0, 1, 1<<63 - 1} {
		header := Sign([]byte("{}"), testSecret, time.UnixMilli(ms))
		v := mustVerifier(t, testSecret, fixedClock(now))
		if err := v.Verify([]byte("{}"), header); !errors.Is(err, ErrTimestampOutsideTolerance) {
			t.Errorf("t=%d: Verify = %v, want outside tolerance", ms, err)
		}
	}
}

func TestRotation(t *testing.T) {
	vec := contractVectors[3] // signed with whsec_rotated_2026
	tests := []struct {
		name string
		opts []Option
		want error
	}{
		{"current secret only", nil, ErrNoMatchingSignature},
		{"rotated secret as previous", []Option{WithPreviousSecrets("whsec_other", vec.secret)}, nil},
		{"previous secrets in two options", []Option{WithPreviousSecrets("whsec_other"), WithPreviousSecrets(vec.secret)}, nil},
		{"unrelated previous secret", []Option{WithPreviousSecrets("whsec_other")}, ErrNoMatchingSignature},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := mustVerifier(t, testSecret, append(tc.opts, fixedClock(vec.at()))...)
			if err := v.Verify([]byte(vec.body), vec.header()); !errors.Is(err, tc.want) {
				t.Errorf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
	// A sender mid-rotation signs with both secrets; either receiver verifies.
	body := []byte(vec.body)
	both := vec.header() + ",v1=" + contractVectors[0].sig
	for _, secret := range []string{testSecret, vec.secret} {
		v := mustVerifier(t, secret, fixedClock(vec.at()))
		if err := v.Verify(body, both); err != nil {
			t.Errorf("header signed with both secrets, receiver %d secrets: %v", len(secret), err)
		}
	}
}

func TestNewVerifierRejectsBadConfiguration(t *testing.T) {
	tests := []struct {
		name   string
		secret string
		opts   []Option
		want   error
	}{
		{"empty secret", "", nil, ErrInvalidSecret},
		{"blank secret", " \t\n", nil, ErrInvalidSecret},
		{"blank secret with previous ones", " ", []Option{WithPreviousSecrets(testSecret)}, ErrInvalidSecret},
		{"empty previous secret", testSecret, []Option{WithPreviousSecrets("")}, ErrInvalidSecret},
		{"zero tolerance", testSecret, []Option{WithTolerance(0)}, ErrInvalidOption},
		{"negative tolerance", testSecret, []Option{WithTolerance(-time.Second)}, ErrInvalidOption},
		{"nil clock", testSecret, []Option{WithClock(nil)}, ErrInvalidOption},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := NewVerifier(tc.secret, tc.opts...)
			if !errors.Is(err, tc.want) || v != nil {
				t.Errorf("NewVerifier = %v, %v; want nil, %v", v, err, tc.want)
			}
			// The message says which secret is blank: the current one is
			// the bare sentinel, a previous one says so.
			if tc.want == ErrInvalidSecret {
				previous := strings.HasPrefix(tc.name, "empty previous")
				if err == nil || strings.Contains(err.Error(), "previous") != previous {
					t.Errorf("NewVerifier = %v; names the previous secret: want %v", err, previous)
				}
			}
		})
	}
	if err := Verify([]byte("{}"), Sign([]byte("{}"), "", time.Now()), ""); !errors.Is(err, ErrInvalidSecret) {
		t.Errorf("Verify with empty secret = %v, want ErrInvalidSecret", err)
	}
	var nilVerifier *Verifier
	if err := nilVerifier.Verify([]byte("{}"), "t=1,v1="+contractVectors[0].sig); !errors.Is(err, ErrInvalidSecret) {
		t.Errorf("nil Verifier.Verify = %v, want ErrInvalidSecret", err)
	}
}

func TestOneShotVerify(t *testing.T) {
	body := []byte(`{"event":"task.accepted","taskId":"t1","workerId":"w1"}`)
	now := time.Now()
	tests := []struct {
		name   string
		header string
		want   error
	}{
		{"fresh", Sign(body, testSecret, now), nil},
		{"stale", Sign(body, testSecret, now.Add(-DefaultTolerance-time.Minute)), ErrTimestampTooOld},
		{"future", Sign(body, testSecret, now.Add(DefaultTolerance+time.Minute)), ErrTimestampTooNew},
		{"other secret", Sign(body, "whsec_other", now), ErrNoMatchingSignature},
		{"missing", "", ErrMissingHeader},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := Verify(body, tc.header, testSecret); !errors.Is(err, tc.want) {
				t.Errorf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestHugeToleranceDoesNotOverflow(t *testing.T) {
	now := time.UnixMilli(1750000000000)
	for _, ms := range []int64{0, 1750000000000, 1<<63 - 1} {
		header := Sign([]byte("{}"), testSecret, time.UnixMilli(ms))
		v := mustVerifier(t, testSecret, WithTolerance(time.Duration(1<<63-1)), fixedClock(now))
		err := v.Verify([]byte("{}"), header)
		want := error(nil)
		if ms == 1<<63-1 {
			want = ErrTimestampTooNew // 292 million years ahead: beyond any tolerance
		}
		if !errors.Is(err, want) {
			t.Errorf("t=%d: Verify = %v, want %v", ms, err, want)
		}
	}
}
