package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// An observer follows each delivery: here it prints how each one ended.
// The OpenTelemetry module builds its spans on the same hooks.
func ExampleWithObserver() {
	const secret = "whsec_observer_example"
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		log.Fatal(err)
	}
	obs := webhook.Observer{
		Verified: func(ctx context.Context, ev webhook.Event, err error) context.Context {
			if err != nil {
				fmt.Println("refused:", err)
			} else {
				fmt.Println("verified:", ev.Kind)
			}
			return ctx
		},
		Done: func(_ context.Context, d webhook.DeliveryResult) {
			fmt.Println("answered", d.Status)
		},
	}
	srv := httptest.NewServer(webhook.Handler(v, func(context.Context, webhook.Event) error { return nil },
		webhook.WithObserver(obs)))
	defer srv.Close()

	body := []byte(`{"event":"task.accepted","id":"evt_1","taskId":"t1","workerId":"w1"}`)
	for _, key := range []string{secret, "whsec_someone_else"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		req.Header.Set(webhook.SignatureHeader, webhook.Sign(body, key, time.Now()))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
	}
	// Output:
	// verified: task.accepted
	// answered 204
	// refused: webhook: no matching signature
	// answered 401
}
