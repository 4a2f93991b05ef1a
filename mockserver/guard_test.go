package mockserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdminRefusesAnExtraWorkspaceKey: the admin endpoints act on every workspace, so only
// the server's own key (APIKey) may steer them. An extra workspace's key is 401 on every
// route, and its reset and fault leave the server as it was.
func TestAdminRefusesAnExtraWorkspaceKey(t *testing.T) {
	t.Parallel()
	const extra = "sk_test_other_workspace"
	srv := Start(t, WithExtraAPIKey(extra))
	mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"id": "task_kept", "tags": []string{"english"}})
	routes := []struct {
		method, path string
		body         string
	}{
		{"GET", "/_mock/clock", ""},
		{"POST", "/_mock/clock/advance", `{"ms":1}`},
		{"POST", "/_mock/faults", `{"path":"/tasks","status":500}`},
		{"DELETE", "/_mock/faults", ""},
		{"GET", "/_mock/events", ""},
		{"GET", "/_mock/deliveries", ""},
		{"GET", "/_mock/notifications", ""},
		{"GET", "/_mock/requests", ""},
		{"POST", "/_mock/flush", ""},
		{"POST", "/_mock/reset", ""},
	}
	root := strings.TrimSuffix(srv.URL(), BasePath)
	for _, rt := range routes {
		req, err := http.NewRequest(rt.method, root+rt.path, strings.NewReader(rt.body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+extra)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s %s: %s", rt.method, rt.path, body)
	}
	// Neither the reset nor the fault took effect.
	mustAPI(t, srv, 200, "GET", "/tasks/task_kept", nil)
}

// TestBodyLimitWithoutContentLength: a chunked body (no Content-Length, so the size is known
// only by reading it) over MaxBodyBytes is 413, and nothing is created.
func TestBodyLimitWithoutContentLength(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	// The server's handler behind a listener that notes how each request's body was framed.
	framing := make(chan []string, 1)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		framing <- r.TransferEncoding
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	body := `{"id":"task_big","tags":["english"],"meta":{"pad":"` + strings.Repeat("x", MaxBodyBytes) + `"}}`
	// A reader of unknown length: the transport sends it chunked.
	req, err := http.NewRequest("POST", front.URL+BasePath+"/tasks", io.MultiReader(bytes.NewReader([]byte(body))))
	require.NoError(t, err)
	require.Equal(t, int64(0), req.ContentLength, "precondition: no Content-Length is sent")
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	got := answer{Status: resp.StatusCode, Body: raw}
	require.Equal(t, []string{"chunked"}, <-framing, "precondition: the body went chunked")
	assert.Equal(t, http.StatusRequestEntityTooLarge, got.Status, "%s", raw)
	assert.Equal(t, CodePayloadTooLarge, got.errCode(t))
	mustAPI(t, srv, 404, "GET", "/tasks/task_big", nil)
}
