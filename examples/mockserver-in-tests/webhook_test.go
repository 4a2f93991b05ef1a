package mockservertests

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// recorder is a webhook receiver for tests: it keeps the kinds of the verified events it got.
type recorder struct {
	mu    sync.Mutex
	kinds []string
}

func (r *recorder) handle(_ context.Context, ev webhook.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds = append(r.kinds, string(ev.Kind)+" "+ev.TaskID)
	return nil
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.kinds...)
}

// The mock server signs every delivery like the service does, so the receiver under test runs
// its real verification. The test waits for the deliveries, never sleeps.
func TestWebhooksReachTheReceiver(t *testing.T) {
	ctx := context.Background()
	const secret = "whsec_for_this_test"
	v, err := webhook.NewVerifier(secret)
	require.NoError(t, err)
	rec := &recorder{}
	receiver := httptest.NewServer(webhook.Handler(v, rec.handle))
	t.Cleanup(receiver.Close)

	srv := mockserver.Start(t, mockserver.WithWebhookURL(receiver.URL), mockserver.WithSigningSecret(secret))
	c := newClient(t, srv)
	upsertWorkers(t, c, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"chat"}, Available: taskrouting.Ptr(true)})
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"chat"}})
	require.NoError(t, err)
	_, err = c.Decisions.Accept(ctx, "task_1", "agent_1")
	require.NoError(t, err)
	_, err = c.Decisions.Complete(ctx, "task_1", "agent_1", map[string]any{"resolved": true})
	require.NoError(t, err)

	// With the real clock, WaitForDeliveries returns once every event reached every URL (or
	// was given up); with a ManualClock use srv.Flush after clk.Advance.
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitForDeliveries(waitCtx))
	want := []string{"task.matched task_1", "task.accepted task_1", "task.completed task_1"}
	if diff := cmp.Diff(want, rec.got()); diff != "" {
		t.Errorf("delivered events (-want +got):\n%s", diff)
	}
}
