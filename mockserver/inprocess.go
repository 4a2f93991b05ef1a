package mockserver

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
)

// ErrDropped is what the in-process transport returns for a request whose connection a fault
// dropped (Fault.DropBeforeCommit, Fault.DropAfterCommit): there is no connection to reset,
// so the client sees this error where it would see a reset.
var ErrDropped = errors.New("mockserver: connection dropped by an injected fault")

// Transport returns an http.RoundTripper that serves each request with the server's Handler
// in this process: no socket, no port, no goroutine per connection. Put it under a client for
// unit tests of your own code that should not open sockets:
//
//	srv, err := mockserver.NewUnstarted()
//	c, err := taskrouting.NewClient("http://mock.invalid"+mockserver.BasePath, srv.APIKey(),
//		taskrouting.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
//
// The URL's host is never dialled; any http URL ending in BasePath works. Everything behind
// the socket is the same as over loopback (validation against api/openapi.json, state, the
// clock, faults, Requests, Events), and the client above it runs its real path (retries,
// errors, idempotency keys). Webhook deliveries still go out over HTTP to the URLs attached,
// so a test of a receiver uses Start. The request's context reaches the handler, so a
// cancelled call cuts a Fault.Delay short as it would over a socket.
func (s *Server) Transport() http.RoundTripper { return handlerTransport{h: s.Handler()} }

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	if req.Body != nil {
		defer req.Body.Close() // a RoundTripper closes the body, whatever happens
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	in := req.Clone(req.Context())
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = req.URL.RequestURI()
	in.Host = req.URL.Host
	in.RemoteAddr = "127.0.0.1:0"
	rec := httptest.NewRecorder()
	defer func() {
		// dropConnection cannot hijack a recorder and aborts the handler instead.
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler {
				panic(p)
			}
			resp, err = nil, ErrDropped
		}
	}()
	t.h.ServeHTTP(rec, in)
	out := rec.Result()
	out.Request = req
	if out.Body == nil {
		out.Body = io.NopCloser(http.NoBody)
	}
	return out, nil
}
