// Package webhook verifies signed webhook deliveries of the task-routing API
// and turns them into typed events, with net/http handlers for receivers.
//
// A delivery is a POST whose body is a JSON event and whose
// [SignatureHeader] (X-Fivexer-Signature) reads "t=<unix-ms>,v1=<hex>": the
// HMAC-SHA256, keyed with the endpoint's signing secret exactly as given
// ("whsec_..."), of the decimal timestamp, a '.', and the raw body bytes. A
// receiver must check it on the raw bytes, before parsing them, and drop the
// delivery when it fails:
//
//	err := webhook.Verify(body, r.Header.Get(webhook.SignatureHeader), secret)
//
// A receiver that handles many deliveries builds one [Verifier], which
// prepares the key once, is safe for concurrent use, and verifies without
// allocating:
//
//	v, err := webhook.NewVerifier(secret,
//		webhook.WithPreviousSecrets(oldSecret), // during a rotation
//		webhook.WithTolerance(5*time.Minute))   // the default
//	ev, err := v.ConstructEvent(body, header)   // verify, then parse
//
// or mounts the handler, which also limits the body, answers the sender with
// the right status (so that failed deliveries are retried) and can
// de-duplicate redeliveries by event id:
//
//	mux.Handle("POST /hooks", webhook.Handler(v, func(ctx context.Context, ev webhook.Event) error {
//		switch ev.Kind {
//		case webhook.KindTaskMatched:
//			m, err := ev.TaskMatched()
//			...
//		}
//		return nil
//	}, webhook.WithDeduper(dedup)))
//
// [Sign] produces the header; the mock server and tests use it.
//
// # Rules the verifier applies
//
//   - The header is trimmed, then must consist of exactly one t= (1 to 19
//     decimal digits, Unix milliseconds) and 1 to 8 v1= entries (64 hex
//     digits, either case), comma-separated in any order with no other
//     element and no inner white space; anything else is
//     [ErrMalformedHeader]. Any v1 entry may match (a sender rotating its
//     secret signs with both).
//   - The digest is compared in constant time on the raw bytes; every
//     configured secret is tried, the current one first.
//   - The timestamp must lie within the tolerance of the clock in both
//     directions, exactly the tolerance included ([ErrTimestampTooOld],
//     [ErrTimestampTooNew], both matching [ErrTimestampOutsideTolerance]).
//     The signature is checked before the timestamp, so these errors mean
//     "authentic but stale".
//   - Errors never contain a secret, a signature or body bytes, and neither
//     does printing or logging a [Verifier].
//
// # Performance
//
// Measured with
//
//	go test -run '^$' -bench . -benchmem -count 10 ./webhook/
//
// on a shared 2-vCPU AMD EPYC VM (SHA-NI), go1.26, as the median of the ten
// runs; each ratio is against a baseline measured in the same run.
// "keyed HMAC" is the floor for a reusable verifier: one crypto/hmac
// HMAC-SHA256 whose key schedule is paid once, Reset per message, summed into
// a reused buffer and compared with hmac.Equal, over the same signed bytes,
// with no parsing and no clock. "hmac.New" is the floor for the one-shot
// function: a fresh hmac.New, one Write, Sum and hmac.Equal. The Verifier
// benchmark uses an injected clock (WithClock); the one-shot Verify reads
// time.Now, which costs about 60 ns on that VM.
//
//	body     Verifier.Verify  keyed HMAC  ratio  allocs | Verify   hmac.New  ratio  allocs
//	256 B    TBD
//	1 KiB    TBD
//	16 KiB   TBD
//
// TestBenchmarkRatios (run with TASKROUTING_LONG=1) re-measures these ratios,
// alternating each implementation with its baseline, and fails when one
// exceeds its bar (1.3x, 1.15x and 1.1x of the keyed HMAC at 256 B, 1 KiB and
// 16 KiB with 0 allocs/op; 1.1x of hmac.New for the one-shot Verify).
package webhook
