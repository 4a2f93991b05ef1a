package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// run serves the webhook endpoint until ctx is cancelled, then drains and prints a summary.
func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	cfg, err := parseConfig(args, getenv, out)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(out, nil))

	st := newStats()
	h, err := newHandler(cfg, st, log)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       60 * time.Second,
		// A delivery in flight when the signal arrives keeps an uncancelled context, so it can
		// finish while Shutdown waits for it.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	log.Info("listening", "url", "http://"+ln.Addr().String()+"/hooks")

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}

	// Stop accepting, let deliveries in flight finish; the sender retries anything cut off.
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(out, st.summary())
	return nil
}

// newHandler builds the receiver's routes: the verified webhook endpoint at POST /hooks and a
// health check.
func newHandler(cfg config, st *stats, log *slog.Logger) (http.Handler, error) {
	v, err := webhook.NewVerifier(cfg.Secret)
	if err != nil {
		return nil, err
	}
	// Remembers the last 100,000 processed event ids; a shared store (a database table, Redis)
	// implementing webhook.Deduper does the same across several receiver instances.
	mem, err := webhook.NewMemoryDeduper(100_000)
	if err != nil {
		return nil, err
	}
	dedup := &countingDeduper{Deduper: mem, skipped: &st.duplicates}

	mux := http.NewServeMux()
	mux.Handle("POST /hooks", webhook.Handler(v, st.handle(log),
		webhook.WithMaxBodyBytes(cfg.MaxBodyBytes),
		webhook.WithDeduper(dedup),
		webhook.WithErrorHook(func(r *http.Request, err error) {
			st.refused.Add(1)
			// The webhook package's errors hold no secret, signature or body: safe to log.
			log.Warn("delivery refused", "remote", r.RemoteAddr, "err", err)
		})))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return mux, nil
}

// stats counts what the receiver did, for the summary line.
type stats struct {
	mu         sync.Mutex
	byKind     map[webhook.Kind]int
	processed  int
	duplicates atomic.Int64
	refused    atomic.Int64
}

// handle is the callback for verified, not yet processed events. A real service would do its
// work here (or queue it durably) and return an error to have the delivery retried.
func (st *stats) handle(log *slog.Logger) func(context.Context, webhook.Event) error {
	return func(_ context.Context, ev webhook.Event) error {
		switch ev.Kind {
		case webhook.KindTaskMatched:
			m, err := ev.TaskMatched()
			if err != nil {
				return err // 500: the sender retries; a payload this receiver cannot read is worth a look
			}
			log.Info("task offered", "event", ev.ID, "task", m.TaskID, "worker", m.WorkerID,
				"priority", m.Priority, "tags", strings.Join(m.Tags, ","), "decision", m.DecisionID)
		default:
			// Other kinds, unknown ones included, are normal: the service adds kinds without notice.
			log.Info(string(ev.Kind), "event", ev.ID, "task", ev.TaskID, "worker", ev.WorkerID)
		}
		st.mu.Lock()
		st.byKind[ev.Kind]++
		st.processed++
		st.mu.Unlock()
		return nil
	}
}

func newStats() *stats { return &stats{byKind: map[webhook.Kind]int{}} }

func (st *stats) summary() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	kinds := make([]string, 0, len(st.byKind))
	for k, n := range st.byKind {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
	}
	slices.Sort(kinds)
	s := fmt.Sprintf("summary: %d events processed, %d duplicates skipped, %d deliveries refused",
		st.processed, st.duplicates.Load(), st.refused.Load())
	if len(kinds) > 0 {
		s += " (" + strings.Join(kinds, " ") + ")"
	}
	return s
}

// countingDeduper counts the redeliveries the wrapped Deduper says were already processed.
type countingDeduper struct {
	webhook.Deduper
	skipped *atomic.Int64
}

func (d *countingDeduper) Claim(ctx context.Context, eventID string) (webhook.ClaimResult, error) {
	res, err := d.Deduper.Claim(ctx, eventID)
	if err == nil && res == webhook.ClaimProcessed {
		d.skipped.Add(1)
	}
	return res, err
}
