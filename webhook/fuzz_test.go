package webhook

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParseHeader checks that any header either parses into a timestamp that
// round-trips and at least one signature, or fails as missing/malformed;
// never a panic.
func FuzzParseHeader(f *testing.F) {
	sig := contractVectors[0].sig
	for _, seed := range []string{
		"", "garbage", "t=abc,v1=def", "t=123", "v1=abc", "t=123,v1=" + strings.Repeat("x", 64),
		"x=1,v1=" + strings.Repeat("0", 64), "t=12.5,v1=" + sig, "t=12345,v1=nothex!",
		"t=-1,v1=" + sig, "t=99999999999999999999,v1=" + sig, strings.Repeat(",", 10000),
		contractVectors[0].header(), contractVectors[2].header(), "v1=" + sig + ",t=1,v1=" + strings.ToUpper(sig),
		"t=9223372036854775807,v1=" + sig, "t=1750000000000,v1=" + sig[:63] + "\x80",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		var p parsedHeader
		err := parseHeader(header, &p)
		if err != nil {
			if !errors.Is(err, ErrMalformedHeader) && !errors.Is(err, ErrMissingHeader) {
				t.Fatalf("parseHeader(%q) = %v, want a header error", header, err)
			}
			return
		}
		if p.sigs < 1 || p.sigs > maxSignatures {
			t.Fatalf("parseHeader(%q): %d signatures", header, p.sigs)
		}
		if n, err := strconv.ParseInt(p.ts, 10, 64); err != nil || n != p.millis || p.ts[0] == '-' || p.ts[0] == '+' {
			t.Fatalf("parseHeader(%q): ts %q parsed as %d (strconv: %d, %v)", header, p.ts, p.millis, n, err)
		}
		if !strings.Contains(header, "t="+p.ts) {
			t.Fatalf("parseHeader(%q): ts %q is not from the header", header, p.ts)
		}
	})
}

// FuzzVerify checks that a verifier never panics on any body and header,
// and that a pair derived from a valid one by changing, inserting or
// deleting one byte of the body or of the header never verifies. The only
// accepted header edits are those that leave the signed bytes and the
// signature as they were: white space around the header and the case of a
// hex letter.
func FuzzVerify(f *testing.F) {
	for i, vec := range contractVectors {
		f.Add([]byte(vec.body), int64(vec.millis), []byte(vec.body), vec.header(), uint8(i%3), uint16(i*7), byte('a'+i))
	}
	f.Add([]byte{}, int64(0), []byte{0xff, 0xfe}, "t=0,v1=", uint8(0), uint16(0), byte(' '))
	f.Add([]byte(contractVectors[0].body), int64(1<<40), []byte(""), strings.Repeat(",", 10000), uint8(1), uint16(3), byte(','))
	now := time.UnixMilli(1750000000000)
	// A century of tolerance: the timestamps are whatever the fuzzer makes.
	v, err := NewVerifier(testSecret, WithTolerance(100*365*24*time.Hour), fixedClock(now))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, ms int64, rawBody []byte, rawHeader string, op uint8, pos uint16, b byte) {
		// Arbitrary input: any answer but a panic is fine.
		_ = v.Verify(rawBody, rawHeader)
		_, _ = v.ConstructEvent(rawBody, rawHeader)
		_ = Verify(rawBody, rawHeader, testSecret)

		at := now.Add(time.Duration(ms%(1<<40)) * time.Millisecond)
		valid := Sign(body, testSecret, at)
		if err := v.Verify(body, valid); err != nil {
			t.Fatalf("a freshly signed pair does not verify: %v", err)
		}
		mutBody, mutHeader := body, valid
		if op&4 == 0 {
			mutHeader = string(editByte([]byte(valid), op, int(pos), b))
		} else {
			mutBody = editByte(bytes.Clone(body), op, int(pos), b)
		}
		err := v.Verify(mutBody, mutHeader)
		if err != nil {
			return
		}
		if !bytes.Equal(mutBody, body) {
			t.Fatalf("a changed body verified: %q, was %q", mutBody, body)
		}
		if strings.ToLower(strings.TrimSpace(mutHeader)) != valid {
			t.Fatalf("a changed header verified: %q, was %q", mutHeader, valid)
		}
	})
}

// editByte replaces (op%3 == 0), inserts (1) or deletes (2) one byte.
func editByte(s []byte, op uint8, pos int, b byte) []byte {
	switch op % 3 {
	case 0:
		if len(s) == 0 {
			return []byte{b}
		}
		s[pos%len(s)] = b
		return s
	case 1:
		i := pos % (len(s) + 1)
		return append(s[:i:i], append([]byte{b}, s[i:]...)...)
	default:
		if len(s) == 0 {
			return s
		}
		i := pos % len(s)
		return append(s[:i:i], s[i+1:]...)
	}
}
