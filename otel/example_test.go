package taskroutingotel_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	taskroutingotel "github.com/taskrouting/taskrouting-go/otel"
	"github.com/taskrouting/taskrouting-go/webhook"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A client traced with the program's tracer provider: one span per call,
// named by its operation. Here the spans go to an in-memory recorder and
// the mock server stands in for the service; a real program passes its
// exporting provider (or none, to use the global one).
func Example() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	tel, err := taskroutingotel.New(taskroutingotel.WithTracerProvider(tp),
		taskroutingotel.WithPropagator(propagation.TraceContext{}))
	if err != nil {
		log.Fatal(err)
	}
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithMiddleware(tel.Middleware()))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"}})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Tasks.Get(ctx, ref.ID); err != nil {
		log.Fatal(err)
	}
	for _, s := range spans.Ended() {
		for _, kv := range s.Attributes() {
			if kv.Key == "url.template" {
				fmt.Println(s.Name(), kv.Value.AsString())
			}
		}
	}
	// Output:
	// tasks.create /tasks
	// tasks.get /tasks/{id}
}

// Webhook deliveries traced: the observer gives each delivery a receive
// span with verify and handle children.
func ExampleTelemetry_WebhookObserver() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	tel, err := taskroutingotel.New(taskroutingotel.WithTracerProvider(tp))
	if err != nil {
		log.Fatal(err)
	}
	const secret = "whsec_example"
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		log.Fatal(err)
	}
	h := webhook.Handler(v, func(context.Context, webhook.Event) error { return nil },
		webhook.WithObserver(tel.WebhookObserver()))
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := []byte(`{"event":"task.accepted","id":"evt_1","taskId":"t1","workerId":"w1"}`)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
	req.Header.Set(webhook.SignatureHeader, webhook.Sign(body, secret, time.Now()))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	for _, s := range spans.Ended() {
		fmt.Println(s.Name())
	}
	// Output:
	// webhook.verify
	// webhook.handle
	// webhook.receive
}
