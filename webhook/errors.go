package webhook

import (
	"errors"
	"fmt"
)

// Sentinel errors, for errors.Is. Their messages, and those of every error
// this package returns, never contain a received or computed signature, a
// secret or body bytes: they are safe to log.
var (
	// ErrMissingHeader means the delivery carried no signature header.
	ErrMissingHeader = errors.New("webhook: missing signature header")

	// ErrMalformedHeader means the signature header is not
	// "t=<digits>,v1=<64 hex>[,v1=<64 hex>...]".
	ErrMalformedHeader = errors.New("webhook: malformed signature header")

	// ErrTimestampOutsideTolerance means the signed timestamp lies too far
	// from the receiver's clock. ErrTimestampTooOld and ErrTimestampTooNew
	// both match it, so a receiver can test for either or for both.
	ErrTimestampOutsideTolerance = errors.New("webhook: timestamp outside tolerance")

	// ErrTimestampTooOld means the delivery was signed longer ago than the
	// tolerance allows (a replay, or a sender clock far behind).
	ErrTimestampTooOld = fmt.Errorf("%w: too old", ErrTimestampOutsideTolerance)

	// ErrTimestampTooNew means the delivery claims to be signed further in
	// the future than the tolerance allows (a sender clock far ahead).
	ErrTimestampTooNew = fmt.Errorf("%w: too new", ErrTimestampOutsideTolerance)

	// ErrNoMatchingSignature means no v1 signature in the header matches the
	// body under any configured secret: wrong secret or altered bytes.
	ErrNoMatchingSignature = errors.New("webhook: no matching signature")

	// ErrBodyTooLarge means the delivery's body exceeded the handler's limit.
	ErrBodyTooLarge = errors.New("webhook: body too large")

	// ErrInvalidSecret means a signing secret is empty or only white space.
	// Such a secret is refused so that a misconfigured receiver fails loudly
	// instead of checking against a key anyone can guess.
	ErrInvalidSecret = errors.New("webhook: empty signing secret")

	// ErrInvalidOption means an option given to NewVerifier or to a handler
	// is out of range.
	ErrInvalidOption = errors.New("webhook: invalid option")

	// ErrInvalidPayload means a verified body is not a JSON object with a
	// string "event" member, or a known field has the wrong JSON type.
	ErrInvalidPayload = errors.New("webhook: invalid event payload")

	// ErrWrongKind is returned by an Event's typed accessor (such as
	// Event.TaskMatched) called on an event of another kind.
	ErrWrongKind = errors.New("webhook: event is of another kind")
)

// Reasons for ErrMalformedHeader, built once so that the failure path does not
// allocate either; each names the rule broken, never the bytes received.
var (
	errEmptyElement   = fmt.Errorf("%w: empty element", ErrMalformedHeader)
	errUnknownElement = fmt.Errorf("%w: element is neither t= nor v1=", ErrMalformedHeader)
	errTimestamp      = fmt.Errorf("%w: t= is not 1 to 19 decimal digits", ErrMalformedHeader)
	errTwoTimestamps  = fmt.Errorf("%w: more than one t=", ErrMalformedHeader)
	errNoTimestamp    = fmt.Errorf("%w: no t=", ErrMalformedHeader)
	errSignature      = fmt.Errorf("%w: v1= is not 64 hex digits", ErrMalformedHeader)
	errNoSignature    = fmt.Errorf("%w: no v1=", ErrMalformedHeader)
	errTooManySigs    = fmt.Errorf("%w: more than %d v1= entries", ErrMalformedHeader, maxSignatures)
)
