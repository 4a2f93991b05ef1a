package webhook

import (
	"crypto/sha256"
)

// oneShotDigest returns HMAC-SHA256 (RFC 2104) of "<ts>.<payload>" under
// secret, for the one-shot [Verify]. It is built on crypto/sha256 directly
// rather than crypto/hmac because a one-shot call pays the key schedule
// every time and hmac.New spends five allocations on it; here the padded
// key, the signed prefix and the inner digest share one buffer and the same
// SHA-256 state serves both passes. TestOneShotDigestMatchesCryptoHMAC
// checks it against crypto/hmac, including keys longer than a block.
func oneShotDigest(secret, ts string, payload []byte) []byte {
	const (
		block = 64 // SHA-256 block size
		ipad  = 0x36
		opad  = 0x5c
	)
	n := block + len(ts) + 1 + sha256.Size
	// A key longer than a block is replaced by its digest; the buffer has
	// room past n to hold such a key as bytes, so it costs no allocation.
	long := 0
	if len(secret) > block {
		long = len(secret)
	}
	buf := make([]byte, n, n+long)
	pad := buf[:block]
	h := sha256.New()
	if long > 0 { // mutation:ignore: long is 0 or a length over a block (64), never 1
		h.Write(append(buf[n:], secret...))
		h.Sum(pad[:0])
		h.Reset()
	} else {
		copy(pad, secret)
	}
	for i := range pad {
		pad[i] ^= ipad
	}
	pre := buf[block : block+len(ts)+1]
	pre[copy(pre, ts)] = '.'
	h.Write(pad)
	h.Write(pre)
	h.Write(payload)
	inner := h.Sum(buf[block+len(ts)+1:][:0])
	for i := range pad {
		pad[i] ^= ipad ^ opad // turns the inner pad into the outer one
	}
	h.Reset()
	h.Write(pad)
	h.Write(inner)
	return h.Sum(inner[:0])
}
