// Package taskroutingotel traces and measures the taskrouting SDK with
// OpenTelemetry: a span per API call, named by its operation id, with the
// HTTP semantic-convention attributes, a call-duration histogram and a
// retry counter, the trace context sent on every request, and spans for
// the webhook deliveries a webhook.Handler or webhook.Middleware receives.
//
//	tel, err := taskroutingotel.New() // the global providers and propagator
//	c, err := taskrouting.NewClient(base, key, taskrouting.WithMiddleware(tel.Middleware()))
//	mux.Handle("POST /hooks", webhook.Handler(verifier, process, webhook.WithObserver(tel.WebhookObserver())))
//
// It is a Go module of its own, github.com/taskrouting/taskrouting-go/otel,
// so that the SDK's main module does not depend on OpenTelemetry: a program
// that does not trace pulls in none of it.
package taskroutingotel

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/taskrouting/taskrouting-go/otel"

// Attribute keys of this package, beside the semantic conventions'.
const (
	AttrOperationID = "taskrouting.operation.id" // "tasks.create"; "" for a path the contract lacks
	AttrAttempts    = "taskrouting.attempts"     // attempts the call made, retries included
	AttrRequestID   = "taskrouting.request_id"   // the answer's X-Request-Id
	AttrOutcome     = "taskrouting.outcome"      // see the Outcome constants
	AttrEventKind   = "taskrouting.webhook.event.kind"
	AttrEventID     = "taskrouting.webhook.event.id"
	AttrVerified    = "taskrouting.webhook.verified"
	AttrRefused     = "taskrouting.webhook.refused_reason" // why a delivery did not verify
	AttrDuplicate   = "taskrouting.webhook.duplicate"      // the deduper had already processed the event
)

// Outcomes of a call, the AttrOutcome values on spans and metrics.
const (
	OutcomeSuccess        = "success"         // a 2xx answer
	OutcomeClientError    = "client_error"    // a 4xx answer, 429 included
	OutcomeServerError    = "server_error"    // a 5xx answer
	OutcomeTransportError = "transport_error" // no answer: connection failure, timeout, cancelled context
)

// Metric names.
const (
	MetricCallDuration = "taskrouting.client.call.duration" // histogram, seconds, per call
	MetricRetries      = "taskrouting.client.call.retries"  // counter, retries made by calls
)

// Telemetry holds the tracer, meter instruments and propagator that its
// middleware and webhook observer use. It is safe for concurrent use.
type Telemetry struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	duration   metric.Float64Histogram
	retries    metric.Int64Counter
}

type config struct {
	tp         trace.TracerProvider
	mp         metric.MeterProvider
	propagator propagation.TextMapPropagator
}

// Option configures New.
type Option func(*config)

// WithTracerProvider sets where spans go (default: otel.GetTracerProvider()
// at the time New runs).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithMeterProvider sets where metrics go (default: otel.GetMeterProvider()).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// WithPropagator sets how the trace context is written on each request
// (default: otel.GetTextMapPropagator(), which sends nothing until the
// program sets one, e.g. propagation.TraceContext{}).
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagator = p }
}

// New makes the tracer and the instruments. A nil option is ignored.
func New(opts ...Option) (*Telemetry, error) {
	cfg := config{}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.tp == nil {
		cfg.tp = otel.GetTracerProvider()
	}
	if cfg.mp == nil {
		cfg.mp = otel.GetMeterProvider()
	}
	if cfg.propagator == nil {
		cfg.propagator = otel.GetTextMapPropagator()
	}
	meter := cfg.mp.Meter(ScopeName)
	duration, err := meter.Float64Histogram(MetricCallDuration,
		metric.WithUnit("s"),
		metric.WithDescription("Duration of taskrouting API calls, every attempt and the waits between them included."))
	if err != nil {
		return nil, err
	}
	retries, err := meter.Int64Counter(MetricRetries,
		metric.WithUnit("{retry}"),
		metric.WithDescription("Retries made by taskrouting API calls."))
	if err != nil {
		return nil, err
	}
	return &Telemetry{
		tracer:     cfg.tp.Tracer(ScopeName),
		propagator: cfg.propagator,
		duration:   duration,
		retries:    retries,
	}, nil
}
