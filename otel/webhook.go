package taskroutingotel

import (
	"context"
	"net/http"

	"github.com/taskrouting/taskrouting-go/webhook"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"
)

// WebhookObserver returns the observer to give webhook.Handler or
// webhook.Middleware with webhook.WithObserver. Each delivery gets a
// server span "webhook.receive" with two children: "webhook.verify", from
// the request's arrival until the signature and body are checked, with
// AttrVerified and, when refused, AttrRefused (the reason, never the
// secret, signature or body) and an Error status; and, for a verified
// delivery, "webhook.handle", around your callback or next handler, with
// the event's kind and id. The callback's context carries the handle span,
// so the API calls it makes are its children. The receive span ends with
// the answered status, the event kind and whether the deduper had already
// processed the event.
func (t *Telemetry) WebhookObserver() webhook.Observer {
	return webhook.Observer{
		Received: func(r *http.Request) context.Context {
			ctx, recv := t.tracer.Start(r.Context(), "webhook.receive", trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method)))
			d := &delivery{receive: recv}
			ctx = context.WithValue(ctx, deliveryKey{}, d)
			ctx, d.verify = t.tracer.Start(ctx, "webhook.verify")
			return ctx
		},
		Verified: func(ctx context.Context, ev webhook.Event, err error) context.Context {
			d, ok := ctx.Value(deliveryKey{}).(*delivery)
			if !ok {
				return ctx
			}
			d.verified = true
			d.verify.SetAttributes(attribute.Bool(AttrVerified, err == nil))
			d.receive.SetAttributes(attribute.Bool(AttrVerified, err == nil))
			if err != nil {
				d.verify.SetAttributes(attribute.String(AttrRefused, err.Error()))
				d.verify.SetStatus(codes.Error, err.Error())
				d.verify.End()
				return ctx
			}
			d.verify.End()
			kind := []attribute.KeyValue{attribute.String(AttrEventKind, string(ev.Kind)), attribute.String(AttrEventID, ev.ID)}
			d.receive.SetAttributes(kind...)
			// The handle span is the receive span's child, not the verify span's.
			parent := trace.ContextWithSpan(ctx, d.receive)
			_, d.handle = t.tracer.Start(parent, "webhook.handle", trace.WithAttributes(kind...))
			return trace.ContextWithSpan(ctx, d.handle)
		},
		Done: func(ctx context.Context, res webhook.DeliveryResult) {
			d, ok := ctx.Value(deliveryKey{}).(*delivery)
			if !ok {
				return
			}
			if !d.verified {
				d.verify.End()
			}
			if d.handle != nil {
				if res.Err != nil {
					d.handle.RecordError(res.Err)
					d.handle.SetStatus(codes.Error, res.Err.Error())
				} else if res.Status >= 400 {
					d.handle.SetStatus(codes.Error, http.StatusText(res.Status))
				}
				d.handle.End()
			}
			d.receive.SetAttributes(semconv.HTTPResponseStatusCode(res.Status), attribute.Bool(AttrDuplicate, res.Duplicate))
			if res.Status >= 500 {
				d.receive.SetStatus(codes.Error, http.StatusText(res.Status))
			}
			d.receive.End()
		},
	}
}

type deliveryKey struct{}

// delivery holds one delivery's spans between the observer's hooks.
type delivery struct {
	receive, verify, handle trace.Span
	verified                bool // the verify span has ended
}
