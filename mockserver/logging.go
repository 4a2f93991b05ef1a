package mockserver

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
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
func (s *Server) record(rec Request, began time.Time) {
	s.rec.add(rec)
	if !s.log.Enabled(context.Background(), slog.LevelInfo) {
		return // nothing to build the line for (a library server logs warnings and up)
	}
	attrs := []slog.Attr{slog.String("method", rec.Method), slog.String("path", rec.Path),
		slog.Int("status", rec.StatusCode), slog.Duration("took", time.Since(began))}
	if rec.Fault != "" {
		attrs = append(attrs, slog.String("fault", rec.Fault))
	}
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "request", attrs...)
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
