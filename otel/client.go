package taskroutingotel

import (
	"net/http"
	"strconv"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"
)

// Middleware returns the client middleware; give it to NewClient (or
// NewWorkerClient, NewSupervisorClient) with taskrouting.WithMiddleware.
//
// Each call gets one client span, named by its operation id
// ("tasks.create"; the method alone for a path the contract lacks), with
// http.request.method, server.address, server.port, url.template (the
// path template, "/tasks/{id}/accept": never the ids, which may be your
// customers' data, so url.full is left out), http.response.status_code,
// error.type, http.request.resend_count, and this package's operation id,
// attempts and request id. Each attempt that was retried is a span event
// "retry" at the time the attempt ended, with its number and status or
// error. A 4xx or 5xx answer, or no answer, sets the span's status to
// Error. The span's trace context is written on the request, so all its
// attempts carry it.
//
// The call's duration goes to MetricCallDuration and its retries to
// MetricRetries, both with the operation id, the method and the outcome.
func (t *Telemetry) Middleware() taskrouting.Middleware {
	return func(req *http.Request, next taskrouting.MiddlewareNext) (*http.Response, error) {
		ci := taskrouting.CallInfoFromContext(req.Context())
		opID, template := "", ""
		if ci != nil {
			opID, template = ci.OperationID(), ci.PathTemplate()
		}
		name := opID
		if name == "" {
			name = req.Method
		}
		attrs := []attribute.KeyValue{
			semconv.HTTPRequestMethodKey.String(req.Method),
			attribute.String(AttrOperationID, opID),
		}
		if host, port := hostPort(req); host != "" {
			attrs = append(attrs, semconv.ServerAddress(host))
			if port > 0 {
				attrs = append(attrs, semconv.ServerPort(port))
			}
		}
		if template != "" {
			attrs = append(attrs, semconv.URLTemplate(template))
		}
		start := time.Now()
		ctx, span := t.tracer.Start(req.Context(), name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
		defer span.End()

		req = req.WithContext(ctx)
		req.Header = req.Header.Clone() // the caller's request keeps its headers
		t.propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))

		resp, err := next(req)

		var attempts []taskrouting.Attempt
		if ci != nil {
			attempts = ci.Attempts()
		}
		for _, a := range attempts {
			if !a.Retried {
				continue
			}
			evAttrs := []attribute.KeyValue{attribute.Int("attempt", a.Number)}
			if a.StatusCode != 0 {
				evAttrs = append(evAttrs, semconv.HTTPResponseStatusCode(a.StatusCode))
			}
			if a.Err != nil {
				evAttrs = append(evAttrs, semconv.ErrorType(a.Err))
			}
			span.AddEvent("retry", trace.WithTimestamp(a.Start.Add(a.Duration)), trace.WithAttributes(evAttrs...))
		}
		retries := 0
		if len(attempts) > 1 {
			retries = len(attempts) - 1
		}
		span.SetAttributes(attribute.Int(AttrAttempts, len(attempts)))
		if retries > 0 {
			span.SetAttributes(semconv.HTTPRequestResendCount(retries))
		}

		outcome := OutcomeSuccess
		switch {
		case err != nil:
			outcome = OutcomeTransportError
			span.SetAttributes(semconv.ErrorType(err))
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		case resp != nil:
			span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
			if id := resp.Header.Get("X-Request-Id"); id != "" {
				span.SetAttributes(attribute.String(AttrRequestID, id))
			}
			if resp.StatusCode >= 400 {
				outcome = OutcomeClientError
				if resp.StatusCode >= 500 {
					outcome = OutcomeServerError
				}
				span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(resp.StatusCode)))
				span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
			}
		}
		span.SetAttributes(attribute.String(AttrOutcome, outcome))

		set := metric.WithAttributeSet(attribute.NewSet(
			attribute.String(AttrOperationID, opID),
			semconv.HTTPRequestMethodKey.String(req.Method),
			attribute.String(AttrOutcome, outcome),
		))
		t.duration.Record(ctx, time.Since(start).Seconds(), set)
		t.retries.Add(ctx, int64(retries), set)
		return resp, err
	}
}

// hostPort reads server.address and server.port from the request's URL.
func hostPort(req *http.Request) (string, int) {
	if req.URL == nil {
		return "", 0
	}
	host := req.URL.Hostname()
	port, err := strconv.Atoi(req.URL.Port())
	if err != nil || port <= 0 {
		switch req.URL.Scheme {
		case "https":
			port = 443
		case "http":
			port = 80
		}
	}
	return host, port
}
