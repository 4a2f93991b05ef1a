package mockserver

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"time"
)

// WithLogger makes the server log each API request, each webhook delivery attempt, stalled
// deliveries and, on Close, how many queued deliveries it drops. By default it logs nothing.
// Keys, tokens, PINs and the signing secret are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(cfg *config) {
		if l == nil {
			cfg.errs = append(cfg.errs, errors.New("mockserver: nil logger"))
			return
		}
		cfg.logger = l
	}
}

// AdminURL returns the base URL of the admin endpoints, e.g. "http://127.0.0.1:41234/_mock";
// empty while the server is not serving.
func (s *Server) AdminURL() string {
	if s.url == "" {
		return ""
	}
	return strings.TrimSuffix(s.url, BasePath) + strings.TrimSuffix(adminPrefix, "/")
}

// record keeps a finished API request and logs it.
//
// The line is built as Logger.LogAttrs builds it (the same time, level, message, attributes
// and handler, so the same bytes), except for the record's program counter: LogAttrs walks
// the stack for it on every call (runtime.Callers, about 3% of the binary's CPU per create
// under load), and here it is always the same one, so it is looked up once (requestLogPC).
// A handler that prints the source (HandlerOptions.AddSource) names this function's
// logging.go line either way (TestRequestLogSource).
func (s *Server) record(rec Request, began time.Time) {
	s.rec.add(rec)
	ctx := context.Background()
	h := s.log.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return // nothing to build the line for (a library server logs warnings and up)
	}
	took := time.Since(began)
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", s.requestLogPC())
	r.AddAttrs(slog.String("method", rec.Method), slog.String("path", rec.Path),
		slog.Int("status", rec.StatusCode), slog.Duration("took", took))
	if rec.Fault != "" {
		r.AddAttrs(slog.String("fault", rec.Fault))
	}
	_ = h.Handle(ctx, r) // as LogAttrs: a handler's error is not the request's
}

// requestLogPC is the program counter of record's log line: the one LogAttrs would find
// for it, looked up on the first request only.
func (s *Server) requestLogPC() uintptr {
	if pc := s.logPC.Load(); pc != 0 {
		return pc
	}
	var pcs [1]uintptr
	runtime.Callers(2, pcs[:]) // skip Callers and this function: the caller, record
	s.logPC.Store(pcs[0])
	return pcs[0]
}

// logAttempt reports one delivery attempt; the caller holds d.mu. With a manual clock a
// failed attempt stalls its endpoint: the retry, and every later event queued behind it,
// waits until the test moves the clock, so the log says so.
func (d *deliverer) logAttempt(rec Delivery, ep *endpoint) {
	attrs := []slog.Attr{slog.String("kind", string(rec.Kind)), slog.String("eventId", rec.EventID), slog.String("url", rec.URL),
		slog.Int("attempt", rec.Attempt), slog.Int("status", rec.StatusCode), slog.String("outcome", rec.Outcome)}
	if rec.Err != "" {
		attrs = append(attrs, slog.String("error", rec.Err))
	}
	if h := staleHint(rec, d.signNow != nil, time.Now()); h != "" {
		attrs = append(attrs, slog.String("hint", h))
	}
	ctx := context.Background()
	switch rec.Outcome {
	case OutcomeDelivered:
		d.logger.LogAttrs(ctx, slog.LevelInfo, "webhook delivered", attrs...)
	case OutcomeFailed:
		d.logger.LogAttrs(ctx, slog.LevelError, "webhook delivery failed for good", attrs...)
	default:
		attrs = append(attrs, slog.Time("retryAt", ep.nextAt), slog.Int("queuedBehind", len(ep.queue)-1))
		if d.manual {
			d.logger.LogAttrs(ctx, slog.LevelWarn,
				"webhook delivery stalled: the retry and every later event to this url wait until the manual clock reaches retryAt", attrs...)
			return
		}
		d.logger.LogAttrs(ctx, slog.LevelWarn, "webhook delivery failed, will retry", attrs...)
	}
}

// queuedLocked counts the deliveries not yet started: every queued event times every
// endpoint, less the attempts in flight (those finish).
func (d *deliverer) queuedLocked() int {
	n := 0
	for _, ep := range d.endpoints {
		n += len(ep.queue)
		if ep.busy {
			n--
		}
	}
	return n
}

// statusWriter notes the status an admin answer was written with, for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}
