// Package webhook verifies signed webhook deliveries of the task-routing API
// and turns them into typed events, with net/http handlers for receivers.
//
// # Verifying a delivery
//
// Check the signature on the raw body bytes, before parsing them, and drop
// the delivery when it fails; [ConstructEvent] does both in that order:
//
//	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, webhook.DefaultMaxBodyBytes))
//	...
//	ev, err := webhook.ConstructEvent(body, r.Header.Get(webhook.SignatureHeader), secret)
//	if err != nil {
//		http.Error(w, "not verified", http.StatusUnauthorized) // forged, altered or stale
//		return
//	}
//	if ev.Kind == webhook.KindTaskMatched {
//		m, _ := ev.TaskMatched() // typed members of the kind
//		...
//	}
//
// A receiver that handles many deliveries builds one [Verifier] instead: it
// prepares the key once, is safe for concurrent use and verifies without
// allocating.
//
//	v, err := webhook.NewVerifier(secret)
//	ev, err := v.ConstructEvent(body, header)
//
// # Receiving with net/http
//
// Give every handler [WithErrorHook] first: the sender is only ever told a
// generic status, so without the hook a refused delivery (a wrong secret, a
// clock out of tolerance, your callback's error) leaves no trace on your
// side and looks like "no events arrive".
//
// [Handler] does all of the above for a mux: it limits the body, verifies,
// parses, calls your function, answers the sender with the status that makes
// it retry a failed delivery (and only such) and, with [WithDeduper], skips
// redeliveries of an event already processed. [Middleware] does the same in
// front of your own handler, which reads the event with [EventFromContext].
//
//	dedup, err := webhook.NewMemoryDeduper(10_000) // remembers the newest 10,000 event ids
//	...
//	mux.Handle("POST /hooks", webhook.Handler(v, func(ctx context.Context, ev webhook.Event) error {
//		switch ev.Kind {
//		case webhook.KindTaskMatched:
//			m, err := ev.TaskMatched()
//			...
//		}
//		return nil // an error answers 500, so the sender retries
//	}, webhook.WithErrorHook(func(r *http.Request, err error) {
//		slog.WarnContext(r.Context(), "webhook refused", "err", err) // never a secret or body bytes
//	}), webhook.WithDeduper(dedup)))
//
// A callback that answers a task.matched must expect the same match twice:
// when a first delivery's accept went through but its answer was lost, the
// sender delivers again and a second accept answers 409 invalid_state. Use
// taskrouting's Decisions.EnsureAccepted, which counts an accept already
// made as done, and return nil for an offer that moved on
// (ErrInvalidState), since no retry can change it.
//
// [WithObserver] reports each delivery's progress (received, verified or
// why not, answered) for tracing; the OpenTelemetry module
// github.com/taskrouting/taskrouting-go/otel builds its spans on it.
//
// [MemoryDeduper] de-duplicates within one process. Receivers running as
// several replicas share the de-duplication through Redis with the
// separate module github.com/taskrouting/taskrouting-go/dedupe/redis, which
// keeps the Redis client out of this module's dependencies.
//
// # Rotating the signing secret
//
// While a secret is being replaced, deliveries may be signed with either.
// List the old ones after the current one; each is tried, the current first:
//
//	v, err := webhook.NewVerifier(newSecret, webhook.WithPreviousSecrets(oldSecret))
//
// A sender rotating on its side signs with both secrets at once (two v1
// entries in one header), and either matching is enough. [Sign] produces the
// header; the mock server and tests use it.
//
// # The signature header
//
// [SignatureHeader] (X-Fivexer-Signature) reads "t=<unix-ms>,v1=<hex>": the
// HMAC-SHA256, keyed with the endpoint's signing secret exactly as given
// ("whsec_..."), of the decimal timestamp, a '.', and the raw body bytes.
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
//     "authentic but stale". [WithTolerance] changes the default 5 minutes;
//     [WithClock] sets the clock (a test server's manual clock, say).
//   - Errors never contain a secret, a signature or body bytes, and neither
//     does printing or logging a [Verifier].
//
// # Performance
//
// A [Verifier] allocates nothing per delivery (TestVerifierDoesNotAllocate
// checks it in every run) and costs little more than the HMAC-SHA256 it
// cannot avoid; the one-shot [Verify] allocates once. BENCHMARKS.md, section
// "Webhook verification", has the measured ratios against a hand-written HMAC
// baseline, their bars and the commands that check them.
package webhook
