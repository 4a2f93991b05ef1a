package taskrouting

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Ptr returns a pointer to v. It fills optional fields whose zero value
// means something on the wire, such as UpsertWorkerParams.Available.
func Ptr[T any](v T) *T { return &v }

// Nullable is a JSON member with three states: absent (the zero value, left
// out of the request), explicitly null, or a value. The wire needs all three
// for members such as escalation, where null clears and absence keeps.
// Struct fields of this type use the omitzero tag option (Go 1.24).
type Nullable[T any] struct {
	value   T
	present bool
	null    bool
}

// Some returns a Nullable holding v.
func Some[T any](v T) Nullable[T] { return Nullable[T]{value: v, present: true} }

// Null returns a Nullable that is sent as JSON null.
func Null[T any]() Nullable[T] { return Nullable[T]{present: true, null: true} }

// Get returns the value and whether there is one (false when absent or null).
func (n Nullable[T]) Get() (T, bool) { return n.value, n.present && !n.null }

// IsNull reports whether n is an explicit null.
func (n Nullable[T]) IsNull() bool { return n.present && n.null }

// IsZero reports whether n is absent; encoding/json's omitzero calls it.
func (n Nullable[T]) IsZero() bool { return !n.present }

// MarshalJSON encodes null or the value.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if !n.present || n.null {
		return []byte("null"), nil
	}
	return json.Marshal(n.value)
}

// UnmarshalJSON decodes null or a value; it is only called when the member is present.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*n = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*n = Some(v)
	return nil
}

// wireTime is the wire form of a timestamp. The platform sends most times
// as Unix epoch milliseconds (createdAt, matchedAt, schedule bounds) and some
// as ISO-8601 strings (break times, identity times); wireTime reads either
// form, and null, whatever the member, so a server that changes the form of
// one member does not fail the whole answer. It writes the form it was made
// with: msOf for epoch milliseconds, isoOf for ISO-8601. The zero time.Time
// is written as null so "not set" survives a round trip.
type wireTime struct {
	t   time.Time
	iso bool
}

func msOf(t time.Time) wireTime  { return wireTime{t: t} }
func isoOf(t time.Time) wireTime { return wireTime{t: t, iso: true} }

// isoLayout is the ISO-8601 form the platform writes: UTC with milliseconds.
const isoLayout = "2006-01-02T15:04:05.000Z07:00"

func (w wireTime) MarshalJSON() ([]byte, error) {
	switch {
	case w.t.IsZero():
		return []byte("null"), nil
	case w.iso:
		return json.Marshal(w.t.UTC().Format(isoLayout))
	default:
		return json.Marshal(w.t.UnixMilli())
	}
}

func (w *wireTime) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		w.t = time.Time{}
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			w.t, w.iso = time.Time{}, true
			return nil
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return fmt.Errorf("taskrouting: time %q is neither epoch milliseconds nor ISO-8601", s)
		}
		w.t, w.iso = t.UTC(), true
		return nil
	}
	// The wire promises integers, but a float such as 1.7e12 must not fail
	// a whole response, so decode as a number and truncate.
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	w.t, w.iso = time.UnixMilli(int64(f)).UTC(), false
	return nil
}

func (w wireTime) IsZero() bool { return w.t.IsZero() }

// durationMillis is the wire form of a duration in milliseconds.
type durationMillis time.Duration

func (d durationMillis) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).Milliseconds())
}

func (d *durationMillis) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*d = 0
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*d = durationMillis(time.Duration(f * float64(time.Millisecond)))
	return nil
}

// cloneRaw copies b so a RawMessage kept on a result does not alias the
// decoder's buffer.
func cloneRaw(b []byte) json.RawMessage {
	return append(json.RawMessage(nil), b...)
}
