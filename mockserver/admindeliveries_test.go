package mockserver

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// GET /_mock/deliveries shows why a receiver refused an attempt (Delivery.Reason, the first
// line of its answer) as "reason", and leaves the member out when there is none to show.
func TestAdminDeliveriesShowTheReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    map[string]any
	}{
		{"refused with a body", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "inventory database down\nsecond line", http.StatusServiceUnavailable)
		}, map[string]any{"kind": "task.matched", "attempt": 1.0, "statusCode": 503.0, "outcome": OutcomeRetrying,
			"reason": "inventory database down"}},
		{"refused without a body", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
		}, map[string]any{"kind": "task.matched", "attempt": 1.0, "statusCode": 401.0, "outcome": OutcomeRetrying}},
		{"delivered", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		}, map[string]any{"kind": "task.matched", "attempt": 1.0, "statusCode": 204.0, "outcome": OutcomeDelivered}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := Start(t, WithClock(NewManualClock(t0)), WithTestLogger(nil))
			_, detach, err := srv.AttachWebhookHandler(tt.handler)
			if err != nil {
				t.Fatal(err)
			}
			defer detach()
			mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
			mustAPI(t, srv, 202, "POST", "/tasks", map[string]any{"tags": []string{"english"}})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := srv.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			ans := adminGet(t, srv, "/deliveries")
			if ans.Status != http.StatusOK {
				t.Fatalf("GET /_mock/deliveries: %d %s", ans.Status, ans.Body)
			}
			var got struct {
				Deliveries []map[string]any `json:"deliveries"`
			}
			if err := json.Unmarshal(ans.Body, &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Deliveries) != 1 {
				t.Fatalf("%d deliveries, want the one attempt: %s", len(got.Deliveries), ans.Body)
			}
			row := got.Deliveries[0]
			for _, varies := range []string{"eventId", "url", "at"} {
				if _, ok := row[varies]; !ok {
					t.Errorf("member %q missing: %s", varies, ans.Body)
				}
				delete(row, varies)
			}
			if diff := cmp.Diff(tt.want, row); diff != "" {
				t.Errorf("delivery (-want +got):\n%s", diff)
			}
			if reason, _ := row["reason"].(string); reason != srv.Deliveries()[0].Reason {
				t.Errorf("reason %q, Delivery.Reason %q: the admin answer and Go disagree", reason, srv.Deliveries()[0].Reason)
			}
		})
	}
}
