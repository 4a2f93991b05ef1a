package webhook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
)

// DefaultMaxBodyBytes is the largest body the handlers read unless
// [WithMaxBodyBytes] says otherwise; larger deliveries get 413.
const DefaultMaxBodyBytes = 1 << 20

// HandlerOption configures [Handler] and [Middleware].
type HandlerOption func(*handlerConfig)

type handlerConfig struct {
	maxBody  int64
	dedup    Deduper
	onError  func(*http.Request, error)
	observer *Observer
}

// WithMaxBodyBytes limits the body read from a delivery (default
// [DefaultMaxBodyBytes]); n <= 0 keeps the default.
func WithMaxBodyBytes(n int64) HandlerOption {
	return func(c *handlerConfig) {
		if n > 0 {
			c.maxBody = n
		}
	}
}

// WithDeduper makes the handler process each event id at most once (see
// [Deduper]): a redelivery of a processed event is answered with success
// without reaching the callback, and an event whose processing failed is
// not remembered, so its redelivery is processed. Events without an id are
// always processed.
func WithDeduper(d Deduper) HandlerOption {
	return func(c *handlerConfig) { c.dedup = d }
}

// WithErrorHook calls fn with the reason of every delivery answered with a
// failure (the HTTP answer itself stays generic). The errors never hold a
// secret, a signature or body bytes, so fn may log them as they are. Set it
// on every handler: it is the only place a refused delivery shows up on the
// receiving side (ErrNoMatchingSignature for a wrong secret,
// ErrTimestampOutsideTolerance for a clock out of step, such as a test's
// verifier not given the mock server's manual clock).
func WithErrorHook(fn func(r *http.Request, err error)) HandlerOption {
	return func(c *handlerConfig) { c.onError = fn }
}

// Handler returns an http.Handler for a webhook endpoint. Pass
// [WithErrorHook] to learn why a delivery was refused: the sender only
// gets a generic status, so without the hook a wrong secret or a skewed
// clock is silent on your side. For each delivery
// it accepts only POST (405 otherwise), reads at most the body limit (413
// above), verifies the raw body with v before parsing anything (400 for a
// missing or malformed header or body, 401 for a signature or timestamp that
// does not verify), then calls fn with the [Event]. It answers 204 when fn
// returns nil and 500 when fn fails, so that the sender retries. The request
// context given to fn also carries the event (see [EventFromContext]).
//
// Handler panics if v or fn is nil: that is a wiring mistake, best found at
// start-up.
func Handler(v *Verifier, fn func(ctx context.Context, ev Event) error, opts ...HandlerOption) http.Handler {
	if fn == nil {
		panic("webhook: Handler called with a nil callback")
	}
	rc := newReceiver(v, opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w, r, ow := rc.observe(w, r)
		if ow != nil {
			defer ow.done()
		}
		r, ok := rc.accept(w, r)
		if !ok {
			return
		}
		ev, _ := EventFromContext(r.Context())
		rc.process(w, r, ev, func(w http.ResponseWriter, r *http.Request) bool {
			if err := fn(r.Context(), ev); err != nil {
				rc.fail(w, r, http.StatusInternalServerError, err)
				return false
			}
			w.WriteHeader(http.StatusNoContent)
			return true
		})
	})
}

// Middleware returns middleware that lets only verified deliveries reach the
// next handler, with the same checks and failure answers as [Handler]. The
// next handler finds the [Event] with [EventFromContext] and can read the
// body again: it is the exact verified bytes. With [WithDeduper], a 2xx
// answer from next marks the event processed; any other answer (or none
// and a panic) leaves it to be processed on redelivery.
//
// Middleware panics if v is nil.
func Middleware(v *Verifier, opts ...HandlerOption) func(http.Handler) http.Handler {
	rc := newReceiver(v, opts)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w, r, ow := rc.observe(w, r)
			if ow != nil {
				defer ow.done()
			}
			r, ok := rc.accept(w, r)
			if !ok {
				return
			}
			ev, _ := EventFromContext(r.Context())
			rc.process(w, r, ev, func(w http.ResponseWriter, r *http.Request) bool {
				sw := &statusWriter{ResponseWriter: w}
				next.ServeHTTP(sw, r)
				// Nothing written means net/http answers 200.
				return sw.status == 0 || sw.status/100 == 2
			})
		})
	}
}

type eventKey struct{}

// EventFromContext returns the verified event that [Handler] or [Middleware]
// stored in a request's context; Event.Raw is the exact body.
func EventFromContext(ctx context.Context) (Event, bool) {
	ev, ok := ctx.Value(eventKey{}).(Event)
	return ev, ok
}

type receiver struct {
	v   *Verifier
	cfg handlerConfig
}

func newReceiver(v *Verifier, opts []HandlerOption) *receiver {
	if v == nil {
		panic("webhook: nil Verifier")
	}
	cfg := handlerConfig{maxBody: DefaultMaxBodyBytes}
	for _, opt := range opts {
		opt(&cfg)
	}
	return &receiver{v: v, cfg: cfg}
}

// accept reads, verifies and parses a delivery, answering the failure itself
// when there is one. On success the returned request carries the event in
// its context and a fresh reader over the verified body.
func (rc *receiver) accept(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		rc.fail(w, r, http.StatusMethodNotAllowed, errors.New("webhook: method not allowed"))
		return r, false
	}
	if r.ContentLength > rc.cfg.maxBody {
		rc.fail(w, r, http.StatusRequestEntityTooLarge, ErrBodyTooLarge)
		return r, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, rc.cfg.maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			rc.fail(w, r, http.StatusRequestEntityTooLarge, ErrBodyTooLarge)
		} else {
			rc.fail(w, r, http.StatusBadRequest, errors.New("webhook: reading the body failed"))
		}
		return r, false
	}
	ev, err := rc.v.ConstructEvent(body, r.Header.Get(SignatureHeader))
	if err != nil {
		rc.fail(w, r, statusFor(err), err)
		return r, false
	}
	ctx := r.Context()
	if ow, ok := w.(*observedWriter); ok {
		ctx = ow.verifiedAs(ev, nil)
	}
	r = r.WithContext(context.WithValue(ctx, eventKey{}, ev))
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return r, true
}

// process runs handle for a verified event under the de-duplication rules;
// handle writes the answer and reports whether the event was processed.
func (rc *receiver) process(w http.ResponseWriter, r *http.Request, ev Event,
	handle func(http.ResponseWriter, *http.Request) bool) {
	d := rc.cfg.dedup
	if d == nil || ev.ID == "" {
		handle(w, r)
		return
	}
	claim, err := d.Claim(r.Context(), ev.ID)
	switch {
	case err != nil:
		rc.fail(w, r, http.StatusServiceUnavailable, err)
		return
	case claim == ClaimProcessed:
		if ow, ok := w.(*observedWriter); ok {
			ow.result.Duplicate = true
		}
		w.WriteHeader(http.StatusNoContent)
		return
	case claim != ClaimAcquired:
		rc.fail(w, r, http.StatusConflict, errors.New("webhook: event is being processed by another delivery"))
		return
	}
	processed := false
	// Deferred so that a panicking handler releases its claim too; the
	// release outlives a cancelled request, or the id would stay claimed.
	defer func() { d.Release(context.WithoutCancel(r.Context()), ev.ID, processed) }()
	processed = handle(w, r)
}

func (rc *receiver) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	if rc.cfg.onError != nil {
		rc.cfg.onError(r, err)
	}
	if ow, ok := w.(*observedWriter); ok {
		ow.verifiedAs(Event{}, err) // a no-op once verification passed
		ow.result.Err = err
	}
	// Generic text only: telling a caller why verification failed helps an
	// attacker more than a legitimate sender.
	http.Error(w, http.StatusText(status), status)
}

// statusFor maps a verification or parsing error to the answer's status.
func statusFor(err error) int {
	switch {
	case errors.Is(err, ErrNoMatchingSignature), errors.Is(err, ErrTimestampOutsideTolerance),
		errors.Is(err, ErrInvalidSecret):
		return http.StatusUnauthorized
	default: // missing or malformed header, invalid payload
		return http.StatusBadRequest
	}
}

// statusWriter records the status the next handler answers with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && code >= 200 { // 1xx answers are not the final status
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer (Flush,
// deadlines) through the wrapper.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
