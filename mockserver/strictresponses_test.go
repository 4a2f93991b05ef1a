package mockserver

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrictResponsesRefuseABrokenAnswer makes tasks.get drift from api/openapi.json on a
// server with WithStrictResponses: the client gets 500 internal_error naming the operation
// and the problem instead of the drifted answer, the log says so at error level, the
// violation is still reported to the test, and every other answer goes out untouched.
func TestStrictResponsesRefuseABrokenAnswer(t *testing.T) {
	cases := []struct {
		name   string
		strict bool
		want   int
	}{
		{name: "strict", strict: true, want: 500},
		{name: "report only (the default inside a test)", strict: false, want: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			opts := []Option{WithClock(NewManualClock(t0)), WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))}
			if tc.strict {
				opts = append(opts, WithStrictResponses())
			}
			srv, err := New(opts...)
			require.NoError(t, err)
			srv.checks.drift = func(opID string, b []byte) []byte {
				if opID != "tasks.get" {
					return b
				}
				return append([]byte(`{"surprise":1,`), b[1:]...)
			}
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "t1", "tags": []string{"a"}})
			got := api(t, srv, "GET", "/tasks/t1", nil)
			assert.Equal(t, tc.want, got.Status, "%s", got.Body)
			mustAPI(t, srv, 200, "GET", "/workers", nil)
			assert.Len(t, srv.ContractViolations(), 1, "the test hears of it either way")
			srv.Close()
			if !tc.strict {
				assert.Contains(t, string(got.Body), `"surprise":1`, "sent as drifted")
				assert.NotContains(t, logs.String(), "broke api/openapi.json")
				return
			}
			assert.Equal(t, CodeInternalError, got.errCode(t))
			assert.Contains(t, string(got.Body), "the mock server's 200 answer to tasks.get broke api/openapi.json, so it was not sent: response must NOT have additional properties (surprise)")
			assert.NotContains(t, string(got.Body), `"surprise":1`)
			assert.NotEmpty(t, got.Header.Get("X-Quota-Workers-Limit"), "the answer's own headers stay")
			assert.Contains(t, logs.String(), `level=ERROR msg="answer broke api/openapi.json; sent 500 internal_error instead" method=GET path=/v1/tasks/t1 operation=tasks.get status=200`)
		})
	}
}

// TestStrictResponsesOutsideTests checks that the option turns the check on where it is
// otherwise off (outside a test binary, which withoutResponseChecks stands in for).
func TestStrictResponsesOutsideTests(t *testing.T) {
	off, err := New(withoutResponseChecks())
	require.NoError(t, err)
	defer off.Close()
	assert.False(t, off.checks.on)
	on, err := New(withoutResponseChecks(), WithStrictResponses())
	require.NoError(t, err)
	defer on.Close()
	assert.True(t, on.checks.on)
	assert.True(t, on.checks.enforce)
}

// TestStrictRefusalDropsTheHeadersOfTheAnswerItReplaces: the 500 sent in place of a broken
// answer does not carry the headers that described that answer: a 429's Retry-After, a
// replay's Idempotent-Replayed.
func TestStrictRefusalDropsTheHeadersOfTheAnswerItReplaces(t *testing.T) {
	srv, err := New(WithClock(NewManualClock(t0)), WithStrictResponses(), WithLimits(Limits{TaskRate: 1}))
	require.NoError(t, err)
	defer srv.Close()
	body := map[string]any{"tags": []string{"a"}}
	first := api(t, srv, "POST", "/tasks", body, "Idempotency-Key", "key-1")
	require.Equal(t, 202, first.Status, "%s", first.Body)
	replay := api(t, srv, "POST", "/tasks", body, "Idempotency-Key", "key-1")
	require.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"), "a replay, before any drift")
	limited := api(t, srv, "POST", "/tasks", body)
	require.Equal(t, 429, limited.Status, "%s", limited.Body)
	require.NotEmpty(t, limited.Header.Get("Retry-After"), "a 429 says when, before any drift")

	srv.checks.drift = func(opID string, b []byte) []byte {
		switch {
		case opID != "tasks.create":
			return b
		case bytes.HasPrefix(b, []byte(`{"error":`)):
			return []byte(`{"error":{"code":429,"message":"a code that is not text"}}`)
		}
		return append([]byte(`{"surprise":1,`), b[1:]...)
	}
	for name, got := range map[string]answer{
		"replay":       api(t, srv, "POST", "/tasks", body, "Idempotency-Key", "key-1"),
		"rate limited": api(t, srv, "POST", "/tasks", body),
	} {
		assert.Equal(t, 500, got.Status, "%s: %s", name, got.Body)
		assert.Empty(t, got.Header.Get("Idempotent-Replayed"), name)
		assert.Empty(t, got.Header.Get("Retry-After"), name)
		assert.NotEmpty(t, got.Header.Get("X-Quota-Task-Rate-Limit"), "%s: the answer's own headers stay", name)
	}
	assert.Len(t, srv.ContractViolations(), 2, "both answers broke the contract")
}
