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
	buf := make([]byte, block+len(ts)+1+sha256.Size)
	pad := buf[:block]
	if len(secret) > block {
		// A key longer than a block is replaced by its digest.
		sum := sha256.Sum256([]byte(secret))
		copy(pad, sum[:])
	} else {
		copy(pad, secret)
	}
	for i := range pad {
		pad[i] ^= ipad
	}
	pre := buf[block : block+len(ts)+1]
	pre[copy(pre, ts)] = '.'
	h := sha256.New()
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
