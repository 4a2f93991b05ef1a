package mockserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFingerprint holds the idempotency fingerprint to SHA-256 of method, path and body
// joined by NUL bytes, on both of its roads (a stack buffer up to 512 bytes, the hasher
// past it), so a stored key matches the same request whichever road hashed it.
func TestFingerprint(t *testing.T) {
	for _, n := range []int{0, 98, 512 - len("POST/v1/tasks") - 2, 512 - len("POST/v1/tasks") - 1, 4096} {
		body := bytes.Repeat([]byte{'x'}, n)
		want := sha256.Sum256(append([]byte("POST\x00/v1/tasks\x00"), body...))
		assert.Equal(t, want, fingerprint("POST", "/v1/tasks", body), "body of %d bytes", n)
	}
	base := fingerprint("POST", "/v1/tasks", []byte(`{}`))
	assert.NotEqual(t, base, fingerprint("PUT", "/v1/tasks", []byte(`{}`)))
	assert.NotEqual(t, base, fingerprint("POST", "/v1/tasks/x", []byte(`{}`)))
	assert.NotEqual(t, base, fingerprint("POST", "/v1/tasks", []byte(`{ }`)))
}

// TestReadAll holds the body read to the bytes sent whatever length the request
// announced: exact, short, long or none.
func TestReadAll(t *testing.T) {
	body := strings.Repeat("abc", 300)
	for _, tc := range []struct {
		name      string
		announced int64
	}{
		{"exact", int64(len(body))}, {"none", -1}, {"short", 10}, {"long", int64(len(body)) + 500}, {"zero", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(io.LimitReader(strings.NewReader(body), MaxBodyBytes+1), tc.announced)
			require.NoError(t, err)
			if diff := cmp.Diff(body, string(got)); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// TestTaskRefJSON holds taskRef's own encoding to json.Marshal's text, for ids it writes
// as they are and for ids with characters json.Marshal escapes.
func TestTaskRefJSON(t *testing.T) {
	for _, id := range []string{"task_1", "a.b-c_9", "", "x\"y", `x\y`, "<b>", "a&b", "é", "tab\there", "\x7f", "~"} {
		for _, status := range []string{"queued", "parked"} {
			ref := taskRef{ID: id, Status: status}
			want, err := json.Marshal(ref)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(ref.appendJSON(nil)), "%q", id)
		}
	}
}
