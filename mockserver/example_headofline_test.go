package mockserver_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/taskrouting/taskrouting-go/mockserver"
)

// A refused delivery holds back its endpoint until the manual clock passes
// its retries: with the default DeliveryPolicy, six attempts over 1.55s.
func ExampleManualClock_Advance_refusedDelivery() {
	clk := mockserver.NewManualClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	srv, err := mockserver.New(mockserver.WithClock(clk))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	_, detach, err := srv.AttachWebhookHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized) // e.g. a verifier with the wrong secret
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer detach()
	post := func(path, body string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+srv.APIKey())
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
	}
	post("/workers", `{"id":"agent_1","tags":["english"],"available":true}`)
	post("/tasks", `{"tags":["english"]}`)
	ctx := context.Background()
	report := func(when string) {
		if err := srv.Flush(ctx); err != nil {
			log.Fatal(err)
		}
		ds := srv.Deliveries()
		last := ds[len(ds)-1]
		fmt.Printf("%s: %d attempts, last %s\n", when, len(ds), last.Outcome)
	}
	report("at once")
	clk.Advance(1549 * time.Millisecond)
	report("after 1.549s")
	clk.Advance(time.Millisecond)
	report("after 1.55s")
	// Output:
	// at once: 1 attempts, last retrying
	// after 1.549s: 5 attempts, last retrying
	// after 1.55s: 6 attempts, last failed
}
