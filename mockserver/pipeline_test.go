package mockserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
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

// TestIdemPrint holds a stored Idempotency-Key's request to its method, path and exact
// bytes, whether the print keeps the body (short) or its SHA-256 (long, or an operation
// with secret members, whose body the print must not keep).
func TestIdemPrint(t *testing.T) {
	short := []byte(`{"tags":["a"]}`)
	long := bytes.Repeat([]byte{'x'}, idemBodyKept+1)
	secret := []byte(`{"pin":"1234"}`)
	for _, tc := range []struct {
		name         string
		method, path string
		body         []byte
		hashed       bool
	}{
		{"short", "POST", "/v1/tasks", short, false},
		{"at the bound", "POST", "/v1/tasks", long[:idemBodyKept], false},
		{"empty", "POST", "/v1/tasks/t1/cancel", nil, false},
		{"long", "POST", "/v1/tasks", long, true},
		{"secret", "POST", "/v1/workers/w1/identity", secret, true},
	} {
		p := printOf(tc.method, tc.path, tc.body)
		assert.Equal(t, tc.hashed, p.hashed, "%s: hashed", tc.name)
		if tc.hashed {
			assert.Nil(t, p.body, "%s: a hashed print keeps no body", tc.name)
		}
		assert.True(t, p.matches(tc.method, tc.path, bytes.Clone(tc.body)), "%s: the same request", tc.name)
		assert.False(t, p.matches("PUT", tc.path, tc.body), "%s: another method", tc.name)
		assert.False(t, p.matches(tc.method, tc.path+"/x", tc.body), "%s: another path", tc.name)
		other := append(bytes.Clone(tc.body), ' ')
		assert.False(t, p.matches(tc.method, tc.path, other), "%s: one byte more", tc.name)
		if len(tc.body) > 0 {
			changed := bytes.Clone(tc.body)
			changed[len(changed)-1] ^= 1
			assert.False(t, p.matches(tc.method, tc.path, changed), "%s: one byte changed", tc.name)
		}
	}
}

// TestCompact holds compact's road for text without whitespace to json.Compact's result:
// the same bytes, with whitespace inside strings kept and every kind outside elided.
func TestCompact(t *testing.T) {
	for _, text := range []string{
		`{"orderId":"o_123"}`, `{"a":"b c","d":["e\"f ",1]}`, `{"a":"\\"}`, `{"a":"\\\" "}`, `{"a":"x\\" ,"b":1}`, `{"a":"\"" }`,
		`{ "a":1}`, "{\"a\":\t1}", "{\"a\":\n1}", "{\"a\":\r1}", `[1, 2]`, `"x y"`, `{"a":1`, `{"a" :1`, ``,
	} {
		var want bytes.Buffer
		if json.Compact(&want, []byte(text)) != nil {
			want.Reset()
			want.WriteString(text)
		}
		in := []byte(text)
		got := compact(in)
		assert.Equal(t, want.String(), string(got), "compact(%q)", text)
		if len(got) > 0 && len(in) > 0 {
			assert.NotSame(t, &in[0], &got[0], "compact(%q) shares the caller's bytes", text)
		}
	}
}

// TestSplitPath holds the route lookup's split to strings.Split's, on short and long paths.
func TestSplitPath(t *testing.T) {
	for _, rel := range []string{"", "tasks", "tasks/", "/tasks", "tasks/t1/comments/c1", "a//b", strings.Repeat("x/", 12) + "y"} {
		var buf [8]string
		assert.Equal(t, strings.Split(rel, "/"), splitPath(buf[:0], rel), "splitPath(%q)", rel)
	}
}

// TestHeaderValue holds headerValue to Header.Get for the canonical keys it is given.
func TestHeaderValue(t *testing.T) {
	h := http.Header{"Content-Type": {"application/json", "text/plain"}, "Authorization": {}, "idempotency-key": {"raw"}}
	for _, key := range []string{"Content-Type", "Authorization", "Idempotency-Key", "X-Absent"} {
		assert.Equal(t, h.Get(key), headerValue(h, key), key)
	}
}

// TestRequestIDs holds the request ids to "req_" and the count, up to the largest.
func TestRequestIDs(t *testing.T) {
	var r requestIDs
	assert.Equal(t, "req_1", r.next())
	assert.Equal(t, "req_2", r.next())
	r.n.Store(^uint64(0) - 1)
	assert.Equal(t, "req_18446744073709551615", r.next())
}
