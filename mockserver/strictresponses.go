package mockserver

import (
	"context"
	"log/slog"
	"net/http"
)

// WithStrictResponses makes the server check every answer of the /v1 API against its
// operation's response schema in api/openapi.json, as it always does inside a Go test, and
// refuse to send one that breaks it: the client gets 500 internal_error whose message names
// the operation and the problem, and the server logs the same at error level. A test in any
// language therefore never passes on an answer the platform could not give. Inside a Go
// test the violation is also reported as before (Server.ContractViolations, Start's cleanup).
//
// The standalone binary turns it on by default (-strict-responses); see docs/contract.md,
// "Admin endpoints", for its cost.
func WithStrictResponses() Option {
	return func(cfg *config) { cfg.strictResponses = true }
}

// refuseResponse replaces an answer that broke the contract with the 500 a client sees in
// its place. The answer's headers stay (request id, quota) except those that described it.
func (s *Server) refuseResponse(r *http.Request, opID string, resp *response, problem string) {
	s.log.LogAttrs(context.Background(), slog.LevelError, "answer broke api/openapi.json; sent 500 internal_error instead",
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("operation", opID),
		slog.Int("status", resp.status), slog.String("problem", problem))
	resp.body = encodeError(errorf(http.StatusInternalServerError, CodeInternalError,
		"the mock server's %d answer to %s broke api/openapi.json, so it was not sent: %s", resp.status, opID, problem))
	resp.status = http.StatusInternalServerError
	resp.header.Del("Retry-After")
	resp.header.Del("Idempotent-Replayed")
}
