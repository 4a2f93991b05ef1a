package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSecretsNeverLeak checks every error message and every way of printing
// a Verifier for the secrets, the signatures and the body.
func TestSecretsNeverLeak(t *testing.T) {
	vec := contractVectors[0]
	previous := "whsec_previous_secret"
	v := mustVerifier(t, vec.secret, WithPreviousSecrets(previous), fixedClock(vec.at()))
	body := []byte(vec.body)
	computed := Sign(body, vec.secret, vec.at().Add(time.Hour))
	headers := []string{
		"", "garbage", "t=1,v1=" + vec.sig, vec.header(),
		"t=" + strconv.FormatInt(vec.millis, 10) + ",v1=" + flipHex(vec.sig, 5),
		computed, "t=1,v1=" + vec.sig + "zz",
	}
	var texts []string
	for _, h := range headers {
		for _, b := range [][]byte{body, []byte("tampered " + vec.body)} {
			if err := v.Verify(b, h); err != nil {
				texts = append(texts, err.Error(), fmt.Sprintf("%+v %#v", err, err))
			}
			if _, err := ConstructEvent(b, h, vec.secret); err != nil {
				texts = append(texts, err.Error())
			}
		}
	}
	if _, err := ParseEvent([]byte(`{"event":"task.matched","matchedAt":"whsec_in_body"}`)); err != nil {
		texts = append(texts, err.Error())
	}
	if _, err := ParseEvent([]byte(`{"event":whsec_in_body}`)); err != nil {
		texts = append(texts, err.Error())
	}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("v", "verifier", v, "deref", *v)
	texts = append(texts, fmt.Sprint(v), fmt.Sprintf("%v %+v %#v %s %q %x", v, v, v, v, v, v),
		fmt.Sprintf("%+v %#v", *v, *v), v.String(), v.GoString(), logged.String())
	if len(texts) < 20 {
		t.Fatalf("only %d texts collected", len(texts))
	}
	secretParts := []string{vec.secret, previous, "testsecret", "previous_secret", vec.sig, computed[len(computed)-64:], "whsec_in_body", "task_8fk2"}
	for _, text := range texts {
		for _, part := range secretParts {
			if strings.Contains(strings.ToLower(text), strings.ToLower(part)) {
				t.Errorf("%q contains %q", text, part)
			}
		}
	}
	if got, want := fmt.Sprint(v), "webhook.Verifier{secrets: 2, tolerance: 5m0s}"; got != want {
		t.Errorf("fmt.Sprint(v) = %q, want %q", got, want)
	}
}

func TestVerifierConcurrentUse(t *testing.T) {
	vec := contractVectors[0]
	v := mustVerifier(t, "whsec_current", WithPreviousSecrets(vec.secret), fixedClock(vec.at()))
	const workers, rounds = 8, 200
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			for i := 0; i < rounds; i++ {
				body := []byte(vec.body)
				want := error(nil)
				if (w+i)%2 == 1 {
					body = append(body, ' ')
					want = ErrNoMatchingSignature
				}
				if err := v.Verify(body, vec.header()); !errors.Is(err, want) {
					errs <- fmt.Errorf("worker %d round %d: %v, want %v", w, i, err, want)
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestVerifierDoesNotAllocate(t *testing.T) {
	vec := contractVectors[0]
	v := mustVerifier(t, vec.secret, fixedClock(vec.at()))
	body := []byte(vec.body)
	header := vec.header()
	allocs := testing.AllocsPerRun(100, func() {
		if err := v.Verify(body, header); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Verifier.Verify allocates %v times per call, want 0", allocs)
	}
}

func TestOneShotDigestMatchesCryptoHMAC(t *testing.T) {
	secrets := []string{"k", testSecret, strings.Repeat("s", 63), strings.Repeat("s", 64), strings.Repeat("s", 65), strings.Repeat("long", 100)}
	bodies := []string{"", "{}", contractVectors[4].body, strings.Repeat("b", 1000)}
	for _, secret := range secrets {
		for _, body := range bodies {
			for _, ts := range []string{"0", "1750000000000", "9223372036854775807"} {
				mac := hmac.New(sha256.New, []byte(secret))
				mac.Write([]byte(ts + "." + body))
				want := hex.EncodeToString(mac.Sum(nil))
				got := hex.EncodeToString(oneShotDigest(secret, ts, []byte(body)))
				if got != want {
					t.Errorf("secret len %d, body len %d, t=%s: got %s, want %s", len(secret), len(body), ts, got, want)
				}
			}
		}
	}
}

// TestCompareHexEveryByteValue puts each of the 256 byte values at each of
// the 64 positions of a signature and checks compareHex against
// encoding/hex: valid exactly for hex digits of either case, equal exactly
// when the digit keeps the value.
func TestCompareHexEveryByteValue(t *testing.T) {
	sum := sha256.Sum256([]byte("compareHex"))
	lower := hex.EncodeToString(sum[:])
	for _, base := range []string{lower, strings.ToUpper(lower)} {
		if equal, valid := compareHex(sum[:], base); !equal || !valid {
			t.Fatalf("compareHex(%s) = %v, %v; want true, true", base, equal, valid)
		}
		for pos := 0; pos < len(base); pos++ {
			for c := 0; c < 256; c++ {
				s := base[:pos] + string([]byte{byte(c)}) + base[pos+1:]
				decoded, err := hex.DecodeString(s)
				wantValid := err == nil
				wantEqual := wantValid && string(decoded) == string(sum[:])
				equal, valid := compareHex(sum[:], s)
				if equal != wantEqual || valid != wantValid {
					t.Fatalf("byte %#x at %d: compareHex = %v, %v; want %v, %v", c, pos, equal, valid, wantEqual, wantValid)
				}
				if _, valid := compareHex(nil, s); valid != wantValid {
					t.Fatalf("byte %#x at %d: compareHex(nil) valid = %v, want %v", c, pos, valid, wantValid)
				}
			}
		}
	}
}

// TestOneShotVerifyAllocatesOnce holds the one-shot Verify to the single
// allocation the package documents: the padded key, the signed prefix and
// the inner digest share one buffer, for every key and timestamp length.
func TestOneShotVerifyAllocatesOnce(t *testing.T) {
	vec := contractVectors[0]
	body := []byte(vec.body)
	for _, secret := range []string{"k", vec.secret, strings.Repeat("s", 64), strings.Repeat("s", 65)} {
		header := Sign(body, secret, time.Now()) // Verify reads the wall clock
		allocs := testing.AllocsPerRun(100, func() {
			if err := Verify(body, header, secret); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 1 {
			t.Errorf("Verify with a key of %d bytes allocates %v times per call, want 1", len(secret), allocs)
		}
	}
}
