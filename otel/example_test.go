package taskroutingotel_test

import (
	"context"
	"fmt"
	"log"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	taskroutingotel "github.com/taskrouting/taskrouting-go/otel"
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
