package taskrouting_test

import (
	"context"
	"errors"
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// ensureCase is one worker-plane write whose answer the mock server drops
// after applying it.
type ensureCase struct {
	name   string
	path   string                                                                  // the write's path pattern, for the fault
	before func(t *testing.T, w *taskrouting.WorkerClient, id string)              // brings the task or worker to where the write applies
	plain  func(ctx context.Context, w *taskrouting.WorkerClient, id string) error // the write as it is
	ensure func(ctx context.Context, w *taskrouting.WorkerClient, id string) error // its Ensure form
	check  func(t *testing.T, c *taskrouting.Client, w *taskrouting.WorkerClient, id string)
}

func workerEnsureCases() []ensureCase {
	ctx := context.Background()
	accept := func(t *testing.T, w *taskrouting.WorkerClient, id string) {
		_, err := w.Accept(ctx, id)
		require.NoError(t, err)
	}
	taskIs := func(want taskrouting.TaskStatus) func(*testing.T, *taskrouting.Client, *taskrouting.WorkerClient, string) {
		return func(t *testing.T, c *taskrouting.Client, _ *taskrouting.WorkerClient, id string) {
			task, err := c.Tasks.Get(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, want, task.Status)
		}
	}
	onBreak := func(want bool) func(*testing.T, *taskrouting.Client, *taskrouting.WorkerClient, string) {
		return func(t *testing.T, _ *taskrouting.Client, w *taskrouting.WorkerClient, _ string) {
			me, err := w.Me(ctx)
			require.NoError(t, err)
			assert.Equal(t, want, me.OnBreak)
		}
	}
	return []ensureCase{
		{
			name: "complete", path: "/portal/tasks/*/complete", before: accept,
			plain: func(ctx context.Context, w *taskrouting.WorkerClient, id string) error {
				_, err := w.Complete(ctx, id, map[string]any{"ok": true})
				return err
			},
			ensure: func(ctx context.Context, w *taskrouting.WorkerClient, id string) error {
				ref, err := w.EnsureCompleted(ctx, id, map[string]any{"ok": true})
				if err == nil && (ref.ID != id || ref.Status != taskrouting.TaskStatusCompleted) {
					return errors.New("wrong ref " + ref.ID + " " + string(ref.Status))
				}
				return err
			},
			check: taskIs(taskrouting.TaskStatusCompleted),
		},
		{
			name: "reject", path: "/portal/tasks/*/reject", before: func(*testing.T, *taskrouting.WorkerClient, string) {},
			plain: func(ctx context.Context, w *taskrouting.WorkerClient, id string) error {
				_, err := w.Reject(ctx, id)
				return err
			},
			ensure: func(ctx context.Context, w *taskrouting.WorkerClient, id string) error {
				ref, err := w.EnsureRejected(ctx, id)
				if err == nil && (ref.ID != id || ref.Status != taskrouting.TaskStatusQueued) {
					return errors.New("wrong ref " + ref.ID + " " + string(ref.Status))
				}
				return err
			},
			check: taskIs(taskrouting.TaskStatusQueued), // the only worker rejected it
		},
		{
			name: "start break", path: "/portal/breaks/start", before: func(*testing.T, *taskrouting.WorkerClient, string) {},
			plain: func(ctx context.Context, w *taskrouting.WorkerClient, _ string) error {
				_, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
				return err
			},
			ensure: func(ctx context.Context, w *taskrouting.WorkerClient, _ string) error {
				b, err := w.EnsureBreakStarted(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
				if err == nil && (!b.OnBreak || b.Since.IsZero() || b.WorkerID != "agent_1") {
					return errors.New("wrong break state")
				}
				return err
			},
			check: onBreak(true),
		},
		{
			name: "end break", path: "/portal/breaks/end",
			before: func(t *testing.T, w *taskrouting.WorkerClient, _ string) {
				_, err := w.StartBreak(ctx, taskrouting.StartBreakParams{})
				require.NoError(t, err)
			},
			plain: func(ctx context.Context, w *taskrouting.WorkerClient, _ string) error {
				_, err := w.EndBreak(ctx)
				return err
			},
			ensure: func(ctx context.Context, w *taskrouting.WorkerClient, _ string) error {
				b, err := w.EnsureBreakEnded(ctx)
				if err == nil && (b == nil || b.OnBreak || b.EndedAt.IsZero()) {
					return errors.New("wrong break state")
				}
				return err
			},
			check: onBreak(false),
		},
	}
}

// TestWorkerWritesAnswerDroppedAfterCommit: the mock server applies a
// worker-plane write and drops its answer. The plain call, with retries
// on, is not repeated blindly: its error is ErrOutcomeUnknown (with the
// transport's *url.Error), never the 409 a repeat would answer; the Ensure
// form reads the state back and succeeds. Either way the write was applied
// once.
func TestWorkerWritesAnswerDroppedAfterCommit(t *testing.T) {
	for _, tt := range workerEnsureCases() {
		for _, form := range []string{"plain", "ensure"} {
			t.Run(tt.name+" "+form, func(t *testing.T) {
				ctx := context.Background()
				srv := mockserver.Start(t)
				c := mockClient(t, srv)
				id := offered(t, c, "agent_1", "english")
				w := signedInWorker(t, c, srv, "agent_1")
				tt.before(t, w, id)
				// A client with retries on, as a user's would be.
				wr, err := taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithRetryWait(0, 0))
				require.NoError(t, err)
				session := w.Session()
				require.NoError(t, wr.Resume(session.WorkerID, session.Token(), session.ExpiresAt))
				require.NoError(t, srv.InjectFault(mockserver.Fault{Method: "POST", Path: tt.path, DropAfterCommit: true, Times: 1}))

				if form == "plain" {
					err = tt.plain(ctx, wr, id)
					require.ErrorIs(t, err, taskrouting.ErrOutcomeUnknown)
					var urlErr *url.Error
					assert.ErrorAs(t, err, &urlErr)
					assert.NotErrorIs(t, err, taskrouting.ErrConflict, "a blind retry's 409")
				} else {
					require.NoError(t, tt.ensure(ctx, wr, id))
				}
				tt.check(t, c, w, id)
				sent := 0
				for _, r := range srv.Requests() {
					if ok, _ := pathMatch(tt.path, r.Path); ok && r.Method == "POST" {
						sent++
					}
				}
				assert.Equal(t, 1, sent, "the write was sent once")
			})
		}
	}
}

// TestWorkerEnsureAfterARepeat: the caller repeats a write that went
// through (after an ErrOutcomeUnknown, or for a redelivered event): the
// plain form answers its 409, the Ensure form succeeds.
func TestWorkerEnsureAfterARepeat(t *testing.T) {
	for _, tt := range workerEnsureCases() {
		switch tt.name {
		case "end break":
			continue // a repeated end answers 204, no 409
		case "reject":
			continue // a repeated reject answers 404: the task is no longer the worker's to see
		}
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv := mockserver.Start(t)
			c := mockClient(t, srv)
			id := offered(t, c, "agent_1", "english")
			w := signedInWorker(t, c, srv, "agent_1")
			tt.before(t, w, id)
			require.NoError(t, tt.plain(ctx, w, id))
			assert.ErrorIs(t, tt.plain(ctx, w, id), taskrouting.ErrConflict)
			require.NoError(t, tt.ensure(ctx, w, id))
			tt.check(t, c, w, id)
		})
	}
}

// TestDecisionsEnsure: on the workspace plane a lost answer is settled by
// the key (a retry replays it), so the Ensure forms matter for a repeat and
// for a call without retries; both come back as success.
func TestDecisionsEnsure(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		path   string
		accept bool
		plain  func(c *taskrouting.Client, id string, opts ...taskrouting.RequestOption) (*taskrouting.TaskRef, error)
		ensure func(c *taskrouting.Client, id string, opts ...taskrouting.RequestOption) (*taskrouting.TaskRef, error)
		want   taskrouting.TaskStatus
	}{
		{"complete", "/tasks/*/complete", true,
			func(c *taskrouting.Client, id string, opts ...taskrouting.RequestOption) (*taskrouting.TaskRef, error) {
				return c.Decisions.Complete(ctx, id, "agent_1", nil, opts...)
			},
			func(c *taskrouting.Client, id string, opts ...taskrouting.RequestOption) (*taskrouting.TaskRef, error) {
				return c.Decisions.EnsureCompleted(ctx, id, "agent_1", nil, opts...)
			}, taskrouting.TaskStatusCompleted},
		{"reject", "/tasks/*/reject", false,
			func(c *taskrouting.Client, id string, opts ...taskrouting.RequestOption) (*taskrouting.TaskRef, error) {
				return c.Decisions.Reject(ctx, id, "agent_1", opts...)
			},
			func(c *taskrouting.Client, id string, opts ...taskrouting.RequestOption) (*taskrouting.TaskRef, error) {
				return c.Decisions.EnsureRejected(ctx, id, "agent_1", opts...)
			}, taskrouting.TaskStatusQueued},
	}
	for _, tt := range tests {
		setup := func(t *testing.T) (*mockserver.Server, *taskrouting.Client, string) {
			srv := mockserver.Start(t)
			c := mockClient(t, srv)
			id := offered(t, c, "agent_1", "english")
			if tt.accept {
				_, err := c.Decisions.Accept(ctx, id, "agent_1")
				require.NoError(t, err)
			}
			return srv, c, id
		}
		t.Run(tt.name+" repeated", func(t *testing.T) {
			_, c, id := setup(t)
			_, err := tt.plain(c, id)
			require.NoError(t, err)
			_, err = tt.plain(c, id)
			require.ErrorIs(t, err, taskrouting.ErrInvalidState)
			got, err := tt.ensure(c, id)
			require.NoError(t, err)
			if diff := cmp.Diff(&taskrouting.TaskRef{ID: id, Status: tt.want}, got); diff != "" {
				t.Errorf("ref (-want +got):\n%s", diff)
			}
		})
		t.Run(tt.name+" answer dropped, no retries", func(t *testing.T) {
			srv, c, id := setup(t)
			require.NoError(t, srv.InjectFault(mockserver.Fault{Method: "POST", Path: tt.path, DropAfterCommit: true, Times: 1}))
			got, err := tt.ensure(c, id, taskrouting.WithMaxRetries(0))
			require.NoError(t, err)
			if diff := cmp.Diff(&taskrouting.TaskRef{ID: id, Status: tt.want}, got); diff != "" {
				t.Errorf("ref (-want +got):\n%s", diff)
			}
		})
		t.Run(tt.name+" not done stays an error", func(t *testing.T) {
			_, c, id := setup(t)
			_, err := tt.ensure(c, id+"_other")
			assert.ErrorIs(t, err, taskrouting.ErrNotFound)
		})
	}
}

// pathMatch matches a recorded request path, with or without the API's
// base path, against a path.Match pattern.
func pathMatch(pattern, p string) (bool, error) {
	if ok, err := path.Match(pattern, p); ok || err != nil {
		return ok, err
	}
	if i := strings.Index(p[1:], "/"); i >= 0 {
		return path.Match(pattern, p[i+1:])
	}
	return false, nil
}
