package webhook

import (
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"time"
)

// maxSignatures bounds the v1= entries one header may carry. Rotation needs
// two; the bound keeps the work a forged header can cause small and fixed.
const maxSignatures = 8

// maxTimestampDigits is the length of the largest int64 in decimal. Longer
// timestamps (even with leading zeros) are malformed, which also bounds the
// scratch buffer the signed prefix is copied into.
const maxTimestampDigits = 19

// parsedHeader is a signature header taken apart without allocating: it
// points into the header string.
type parsedHeader struct {
	header string // trimmed header, walked again only when sigs > 1
	ts     string // the timestamp digits exactly as sent: they are signed as is
	millis int64
	first  string // the first v1= value, 64 characters
	sigs   int
}

// parseHeader checks header against "t=<digits>,v1=<64 hex>[,v1=...]" (in
// any order, exactly one t=) and fills p. Anything else is malformed: being
// strict here means a header that was altered in transit fails loudly as
// malformed instead of being half understood.
func parseHeader(header string, p *parsedHeader) error {
	h := strings.TrimSpace(header)
	if h == "" {
		return ErrMissingHeader
	}
	p.header = h
	// Fast path for the form Sign produces, "t=<digits>,v1=<64 chars>".
	// Only here are the 64 characters not yet checked to be hex: matches
	// checks them while it compares, and reports ErrMalformedHeader, so
	// the bytes are read once. The general walk below checks everything.
	if n := len(h) - len(",v1=") - 2*sha256.Size; n > 2 && h[:2] == "t=" && h[n:n+4] == ",v1=" {
		if ms, ok := parseMillis(h[2:n]); ok {
			p.ts, p.millis, p.first, p.sigs = h[2:n], ms, h[n+4:], 1
			return nil
		}
	}
	haveTS := false
	for rest := h; ; {
		el := rest
		i := strings.IndexByte(rest, ',')
		if i >= 0 {
			el, rest = rest[:i], rest[i+1:]
		}
		switch {
		case el == "":
			return errEmptyElement
		case strings.HasPrefix(el, "t="):
			if haveTS {
				return errTwoTimestamps
			}
			ms, ok := parseMillis(el[2:])
			if !ok {
				return errTimestamp
			}
			p.ts, p.millis, haveTS = el[2:], ms, true
		case strings.HasPrefix(el, "v1="):
			if p.sigs == maxSignatures {
				return errTooManySigs
			}
			if _, valid := compareHex(nil, el[3:]); !valid {
				return errSignature
			}
			if p.sigs == 0 {
				p.first = el[3:]
			}
			p.sigs++
		default:
			return errUnknownElement
		}
		if i < 0 {
			break
		}
	}
	if !haveTS {
		return errNoTimestamp
	}
	if p.sigs == 0 {
		return errNoSignature
	}
	return nil
}

// matches reports whether sum equals any signature of the header, comparing
// raw digest bytes in constant time. Its error is errSignature when the
// first signature, left unchecked by the fast path, is not hex.
func (p *parsedHeader) matches(sum []byte) (bool, error) {
	equal, valid := compareHex(sum, p.first)
	if !valid {
		return false, errSignature
	}
	if equal || p.sigs == 1 {
		return equal, nil
	}
	// Rare path (rotation): walk the already checked header again for the
	// other v1= entries rather than keep them, so that parsing stays free
	// of allocations.
	seen := 0
	for rest := p.header; rest != ""; {
		el := rest
		if i := strings.IndexByte(rest, ','); i >= 0 {
			el, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if !strings.HasPrefix(el, "v1=") {
			continue
		}
		seen++
		if seen > 1 {
			if equal, _ := compareHex(sum, el[3:]); equal {
				return true, nil
			}
		}
	}
	return false, nil
}

// parseMillis parses 1 to maxTimestampDigits ASCII digits, without sign, into
// an int64, refusing overflow.
func parseMillis(s string) (int64, bool) {
	if len(s) == 0 || len(s) > maxTimestampDigits {
		return 0, false
	}
	// Up to 18 digits cannot overflow, so only a 19-digit value is compared
	// with the int64 limit.
	if len(s) == maxTimestampDigits && s > "9223372036854775807" {
		return 0, false
	}
	var n uint64
	head := s
	if len(s) >= 8 {
		head = s[:len(s)-8]
	}
	for i := 0; i < len(head); i++ {
		d := head[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + uint64(d)
	}
	if len(s) >= 8 {
		// The last eight digits, which every current timestamp has, at
		// once: one long chain of n*10+d is most of the parsing time.
		tail, ok := digits8(s[len(s)-8:])
		if !ok {
			return 0, false
		}
		n = n*1e8 + tail
	}
	return int64(n), true
}

// digits8 parses exactly eight ASCII digits with a few word operations.
func digits8(s string) (uint64, bool) {
	in := s[:8]
	x := uint64(in[0]) | uint64(in[1])<<8 | uint64(in[2])<<16 | uint64(in[3])<<24 |
		uint64(in[4])<<32 | uint64(in[5])<<40 | uint64(in[6])<<48 | uint64(in[7])<<56
	// Every byte is 0x30-0x39 exactly when its high nibble is 3 and adding
	// 6 does not carry into that nibble.
	if x&0xf0f0f0f0f0f0f0f0|(x+0x0606060606060606)&0xf0f0f0f0f0f0f0f0>>4 != 0x3333333333333333 {
		return 0, false
	}
	// Pairwise combine digits, then pairs, then quads (the first character
	// is the most significant digit and sits in the lowest byte).
	x = (x & 0x0f0f0f0f0f0f0f0f) * (10<<8 + 1) >> 8
	x = (x & 0x00ff00ff00ff00ff) * (100<<16 + 1) >> 16
	x = (x & 0x0000ffff0000ffff) * (10000<<32 + 1) >> 32
	return x, true
}

// compareHex decodes s, which must be 64 hex digits of either case, and
// compares the 32 bytes with sum. valid reports whether s is such hex; equal
// whether it is and the bytes equal sum (with a nil sum, s is only checked).
//
// Decoding and comparing are one pass, eight digits (four bytes) per step
// in word arithmetic (SWAR): no branch depends on a digit or on the
// comparison, and every word is compared with no early exit, so the time
// taken says nothing about how much of the signature matched (as with
// crypto/subtle). Signature digits are random, so a per-digit decoder would
// mispredict on most of them; this is the only part of verification besides
// the HMAC that grows with the header.
func compareHex(sum []byte, s string) (equal, valid bool) {
	if len(s) != 2*sha256.Size || (sum != nil && len(sum) != sha256.Size) {
		return false, false
	}
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	var bad uint64
	var diff uint32
	for i := 0; i < sha256.Size/4; i++ {
		in := s[8*i : 8*i+8]
		x := uint64(in[0]) | uint64(in[1])<<8 | uint64(in[2])<<16 | uint64(in[3])<<24 |
			uint64(in[4])<<32 | uint64(in[5])<<40 | uint64(in[6])<<48 | uint64(in[7])<<56
		// Per byte, for ASCII only (non-ASCII is caught by the high bits):
		// adding 0x80-lo sets bit 7 exactly when the byte is >= lo, and no
		// carry crosses into the next byte. Digits are 0x30-0x39; letters,
		// with 'A'-'F' folded onto 'a'-'f', are 0x61-0x66.
		folded := x | 0x20*ones
		ok := (x+(0x80-'0')*ones)&^(x+(0x7f-'9')*ones) |
			(folded+(0x80-'a')*ones)&^(folded+(0x7f-'f')*ones)
		bad |= (x | ^ok) & high
		// Value of a valid digit: its low nibble, plus 9 for letters (bit 6).
		v := x&(0x0f*ones) + 9*(x>>6&ones)
		// Byte 2k of w holds digit 2k in its high nibble and digit 2k+1 in
		// its low one; then gather bytes 0, 2, 4 and 6, in order.
		w := (v<<4 | v>>8) & 0x00ff00ff00ff00ff
		w = (w | w>>8) & 0x0000ffff0000ffff
		w |= w >> 16
		if sum != nil {
			diff |= uint32(w) ^ binary.LittleEndian.Uint32(sum[4*i:4*i+4])
		}
	}
	return sum != nil && diff == 0 && bad == 0, bad == 0
}

// checkTolerance reports whether a delivery signed at millis is within tol of
// now in both directions; exactly tol away is still accepted.
func checkTolerance(millis int64, now time.Time, tol time.Duration) error {
	// Whole seconds first, in int64 arithmetic that cannot overflow for any
	// header timestamp (at most 2^63 ms, so about 9.2e15 s): only when the
	// seconds are close is the exact age in nanoseconds computed.
	// A tolerance is capped at 2^62 ns (146 years) so that the exact age
	// below, at most one second beyond it, still fits in a Duration.
	tol = min(tol, 1<<62)
	ageSec := now.Unix() - millis/1000
	tolSec := int64(tol / time.Second)
	switch {
	case ageSec > tolSec+1:
		return ErrTimestampTooOld
	case ageSec < -tolSec-1:
		return ErrTimestampTooNew
	}
	age := time.Duration(ageSec)*time.Second + time.Duration(int64(now.Nanosecond())-millis%1000*1e6)
	if age > tol {
		return ErrTimestampTooOld
	}
	if age < -tol {
		return ErrTimestampTooNew
	}
	return nil
}
