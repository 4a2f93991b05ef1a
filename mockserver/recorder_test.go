package mockserver

import (
	"bytes"
	"net/http"
)

// responseRecorder is a minimal http.ResponseWriter for Handler tests without a socket.
type responseRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *responseRecorder { return &responseRecorder{header: http.Header{}} }

func (r *responseRecorder) Header() http.Header { return r.header }

func (r *responseRecorder) WriteHeader(code int) { r.status = code }

func (r *responseRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return r.body.Write(b)
}
