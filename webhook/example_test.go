package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/taskrouting/taskrouting-go/webhook"
)

func ExampleVerify() {
	secret := "whsec_testsecret"
	body := []byte(`{"event":"task.matched","taskId":"task_8fk2","workerId":"agent_1"}`)
	header := webhook.Sign(body, secret, time.Now()) // what the service sends

	fmt.Println(webhook.Verify(body, header, secret))
	err := webhook.Verify(append(body, ' '), header, secret)
	fmt.Println(errors.Is(err, webhook.ErrNoMatchingSignature))
	// Output:
	// <nil>
	// true
}

func ExampleVerifier_ConstructEvent() {
	// The first test vector of the wire contract, verified at its own time.
	signedAt := time.UnixMilli(1750000000000)
	v, err := webhook.NewVerifier("whsec_testsecret",
		webhook.WithPreviousSecrets("whsec_rotated_2026"),
		webhook.WithClock(func() time.Time { return signedAt.Add(time.Minute) }))
	if err != nil {
		panic(err)
	}
	body := []byte(`{"event":"task.matched","taskId":"task_8fk2","workerId":"agent_1"}`)
	header := "t=1750000000000,v1=bbb9baa2754dd71e55f126329a25fe8be7e3ec26a4858055f0964eca89680ffc"

	ev, err := v.ConstructEvent(body, header)
	fmt.Println(ev.Kind, ev.TaskID, ev.WorkerID, err)
	fmt.Println(v) // never shows a secret
	// Output:
	// task.matched task_8fk2 agent_1 <nil>
	// webhook.Verifier{secrets: 2, tolerance: 5m0s}
}

func ExampleHandler() {
	secret := "whsec_testsecret"
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		panic(err)
	}
	dedup, err := webhook.NewMemoryDeduper(10_000)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/hooks", webhook.Handler(v, func(ctx context.Context, ev webhook.Event) error {
		if ev.Kind == webhook.KindTaskMatched {
			m, err := ev.TaskMatched()
			if err != nil {
				return err
			}
			fmt.Println("offer", m.TaskID, "to", m.WorkerID, "tags", m.Tags)
		}
		return nil
	}, webhook.WithDeduper(dedup)))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	body := []byte(`{"event":"task.matched","id":"evt_1","data":{"taskId":"task_1","workerId":"agent_1","tags":["billing"]}}`)
	for i := 0; i < 2; i++ { // the second delivery is a duplicate
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/hooks", bytes.NewReader(body))
		req.Header.Set(webhook.SignatureHeader, webhook.Sign(body, secret, time.Now()))
		resp, err := srv.Client().Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	// Output:
	// offer task_1 to agent_1 tags [billing]
	// 204
	// 204
}
