package taskrouting

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streamTask is a real server that streams a valid task whose description
// makes the body size bytes long, in 64 KiB writes.
func streamTask(t *testing.T, size int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		head, tail := `{"id":"task_big","status":"queued","description":"`, `"}`
		w.Header().Set("Content-Type", "application/json")
		if _, err := fmt.Fprint(w, head); err != nil {
			return
		}
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		for left := size - len(head) - len(tail); left > 0; left -= len(chunk) {
			if _, err := w.Write(chunk[:min(left, len(chunk))]); err != nil {
				return // the client stopped reading
			}
		}
		_, _ = fmt.Fprint(w, tail)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestResponseCap: an answer over the 16 MiB cap fails with
// ErrResponseTooLarge instead of being read whole; one just under it
// decodes.
func TestResponseCap(t *testing.T) {
	tests := []struct {
		name    string
		size    int
		wantErr error
	}{
		{"at the cap", maxResponseBytes, nil},
		{"one byte over", maxResponseBytes + 1, ErrResponseTooLarge},
		{"a mebibyte over", maxResponseBytes + 1<<20, ErrResponseTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, streamTask(t, tt.size).URL+"/v1")
			task, err := c.Tasks.Get(context.Background(), "task_big")
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Nil(t, task)
				return
			}
			require.NoError(t, err)
			assert.Len(t, task.Raw, tt.size)
		})
	}
}

// TestResponseCapErrorBody: an oversized error body still gives the
// *APIError with its status; the envelope, cut at the cap, reads as
// unknown_error.
func TestResponseCapErrorBody(t *testing.T) {
	huge := `{"error":{"code":"validation_failed","message":"` + string(bytes.Repeat([]byte("x"), maxResponseBytes)) + `"}}`
	srv, _ := serveOnce(t, http.StatusBadRequest, nil, huge)
	c := newTestClient(t, srv.URL+"/v1")
	_, err := c.Tasks.Get(context.Background(), "task_big")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Equal(t, CodeUnknownError, apiErr.Code)
	assert.NotErrorIs(t, err, ErrResponseTooLarge)
}
