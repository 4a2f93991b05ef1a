package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// SignatureHeader is the HTTP header that carries the signature of a webhook
// delivery, in the form "t=<unix-ms>,v1=<64 lowercase hex>".
const SignatureHeader = "X-Fivexer-Signature"

// DefaultTolerance is how far a delivery's timestamp may lie from the
// receiver's clock, in either direction, before it is rejected.
const DefaultTolerance = 5 * time.Minute

// Sign returns the value of the [SignatureHeader] for payload signed with
// secret at time t: "t=<unix-ms>,v1=<hex HMAC-SHA256>". The signed bytes are
// the decimal timestamp, a '.', then payload exactly as given. The secret is
// used as given (the whole "whsec_..." string), never decoded.
//
// Sign is what senders (such as the mock server) and tests use; receivers
// check the result with [Verify] or a [Verifier].
func Sign(payload []byte, secret string, t time.Time) string {
	ts := strconv.FormatInt(t.UnixMilli(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(payload)
	var sum [sha256.Size]byte
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(sum[:0]))
}
