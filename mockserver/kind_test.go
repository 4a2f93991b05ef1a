package mockserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/webhook"
)

// TestEventKindHasOneName checks that an event's kind reads the same wherever the server
// exposes it: the "event" member of the payload (the platform's wire name), Event.Kind,
// Delivery.Kind and "kind" in GET /_mock/deliveries, all comparable with the webhook
// package's Kind constants.
func TestEventKindHasOneName(t *testing.T) {
	t.Parallel()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hook.Close)
	srv := Start(t, WithWebhookURL(hook.URL))
	mustAPI(t, srv, 200, "POST", "/workers", map[string]any{"id": "agent_1", "tags": []string{"english"}, "available": true})
	runLoop(t, srv, "task_1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitForDeliveries(ctx))

	want := []webhook.Kind{webhook.KindTaskMatched, webhook.KindTaskAccepted, webhook.KindTaskCompleted}
	var fromEvents, fromPayloads, fromDeliveries, fromAdmin []webhook.Kind
	for _, ev := range srv.Events() {
		fromEvents = append(fromEvents, ev.Kind)
		var env struct {
			Event webhook.Kind `json:"event"`
		}
		require.NoError(t, json.Unmarshal(ev.Payload, &env))
		fromPayloads = append(fromPayloads, env.Event)
	}
	for _, d := range srv.Deliveries() {
		fromDeliveries = append(fromDeliveries, d.Kind)
	}
	req, err := http.NewRequest("GET", strings.TrimSuffix(srv.URL(), BasePath)+"/_mock/deliveries", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", raw)
	var admin struct {
		Deliveries []map[string]any `json:"deliveries"`
	}
	require.NoError(t, json.Unmarshal(raw, &admin))
	for _, d := range admin.Deliveries {
		kind, _ := d["kind"].(string)
		fromAdmin = append(fromAdmin, webhook.Kind(kind))
		assert.NotContains(t, d, "event", "the kind has one name in the admin JSON")
	}
	for name, got := range map[string][]webhook.Kind{
		"Events": fromEvents, "payloads": fromPayloads, "Deliveries": fromDeliveries, "/_mock/deliveries": fromAdmin,
	} {
		assert.Empty(t, cmp.Diff(want, got), "%s", name)
	}
}
