package mockserver_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
	"github.com/taskrouting/taskrouting-go/webhook"
)

// TestAttachedReceiverCallsBack: a receiver attached to a running server accepts each
// offered task through the SDK client from inside the webhook; after detach, it gets nothing.
func TestAttachedReceiverCallsBack(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	srv := mockserver.Start(t)
	c := newClient(t, srv, srv.APIKey())
	v, err := webhook.NewVerifier(srv.SigningSecret())
	require.NoError(t, err)
	var mu sync.Mutex
	var got []string
	hookURL, detach, err := srv.AttachWebhookHandler(webhook.Handler(v, func(ctx context.Context, ev webhook.Event) error {
		mu.Lock()
		got = append(got, string(ev.Kind)+" "+ev.TaskID)
		mu.Unlock()
		if ev.Kind != webhook.KindTaskMatched {
			return nil
		}
		_, err := c.Decisions.Accept(ctx, ev.TaskID, ev.WorkerID)
		return err
	}))
	require.NoError(t, err)

	_, err = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"}})
	require.NoError(t, err)
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitForDeliveries(waitCtx))
	task, err := c.Tasks.Get(ctx, "task_1")
	require.NoError(t, err)
	assert.Equal(t, taskrouting.TaskStatusAccepted, task.Status, "accepted from inside the webhook")
	mu.Lock()
	want := []string{"task.matched task_1", "task.accepted task_1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events the receiver got (-want +got):\n%s", diff)
	}
	mu.Unlock()

	detach()
	_, err = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_2", Tags: []string{"english"}})
	require.NoError(t, err)
	require.NoError(t, srv.WaitForDeliveries(waitCtx))
	for _, d := range srv.Deliveries() {
		assert.NotEqual(t, "task_2", eventTask(srv, d.EventID), "delivered to %s after detach", hookURL)
	}
	assert.Len(t, srv.Deliveries(), 2, "only the two events before detach were attempted")
}

func eventTask(srv *mockserver.Server, eventID string) string {
	for _, ev := range srv.Events() {
		if ev.ID == eventID {
			return ev.TaskID
		}
	}
	return ""
}

// A receiver that acts on the API needs the server to exist first: attach it afterwards.
// Here it accepts every offer as soon as the task is matched.
func ExampleServer_AttachWebhookHandler() {
	srv, err := mockserver.New()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		panic(err)
	}
	v, err := webhook.NewVerifier(srv.SigningSecret())
	if err != nil {
		panic(err)
	}
	_, detach, err := srv.AttachWebhookHandler(webhook.Handler(v, func(ctx context.Context, ev webhook.Event) error {
		if ev.Kind != webhook.KindTaskMatched {
			return nil
		}
		_, err := c.Decisions.Accept(ctx, ev.TaskID, ev.WorkerID)
		return err
	}))
	if err != nil {
		panic(err)
	}
	defer detach()

	_, _ = c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}, Available: taskrouting.Ptr(true)})
	_, _ = c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"}})
	_ = srv.WaitForDeliveries(ctx)
	task, _ := c.Tasks.Get(ctx, "task_1")
	fmt.Println(task.Status, task.WorkerID)
	// Output: accepted agent_1
}

// TestAttachWebhookURLRefusesARelativeURL: a URL deliveries could not reach is refused at
// once, as WithWebhookURL refuses it, and nothing is attached.
func TestAttachWebhookURLRefusesARelativeURL(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	for _, bad := range []string{"/hooks", "ftp://example.test/hooks", "http://"} {
		detach, err := srv.AttachWebhookURL(bad)
		assert.Error(t, err, bad)
		assert.Nil(t, detach, bad)
	}
	c := newClient(t, srv, srv.APIKey())
	_, err := c.Workers.Upsert(t.Context(), taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}, Available: taskrouting.Ptr(true)})
	require.NoError(t, err)
	_, err = c.Tasks.Create(t.Context(), taskrouting.CreateTaskParams{ID: "task_1", Tags: []string{"english"}})
	require.NoError(t, err)
	require.NoError(t, srv.WaitForDeliveries(t.Context()))
	assert.Empty(t, srv.Deliveries(), "no endpoint was attached")
}
