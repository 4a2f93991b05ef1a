package mockserver

import (
	"net/http"
	"strconv"
	"sync/atomic"
)

// RequestIDHeader is the header every answer of the server carries, API and admin alike:
// an id unique within the server's life ("req_" and a decimal count), which a client puts
// on its errors and a test can find again in Requests (Request.RequestID).
const RequestIDHeader = "X-Request-Id"

// requestIDs hands out the ids; a count rather than random text keeps a seeded run's
// answers the same from one run to the next.
type requestIDs struct{ n atomic.Uint64 }

func (r *requestIDs) next() string {
	var buf [24]byte // "req_" and 20 digits: the id is made with one allocation, its own
	return string(strconv.AppendUint(append(buf[:0], "req_"...), r.n.Add(1), 10))
}

// stampRequestID puts a fresh id on the answer about to be written and returns it.
func (s *Server) stampRequestID(w http.ResponseWriter) string {
	id := s.reqIDs.next()
	w.Header()[RequestIDHeader] = []string{id}
	return id
}
