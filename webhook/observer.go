package webhook

import (
	"context"
	"net/http"
)

// Observer follows each delivery that [Handler] or [Middleware] receives,
// for tracing and metrics (the OpenTelemetry module of this repository
// builds its webhook spans on it). Every field is optional. The hooks run
// on the delivery's goroutine, in this order, once each:
//
//   - Received, before anything is read; the context it returns is the
//     delivery's from then on (a span started here covers verification).
//   - Verified, when the delivery is verified and parsed (err nil) or
//     refused before it got that far (err says why: a bad signature, a
//     timestamp out of tolerance, a body too large, a wrong method); the
//     context it returns is the one the callback or next handler gets.
//   - Done, once the answer is written.
//
// The errors never hold a secret, a signature or body bytes.
type Observer struct {
	Received func(r *http.Request) context.Context
	Verified func(ctx context.Context, ev Event, err error) context.Context
	Done     func(ctx context.Context, d DeliveryResult)
}

// DeliveryResult is how one delivery ended.
type DeliveryResult struct {
	// Event is the verified event; zero when the delivery was refused
	// before verification succeeded.
	Event  Event
	Status int // the status answered
	// Err is the reason of a failure the handler answered itself (the
	// one WithErrorHook sees): verification, de-duplication or the
	// callback's error. It is nil for a 2xx, and for a status the next
	// handler of Middleware chose.
	Err error
	// Duplicate is true when the deduper had already seen the event
	// processed, so the answer was 204 without running the callback.
	Duplicate bool
}

// WithObserver reports each delivery's progress to o (see [Observer]).
func WithObserver(o Observer) HandlerOption {
	return func(c *handlerConfig) { c.observer = &o }
}

// observedWriter carries one observed delivery's state through the
// receiver's steps, which all see the response writer.
type observedWriter struct {
	statusWriter
	obs      *Observer
	ctx      context.Context
	verified bool // Verified has been called
	result   DeliveryResult
}

// observe starts an observed delivery, or returns w and r as they are
// when no observer is set.
func (rc *receiver) observe(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request, *observedWriter) {
	o := rc.cfg.observer
	if o == nil {
		return w, r, nil
	}
	ow := &observedWriter{statusWriter: statusWriter{ResponseWriter: w}, obs: o, ctx: r.Context()}
	if o.Received != nil {
		if ctx := o.Received(r); ctx != nil {
			ow.ctx = ctx
			r = r.WithContext(ctx)
		}
	}
	return ow, r, ow
}

// verifiedAs reports the verification outcome once and returns the
// context to go on with.
func (ow *observedWriter) verifiedAs(ev Event, err error) context.Context {
	if ow.verified {
		return ow.ctx
	}
	ow.verified = true
	if err == nil {
		ow.result.Event = ev
	}
	if ow.obs.Verified != nil {
		if ctx := ow.obs.Verified(ow.ctx, ev, err); ctx != nil {
			ow.ctx = ctx
		}
	}
	return ow.ctx
}

func (ow *observedWriter) done() {
	if ow.obs.Done == nil {
		return
	}
	ow.result.Status = ow.status
	if ow.result.Status == 0 {
		ow.result.Status = http.StatusOK // nothing written: net/http answers 200
	}
	ow.obs.Done(ow.ctx, ow.result)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (ow *observedWriter) Unwrap() http.ResponseWriter { return ow.ResponseWriter }
