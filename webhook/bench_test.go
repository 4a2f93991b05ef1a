package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"strconv"
	"testing"
	"time"
)

// benchSizes are the body sizes the performance bar is stated for.
var benchSizes = []int{256, 1 << 10, 16 << 10}

// benchInput is one signed delivery for a benchmark: the body, its header,
// and the exact bytes the signature covers (for the baselines).
type benchInput struct {
	body, signed []byte
	header       string
	want         [sha256.Size]byte
	at           time.Time
}

func newBenchInput(size int) benchInput {
	at := time.UnixMilli(1750000000000)
	body := bytes.Repeat([]byte("x"), size)
	header := Sign(body, testSecret, at)
	signed := append([]byte(strconv.FormatInt(at.UnixMilli(), 10)+"."), body...)
	in := benchInput{body: body, signed: signed, header: header, at: at}
	mac := hmac.New(sha256.New, []byte(testSecret))
	mac.Write(signed)
	copy(in.want[:], mac.Sum(nil))
	return in
}

// benchKeyedHMAC is the floor for a reusable verifier: one HMAC whose key
// schedule is paid once, reset per message, summed into a reused buffer and
// compared with the expected digest. It does no parsing and no clock read.
func benchKeyedHMAC(b *testing.B, in benchInput) {
	mac := hmac.New(sha256.New, []byte(testSecret))
	var sum [sha256.Size]byte
	b.SetBytes(int64(len(in.body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mac.Reset()
		mac.Write(in.signed)
		if !hmac.Equal(mac.Sum(sum[:0]), in.want[:]) {
			b.Fatal("baseline digest mismatch")
		}
	}
}

func benchVerifier(b *testing.B, in benchInput) {
	v, err := NewVerifier(testSecret, WithClock(func() time.Time { return in.at }))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in.body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := v.Verify(in.body, in.header); err != nil {
			b.Fatal(err)
		}
	}
}

// benchOneShotHMAC is the floor for the one-shot Verify: a fresh keyed HMAC
// per message, written and compared.
func benchOneShotHMAC(b *testing.B, in benchInput) {
	key := []byte(testSecret)
	b.SetBytes(int64(len(in.body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mac := hmac.New(sha256.New, key)
		mac.Write(in.signed)
		if !hmac.Equal(mac.Sum(nil), in.want[:]) {
			b.Fatal("baseline digest mismatch")
		}
	}
}

func benchOneShotVerify(b *testing.B, in benchInput) {
	// The one-shot function reads the wall clock, so sign "now" once; the
	// run is far shorter than the tolerance.
	in.header = Sign(in.body, testSecret, time.Now())
	b.SetBytes(int64(len(in.body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Verify(in.body, in.header, testSecret); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifier(b *testing.B) {
	for _, size := range benchSizes {
		in := newBenchInput(size)
		b.Run(fmt.Sprintf("size=%d/impl=keyed-hmac", size), func(b *testing.B) { benchKeyedHMAC(b, in) })
		b.Run(fmt.Sprintf("size=%d/impl=verifier", size), func(b *testing.B) { benchVerifier(b, in) })
	}
}

func BenchmarkVerifyOneShot(b *testing.B) {
	for _, size := range benchSizes {
		in := newBenchInput(size)
		b.Run(fmt.Sprintf("size=%d/impl=hmac-new", size), func(b *testing.B) { benchOneShotHMAC(b, in) })
		b.Run(fmt.Sprintf("size=%d/impl=verify", size), func(b *testing.B) { benchOneShotVerify(b, in) })
	}
}
