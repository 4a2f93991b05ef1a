package mockserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// t0 is the story clock of the wire fixtures: 2025-11-21T04:40:00Z.
var t0 = time.UnixMilli(1763700000000).UTC()

// answer is one HTTP exchange as a test sees it.
type answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// json decodes the answer body into a generic value.
func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(a.Body, &v), "body %s", a.Body)
	return v
}

// errCode returns the envelope's error code.
func (a answer) errCode(t *testing.T) string {
	t.Helper()
	var env struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(a.Body, &env), "body %s", a.Body)
	return env.Error.Code
}

// call sends one request with the given key over real HTTP. A nil body sends none; a string
// body is sent as is; anything else is JSON-encoded.
func call(t testing.TB, srv *Server, key, method, path string, body any, hdr ...string) answer {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewReader([]byte(b))
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, srv.URL()+path, rd)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// api is call with the server's sandbox key.
func api(t testing.TB, srv *Server, method, path string, body any, hdr ...string) answer {
	t.Helper()
	return call(t, srv, srv.APIKey(), method, path, body, hdr...)
}

// mustAPI is api that requires the given status.
func mustAPI(t testing.TB, srv *Server, want int, method, path string, body any) answer {
	t.Helper()
	a := api(t, srv, method, path, body)
	require.Equal(t, want, a.Status, "%s %s: %s", method, path, a.Body)
	return a
}
