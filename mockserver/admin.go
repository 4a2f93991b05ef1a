package mockserver

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

const adminPrefix = "/_mock/"

// serveAdmin answers the steering endpoints under /_mock/ (listed in the package
// documentation, "Admin endpoints"). Only the server's own key may use them.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	w = &statusWriter{ResponseWriter: w}
	defer func() {
		s.log.Info("admin request", "method", r.Method, "path", r.URL.Path, "status", w.(*statusWriter).status, "took", time.Since(began))
	}()
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if subtle.ConstantTimeCompare([]byte(key), []byte(s.apiKey)) != 1 {
		writeResponse(w, errResponse(errorf(http.StatusUnauthorized, CodeUnauthorized, "missing or invalid API key")))
		return
	}
	route := r.Method + " " + strings.TrimPrefix(r.URL.Path, adminPrefix)
	var v any
	var aerr *apiError
	status := http.StatusOK
	switch route {
	case "GET clock":
		v = map[string]any{"now": s.clock.Now().UnixMilli(), "manual": s.manual != nil}
	case "POST clock/advance":
		v, aerr = s.adminAdvance(r)
	case "POST faults":
		aerr = s.adminFault(r)
		status = http.StatusCreated
	case "DELETE faults":
		s.ClearFaults()
		status = http.StatusNoContent
	case "GET events":
		v, aerr = s.adminEventsQuery(r)
	case "GET deliveries":
		v = s.adminDeliveries()
	case "GET notifications":
		v = s.adminNotifications()
	case "GET outbox":
		v = s.adminOutbox()
	case "GET requests":
		v, aerr = s.adminRequests(r)
	case "POST flush":
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		if err := s.Flush(ctx); err != nil {
			aerr = errorf(http.StatusGatewayTimeout, "timeout", "webhook attempts still in flight")
		}
		status = http.StatusNoContent
	case "POST supervisor-links":
		v, aerr = s.adminInviteSupervisor(r)
		status = http.StatusCreated
	case "GET supervisor-links":
		v = map[string]any{"links": s.SupervisorLinks()}
	case "GET ties":
		v = s.adminTies()
	case "GET push-registrations":
		v = map[string]any{"registrations": s.PushRegistrations()}
	case "GET tasks/" + adminItemID(r.URL.Path, "tasks", "/unmatched") + "/unmatched":
		v, aerr = s.adminUnmatched(adminItemID(r.URL.Path, "tasks", "/unmatched"))
	case "GET tasks/" + adminItemID(r.URL.Path, "tasks", ""):
		v, aerr = s.adminTaskState(adminItemID(r.URL.Path, "tasks", ""))
	case "GET workers/" + adminItemID(r.URL.Path, "workers", ""):
		v, aerr = s.adminWorkerState(adminItemID(r.URL.Path, "workers", ""))
	case "GET state", "POST state":
		v, status, aerr = s.adminState(r) // snapshot.go, restore.go
	case "POST reset":
		s.Reset()
		// The dropped state is garbage now, but the Go runtime hands freed pages back to the
		// OS only slowly: a long-running binary would keep its peak RSS after every reset.
		// Return them at once (one forced collection; resets are rare).
		s.freeMemory()
		status = http.StatusNoContent
	default:
		aerr = notFoundf("no admin route for %s %s", r.Method, r.URL.Path)
	}
	if aerr != nil {
		writeResponse(w, errResponse(aerr))
		return
	}
	resp := response{status: status, header: http.Header{}}
	if v != nil {
		resp.body, _ = json.Marshal(v)
	}
	writeResponse(w, resp)
}

func decodeAdmin(r *http.Request, into any) *apiError {
	dec := json.NewDecoder(io.LimitReader(r.Body, MaxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return validationf("body: %v", err)
	}
	return nil
}

func (s *Server) adminAdvance(r *http.Request) (any, *apiError) {
	if s.manual == nil {
		return nil, conflictf(CodeInvalidState, "the clock is not manual; start the server with a manual clock")
	}
	var in struct {
		Ms *int64 `json:"ms"`
	}
	if err := decodeAdmin(r, &in); err != nil {
		return nil, err
	}
	if in.Ms == nil || *in.Ms < 0 {
		return nil, validationf("body must have required property 'ms' (an integer >= 0)")
	}
	s.manual.Advance(time.Duration(*in.Ms) * time.Millisecond)
	return map[string]any{"now": s.clock.Now().UnixMilli()}, nil
}

type adminFaultInput struct {
	Method           string  `json:"method"`
	Path             string  `json:"path"`
	Status           int     `json:"status"`
	RetryAfterMs     int64   `json:"retryAfterMs"`
	DelayMs          int64   `json:"delayMs"`
	DropBeforeCommit bool    `json:"dropBeforeCommit"`
	DropAfterCommit  bool    `json:"dropAfterCommit"`
	Times            int     `json:"times"`
	Fraction         float64 `json:"fraction"`
	Seed             uint64  `json:"seed"`
	// DelayDistribution is Fault.DelayDist (latency.go).
	DelayDistribution *adminDelayDistribution `json:"delayDistribution"`
}

func (s *Server) adminFault(r *http.Request) *apiError {
	var in adminFaultInput
	if err := decodeAdmin(r, &in); err != nil {
		return err
	}
	f := Fault{Method: in.Method, Path: in.Path, Status: in.Status,
		RetryAfter: time.Duration(in.RetryAfterMs) * time.Millisecond, Delay: time.Duration(in.DelayMs) * time.Millisecond,
		DropBeforeCommit: in.DropBeforeCommit, DropAfterCommit: in.DropAfterCommit, Times: in.Times, Fraction: in.Fraction, Seed: in.Seed,
		DelayDist: in.DelayDistribution.dist()}
	if err := s.InjectFault(f); err != nil {
		return invalidBodyf("%v", err)
	}
	return nil
}

type wireDelivery struct {
	EventID    string `json:"eventId"`
	Kind       string `json:"kind"`
	URL        string `json:"url"`
	Attempt    int    `json:"attempt"`
	At         int64  `json:"at"`
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error,omitempty"`
	Outcome    string `json:"outcome"`
	// Reason is Delivery.Reason: why the receiver refused, left out when it said nothing.
	Reason string `json:"reason,omitempty"`
}

func (s *Server) adminDeliveries() any {
	ds := s.Deliveries()
	out := make([]wireDelivery, len(ds))
	for i, d := range ds {
		out[i] = wireDelivery{EventID: d.EventID, Kind: string(d.Kind), URL: d.URL, Attempt: d.Attempt, At: d.At.UnixMilli(),
			StatusCode: d.StatusCode, Error: d.Err, Outcome: d.Outcome, Reason: d.Reason}
	}
	return map[string]any{"deliveries": out}
}
