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
