package taskrouting

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"log/slog"
)

// Secret holds a credential: a PIN, a join or invite token, a channel's signing secret, a
// push subscription's auth secret, a TURN credential. Every parameter and answer type of
// this package keeps its credentials in a Secret, so they print as [redacted] wherever the
// value goes: every fmt verb, slog (text and JSON handlers), encoding/json, and also an
// unexported field of your own struct, which fmt prints by reflection without calling any
// method. There fmt reaches only the pointer inside, and prints its address.
//
// Make one with NewSecret, read it with Reveal. The zero Secret is unset. Compare two with
// Equal (go-cmp uses it too); == does not compile, as it would compare the pointers.
type Secret struct {
	_ [0]func() // not comparable with ==: use Equal
	v *string
}

// NewSecret keeps s as a secret; NewSecret("") is the zero (unset) Secret.
func NewSecret(s string) Secret {
	if s == "" {
		return Secret{}
	}
	return Secret{v: &s}
}

// Reveal returns the secret itself, "" when unset. Call it only where the secret is
// handed on (the client does, when it writes a request body).
func (s Secret) Reveal() string {
	if s.v == nil {
		return ""
	}
	return *s.v
}

// IsZero reports whether the secret is unset; encoding/json's omitzero uses it.
func (s Secret) IsZero() bool { return s.v == nil || *s.v == "" }

// Equal reports whether both hold the same secret (both unset counts), in time that does
// not depend on where they differ.
func (s Secret) Equal(o Secret) bool {
	return subtle.ConstantTimeCompare([]byte(s.Reveal()), []byte(o.Reveal())) == 1
}

// String is [redacted], or "" when the secret is unset.
func (s Secret) String() string { return masked(s.Reveal()) }

// GoString describes the secret for %#v without showing it.
func (s Secret) GoString() string {
	if s.IsZero() {
		return "taskrouting.Secret{}"
	}
	return `taskrouting.NewSecret("` + redactedMark + `")`
}

// Format prints the secret as String does, whatever the verb.
func (s Secret) Format(f fmt.State, verb rune) { formatSafe(f, verb, s.String(), s.GoString()) }

// LogValue lets slog log the secret as String does.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON writes "[redacted]", or "" when the secret is unset: a value marshalled to
// JSON is for a log or a file. The client writes the secret itself into request bodies
// (wireBody, secretjson.go).
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a JSON string (null is unset), as the client reads a credential from
// an answer. It does not undo MarshalJSON: "[redacted]" is read as that string.
func (s *Secret) UnmarshalJSON(b []byte) error {
	var v *string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v == nil {
		*s = Secret{}
		return nil
	}
	*s = NewSecret(*v)
	return nil
}
