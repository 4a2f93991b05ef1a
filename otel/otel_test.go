package taskroutingotel_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	taskroutingotel "github.com/taskrouting/taskrouting-go/otel"
	"github.com/taskrouting/taskrouting-go/webhook"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// harness is real OpenTelemetry SDK providers with in-memory readers.
type harness struct {
	spans   *tracetest.SpanRecorder
	metrics *sdkmetric.ManualReader
	tel     *taskroutingotel.Telemetry
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{spans: tracetest.NewSpanRecorder(), metrics: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.metrics))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	tel, err := taskroutingotel.New(taskroutingotel.WithTracerProvider(tp), taskroutingotel.WithMeterProvider(mp),
		taskroutingotel.WithPropagator(propagation.TraceContext{}))
	if err != nil {
		t.Fatal(err)
	}
	h.tel = tel
	return h
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// spanView is what the tests compare of a span.
type spanView struct {
	Name   string
	Status codes.Code
	Attrs  map[string]string
	Events []string
}

func view(s sdktrace.ReadOnlySpan, keep ...string) spanView {
	all := attrs(s.Attributes())
	v := spanView{Name: s.Name(), Status: s.Status().Code, Attrs: map[string]string{}}
	for _, k := range keep {
		if val, ok := all[k]; ok {
			v.Attrs[k] = val
		}
	}
	for _, e := range s.Events() {
		v.Events = append(v.Events, e.Name+" "+attrs(e.Attributes)["attempt"]+" "+attrs(e.Attributes)["http.response.status_code"])
	}
	return v
}

var clientKeys = []string{"http.request.method", "url.template", "http.response.status_code", "error.type",
	"http.request.resend_count", taskroutingotel.AttrOperationID, taskroutingotel.AttrAttempts, taskroutingotel.AttrOutcome, "server.address"}

func TestClientSpansAndMetrics(t *testing.T) {
	h := newHarness(t)
	srv := mockserver.Start(t)
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithRetryWait(0, 0),
		taskrouting.WithMiddleware(h.tel.Middleware()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/tasks", Status: 503, Times: 2}); err != nil {
		t.Fatal(err)
	}
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tasks.Get(ctx, ref.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.Tasks.Get(ctx, "no_such_task")
	var apiErr *taskrouting.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v", err)
	}

	ended := h.spans.Ended()
	var got []spanView
	for _, s := range ended {
		got = append(got, view(s, clientKeys...))
	}
	want := []spanView{
		{Name: "tasks.create", Attrs: map[string]string{"http.request.method": "POST", "url.template": "/tasks", "http.response.status_code": "202",
			"http.request.resend_count": "2", "taskrouting.operation.id": "tasks.create", "taskrouting.attempts": "3", "taskrouting.outcome": "success", "server.address": "127.0.0.1"},
			Events: []string{"retry 1 503", "retry 2 503"}},
		{Name: "tasks.get", Attrs: map[string]string{"http.request.method": "GET", "url.template": "/tasks/{id}", "http.response.status_code": "200",
			"taskrouting.operation.id": "tasks.get", "taskrouting.attempts": "1", "taskrouting.outcome": "success", "server.address": "127.0.0.1"}},
		{Name: "tasks.get", Status: codes.Error, Attrs: map[string]string{"http.request.method": "GET", "url.template": "/tasks/{id}", "http.response.status_code": "404",
			"error.type": "404", "taskrouting.operation.id": "tasks.get", "taskrouting.attempts": "1", "taskrouting.outcome": "client_error", "server.address": "127.0.0.1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if id := attrs(ended[2].Attributes())[taskroutingotel.AttrRequestID]; id == "" || id != apiErr.RequestID {
		t.Errorf("request id on the span %q, on the error %q", id, apiErr.RequestID)
	}
	for _, s := range ended {
		if s.SpanKind().String() != "client" {
			t.Errorf("%s: kind %s, want client", s.Name(), s.SpanKind())
		}
	}

	// Every attempt carried the span's trace context.
	// Three attempts of tasks.create, then one request for each tasks.get.
	reqs := srv.Requests()
	spanOf := []int{0, 0, 0, 1, 2}
	if len(reqs) != len(spanOf) {
		t.Fatalf("%d requests, want %d", len(reqs), len(spanOf))
	}
	for i, r := range reqs {
		span := ended[spanOf[i]]
		want := "00-" + span.SpanContext().TraceID().String() + "-" + span.SpanContext().SpanID().String() + "-01"
		if got := r.Header.Get("Traceparent"); got != want {
			t.Errorf("request %d (%s %s): traceparent %q, want %q", i, r.Method, r.Path, got, want)
		}
	}

	// Metrics: one duration point per operation and outcome, retries counted.
	var rm metricdata.ResourceMetrics
	if err := h.metrics.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	counts, retries := map[string]uint64{}, map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Histogram[float64]:
				if m.Name != taskroutingotel.MetricCallDuration || m.Unit != "s" {
					t.Errorf("histogram %s in %s", m.Name, m.Unit)
				}
				for _, p := range data.DataPoints {
					counts[key(p.Attributes)] += p.Count
				}
			case metricdata.Sum[int64]:
				for _, p := range data.DataPoints {
					retries[key(p.Attributes)] += p.Value
				}
			}
		}
	}
	wantCounts := map[string]uint64{"tasks.create POST success": 1, "tasks.get GET success": 1, "tasks.get GET client_error": 1}
	wantRetries := map[string]int64{"tasks.create POST success": 2, "tasks.get GET success": 0, "tasks.get GET client_error": 0}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("duration counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantRetries, retries); diff != "" {
		t.Errorf("retries (-want +got):\n%s", diff)
	}
}

func key(set attribute.Set) string {
	get := func(k string) string { v, _ := set.Value(attribute.Key(k)); return v.Emit() }
	return get(taskroutingotel.AttrOperationID) + " " + get("http.request.method") + " " + get(taskroutingotel.AttrOutcome)
}

func TestTransportFailureSpan(t *testing.T) {
	h := newHarness(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close() // nothing listens there any more
	c, err := taskrouting.NewClient(url, "sk_test_otel", taskrouting.WithMaxRetries(1), taskrouting.WithRetryWait(0, 0),
		taskrouting.WithMiddleware(h.tel.Middleware()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Workers.List(context.Background()); err == nil {
		t.Fatal("a call to a closed port succeeded")
	}
	spans := h.spans.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	got := view(spans[0], taskroutingotel.AttrOutcome, taskroutingotel.AttrAttempts)
	want := spanView{Name: "workers.list", Status: codes.Error,
		Attrs:  map[string]string{taskroutingotel.AttrOutcome: "transport_error", taskroutingotel.AttrAttempts: "2"},
		Events: []string{"retry 1 ", "exception  "}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("span (-want +got):\n%s", diff)
	}
}

func TestWebhookSpans(t *testing.T) {
	h := newHarness(t)
	const secret = "whsec_otel_test"
	now := time.UnixMilli(1763700000000)
	v, err := webhook.NewVerifier(secret, webhook.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(webhook.Handler(v, func(ctx context.Context, ev webhook.Event) error {
		if ev.ID == "evt_fail" {
			return errors.New("database down")
		}
		return nil
	}, webhook.WithObserver(h.tel.WebhookObserver())))
	defer srv.Close()
	post := func(body, sig string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader([]byte(body)))
		req.Header.Set(webhook.SignatureHeader, sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	ok := `{"event":"task.accepted","id":"evt_ok","taskId":"t1","workerId":"w1"}`
	bad := `{"event":"task.completed","id":"evt_fail","taskId":"t1","workerId":"w1"}`
	post(ok, webhook.Sign([]byte(ok), secret, now))
	post(bad, webhook.Sign([]byte(bad), secret, now))
	post(ok, webhook.Sign([]byte(ok), "whsec_wrong", now))

	keys := []string{taskroutingotel.AttrEventKind, taskroutingotel.AttrVerified, taskroutingotel.AttrRefused, "http.response.status_code"}
	var got []spanView
	spans := h.spans.Ended()
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].StartTime().Before(spans[j].StartTime()) })
	for _, s := range spans {
		got = append(got, view(s, keys...))
	}
	refused := webhook.ErrNoMatchingSignature.Error()
	want := []spanView{
		{Name: "webhook.receive", Attrs: map[string]string{"taskrouting.webhook.event.kind": "task.accepted", "taskrouting.webhook.verified": "true", "http.response.status_code": "204"}},
		{Name: "webhook.verify", Attrs: map[string]string{"taskrouting.webhook.verified": "true"}},
		{Name: "webhook.handle", Attrs: map[string]string{"taskrouting.webhook.event.kind": "task.accepted"}},
		{Name: "webhook.receive", Status: codes.Error, Attrs: map[string]string{"taskrouting.webhook.event.kind": "task.completed", "taskrouting.webhook.verified": "true", "http.response.status_code": "500"}},
		{Name: "webhook.verify", Attrs: map[string]string{"taskrouting.webhook.verified": "true"}},
		{Name: "webhook.handle", Status: codes.Error, Attrs: map[string]string{"taskrouting.webhook.event.kind": "task.completed"}, Events: []string{"exception  "}},
		{Name: "webhook.receive", Attrs: map[string]string{"taskrouting.webhook.verified": "false", "http.response.status_code": "401"}},
		{Name: "webhook.verify", Status: codes.Error, Attrs: map[string]string{"taskrouting.webhook.verified": "false", "taskrouting.webhook.refused_reason": refused}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	// verify and handle are children of receive.
	for _, s := range spans {
		if s.Name() != "webhook.receive" && !s.Parent().IsValid() {
			t.Errorf("%s has no parent", s.Name())
		}
	}
}
