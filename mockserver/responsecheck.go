package mockserver

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// responseChecks holds, while a test binary runs (testing.Testing), every answer the server
// sends against its operation's response schema in api/openapi.json. A violation does not
// change the answer: it is recorded, and the test that owns the server fails: Start's cleanup
// reports them with t.Errorf, and Close panics on any nobody collected, so a server made
// with New inside a test is covered too. Outside tests the check is off and costs nothing,
// unless WithStrictResponses turns it on (strictresponses.go): then a violation is also
// refused, the answer replaced by a 500.
type responseChecks struct {
	on         bool
	enforce    bool // WithStrictResponses: refuse a violating answer (refuseResponse)
	mu         sync.Mutex
	violations []string
	// drift rewrites an answer before it is checked and sent, checks on or off; only the
	// tests proving that a drifted answer is caught set it (and drifthook.go, in a tagged
	// build of the binary for its tests).
	drift func(opID string, body []byte) []byte
}

// checkResponse validates one answer of a routed operation; unrouted answers (401 before
// routing, 404, 405) have no operation and are not checked.
func (s *Server) checkResponse(r *http.Request, resp *response) {
	if s.checks.drift != nil {
		if opID, ok := s.contract.Operation(r.Method, r.URL.Path); ok {
			resp.body = s.checks.drift(opID, resp.body)
		}
	}
	if !s.checks.on {
		return
	}
	opID, ok := s.contract.Operation(r.Method, r.URL.Path)
	if !ok {
		return
	}
	var problem string
	if extra, err := s.contract.CheckResponse(opID, resp.status, resp.body); err != nil {
		problem = err.Error()
	} else if len(extra) > 0 {
		// A platform-plane answer carries only what the contract defines, even where JSON
		// Schema would let an object hold more (internal/contract.UndeclaredMembers).
		problem = "members the contract does not define: " + strings.Join(extra, ", ")
	}
	if problem != "" {
		s.checks.mu.Lock()
		s.checks.violations = append(s.checks.violations,
			fmt.Sprintf("%s %s (%s) answered %d: %s", r.Method, r.URL.Path, opID, resp.status, problem))
		s.checks.mu.Unlock()
		if s.checks.enforce {
			s.refuseResponse(r, opID, resp, problem)
		}
	}
}

// ContractViolations returns, and forgets, the answers so far that broke their response
// schema in api/openapi.json. It is always empty outside a test binary.
func (s *Server) ContractViolations() []string {
	s.checks.mu.Lock()
	defer s.checks.mu.Unlock()
	v := s.checks.violations
	s.checks.violations = nil
	return v
}

// panicOnUncollected ends a test whose server was made with New and closed with violations
// nobody collected.
func (s *Server) panicOnUncollected() {
	if v := s.ContractViolations(); len(v) > 0 {
		panic("mockserver: answers broke api/openapi.json:\n" + strings.Join(v, "\n"))
	}
}
