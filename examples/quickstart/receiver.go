package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// receiver is the webhook endpoint: it verifies every delivery (webhook.Handler refuses
// anything unsigned, altered or stale before the callback runs) and hands the verified events,
// in the order they arrive, to the loop that acts on them.
type receiver struct {
	events   chan webhook.Event
	done     chan struct{} // closed when the loop stops reading events
	verified atomic.Int64  // verified and handed on
	refused  atomic.Int64  // failed verification (or the body limit)
	srv      *http.Server
}

func newReceiver(secret string) (*receiver, error) {
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		return nil, err
	}
	// The service delivers at least once; the deduper drops a redelivery whose first copy was
	// already handed on.
	dedup, err := webhook.NewMemoryDeduper(10_000)
	if err != nil {
		return nil, err
	}
	rc := &receiver{events: make(chan webhook.Event, 1024), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.Handle("POST /hooks", webhook.Handler(v, rc.handle,
		webhook.WithDeduper(dedup),
		webhook.WithErrorHook(func(*http.Request, error) { rc.refused.Add(1) })))
	rc.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	return rc, nil
}

// handle queues a verified event. Answering 2xx only once the event is queued means a delivery
// that could not be queued is redelivered instead of lost. The count goes up before the event
// is queued, so the loop that reads an event always sees it counted.
func (rc *receiver) handle(ctx context.Context, ev webhook.Event) error {
	rc.verified.Add(1)
	select {
	case rc.events <- ev:
		return nil
	case <-rc.done:
		rc.verified.Add(-1)
		return errors.New("receiver is shutting down")
	case <-ctx.Done():
		rc.verified.Add(-1)
		return ctx.Err()
	}
}

// serve answers deliveries on ln until shutdown.
func (rc *receiver) serve(ln net.Listener) {
	go func() { _ = rc.srv.Serve(ln) }()
}

func (rc *receiver) shutdown() {
	close(rc.done)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = rc.srv.Shutdown(ctx)
}
