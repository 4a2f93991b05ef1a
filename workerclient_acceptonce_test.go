package taskrouting_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// signedInWorker gives workerID a PIN and signs it in on the mock's worker plane.
func signedInWorker(t *testing.T, c *taskrouting.Client, srv *mockserver.Server, workerID string) *taskrouting.WorkerClient {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Workers.SetIdentity(ctx, workerID, taskrouting.SetIdentityParams{Label: "desk", PIN: taskrouting.NewSecret("4921")}); err != nil {
		t.Fatal(err)
	}
	w, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Login(ctx, taskrouting.WorkerLoginParams{WorkspaceID: srv.WorkspaceID(), WorkerID: workerID, PIN: taskrouting.NewSecret("4921")}); err != nil {
		t.Fatal(err)
	}
	return w
}

// On the worker plane a second accept of the same offer is the same 409
// as on the workspace plane; EnsureAccepted counts it as done while the
// task is still the worker's, and passes on every other answer.
func TestWorkerEnsureAccepted(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		before  func(t *testing.T, c *taskrouting.Client, w *taskrouting.WorkerClient, id string)
		want    *taskrouting.TaskRef
		wantErr error
	}{
		{
			name:   "first accept",
			before: func(*testing.T, *taskrouting.Client, *taskrouting.WorkerClient, string) {},
			want:   &taskrouting.TaskRef{Status: taskrouting.TaskStatusAccepted},
		},
		{
			name: "accepted already",
			before: func(t *testing.T, _ *taskrouting.Client, w *taskrouting.WorkerClient, id string) {
				if _, err := w.Accept(ctx, id); err != nil {
					t.Fatal(err)
				}
				if _, err := w.Accept(ctx, id); !errors.Is(err, taskrouting.ErrInvalidState) {
					t.Fatalf("a plain second Accept: %v, want invalid_state", err)
				}
			},
			want: &taskrouting.TaskRef{Status: taskrouting.TaskStatusAccepted},
		},
		{
			name: "completed since",
			before: func(t *testing.T, _ *taskrouting.Client, w *taskrouting.WorkerClient, id string) {
				if _, err := w.Accept(ctx, id); err != nil {
					t.Fatal(err)
				}
				if _, err := w.Complete(ctx, id, nil); err != nil {
					t.Fatal(err)
				}
			},
			want: &taskrouting.TaskRef{Status: taskrouting.TaskStatusCompleted},
		},
		{
			name: "cancelled while offered",
			before: func(t *testing.T, c *taskrouting.Client, _ *taskrouting.WorkerClient, id string) {
				if err := c.Tasks.Cancel(ctx, id); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: taskrouting.ErrNotFound, // this plane shows a worker only its own tasks
		},
		{
			name: "failed since",
			before: func(t *testing.T, c *taskrouting.Client, w *taskrouting.WorkerClient, id string) {
				if _, err := w.Accept(ctx, id); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Tasks.Fail(ctx, id, taskrouting.FailTaskParams{WorkerID: "agent_1"}); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: taskrouting.ErrInvalidState,
		},
		{
			name: "another worker's now",
			before: func(t *testing.T, c *taskrouting.Client, _ *taskrouting.WorkerClient, id string) {
				if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_2", Tags: []string{"english"}, Available: taskrouting.Ptr(true)}); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Tasks.Assign(ctx, id, taskrouting.AssignTaskParams{WorkerID: "agent_2"}); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: taskrouting.ErrNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mockserver.Start(t)
			c := mockClient(t, srv)
			id := offered(t, c, "agent_1", "english")
			w := signedInWorker(t, c, srv, "agent_1")
			tt.before(t, c, w, id)
			got, err := w.EnsureAccepted(ctx, id)
			if tt.wantErr != nil {
				var apiErr *taskrouting.APIError
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &apiErr) || apiErr.Path != "/portal/tasks/"+id+"/accept" {
					t.Fatalf("EnsureAccepted: %v, want the accept's %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.ID = id
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ref (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWorkerEnsureAcceptedSignedOut(t *testing.T) {
	w, err := taskrouting.NewWorkerClient("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.EnsureAccepted(context.Background(), "task_1"); !errors.Is(err, taskrouting.ErrNotSignedIn) {
		t.Errorf("signed out: %v, want ErrNotSignedIn", err)
	}
}
