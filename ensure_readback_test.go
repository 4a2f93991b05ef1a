package taskrouting_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// readBackCase is one Ensure form, brought to where its write fails in a
// way that sends it to read the state back, and where the state it asks
// for holds.
type readBackCase struct {
	name   string
	worker bool // on WorkerClient; otherwise on Client.Decisions
	// before brings the task or the worker to where the write fails.
	before func(t *testing.T, c *taskrouting.Client, w *taskrouting.WorkerClient, srv *mockserver.Server, id string)
	call   func(c *taskrouting.Client, w *taskrouting.WorkerClient, id string, opts ...taskrouting.RequestOption) error
	write  string // the write's path pattern, relative to the base URL
	read   string // the read's path pattern
	// writeErr is what the write fails with; writeStatus its status, 0
	// when its answer was dropped.
	writeErr    error
	writeStatus int
	// readStatus is what the read answers when the state holds (200 when 0).
	readStatus int
	// set is a WithJSONSet the write's schema allows (member, value); no
	// set when member is "".
	member, value string
}

func readBackCases() []readBackCase {
	ctx := context.Background()
	must := func(t *testing.T, _ any, err error) {
		t.Helper()
		require.NoError(t, err)
	}
	drop := func(method, pattern string) func(*testing.T, *mockserver.Server) {
		return func(t *testing.T, srv *mockserver.Server) {
			require.NoError(t, srv.InjectFault(mockserver.Fault{Method: method, Path: pattern, DropAfterCommit: true, Times: 1}))
		}
	}
	return []readBackCase{
		{
			name: "Decisions.EnsureAccepted",
			before: func(t *testing.T, c *taskrouting.Client, _ *taskrouting.WorkerClient, _ *mockserver.Server, id string) {
				ref, err := c.Decisions.Accept(ctx, id, "agent_1")
				must(t, ref, err)
			},
			call: func(c *taskrouting.Client, _ *taskrouting.WorkerClient, id string, opts ...taskrouting.RequestOption) error {
				_, err := c.Decisions.EnsureAccepted(ctx, id, "agent_1", opts...)
				return err
			},
			write: "/tasks/*/accept", read: "/tasks/*", writeErr: taskrouting.ErrInvalidState, writeStatus: 409,
			member: "workerId", value: "agent_1",
		},
		{
			name: "Decisions.EnsureCompleted",
			before: func(t *testing.T, c *taskrouting.Client, _ *taskrouting.WorkerClient, _ *mockserver.Server, id string) {
				ref, err := c.Decisions.Accept(ctx, id, "agent_1")
				must(t, ref, err)
				ref, err = c.Decisions.Complete(ctx, id, "agent_1", nil)
				must(t, ref, err)
			},
			call: func(c *taskrouting.Client, _ *taskrouting.WorkerClient, id string, opts ...taskrouting.RequestOption) error {
				_, err := c.Decisions.EnsureCompleted(ctx, id, "agent_1", nil, opts...)
				return err
			},
			write: "/tasks/*/complete", read: "/tasks/*", writeErr: taskrouting.ErrInvalidState, writeStatus: 409,
			member: "workerId", value: "agent_1",
		},
		{
			name: "Decisions.EnsureRejected",
			before: func(t *testing.T, c *taskrouting.Client, _ *taskrouting.WorkerClient, _ *mockserver.Server, id string) {
				ref, err := c.Decisions.Reject(ctx, id, "agent_1")
				must(t, ref, err)
			},
			call: func(c *taskrouting.Client, _ *taskrouting.WorkerClient, id string, opts ...taskrouting.RequestOption) error {
				_, err := c.Decisions.EnsureRejected(ctx, id, "agent_1", opts...)
				return err
			},
			write: "/tasks/*/reject", read: "/tasks/*", writeErr: taskrouting.ErrInvalidState, writeStatus: 409,
			member: "workerId", value: "agent_1",
		},
		{
			name: "WorkerClient.EnsureAccepted", worker: true,
			before: func(t *testing.T, _ *taskrouting.Client, w *taskrouting.WorkerClient, _ *mockserver.Server, id string) {
				ref, err := w.Accept(ctx, id)
				must(t, ref, err)
			},
			call: func(_ *taskrouting.Client, w *taskrouting.WorkerClient, id string, opts ...taskrouting.RequestOption) error {
				_, err := w.EnsureAccepted(ctx, id, opts...)
				return err
			},
			write: "/portal/tasks/*/accept", read: "/portal/tasks/*", writeErr: taskrouting.ErrInvalidState, writeStatus: 409,
			member: "workerId", value: "agent_1",
		},
		{
			name: "WorkerClient.EnsureCompleted", worker: true,
			before: func(t *testing.T, _ *taskrouting.Client, w *taskrouting.WorkerClient, _ *mockserver.Server, id string) {
				ref, err := w.Accept(ctx, id)
				must(t, ref, err)
				ref, err = w.Complete(ctx, id, nil)
				must(t, ref, err)
			},
			call: func(_ *taskrouting.Client, w *taskrouting.WorkerClient, id string, opts ...taskrouting.RequestOption) error {
				_, err := w.EnsureCompleted(ctx, id, nil, opts...)
				return err
			},
			write: "/portal/tasks/*/complete", read: "/portal/tasks/*", writeErr: taskrouting.ErrInvalidState, writeStatus: 409,
			member: "workerId", value: "agent_1",
		},
		{
			// A repeated reject answers 404 on this plane, which no read
			// settles; a reject whose answer was lost does send the read.
			name: "WorkerClient.EnsureRejected", worker: true,
			before: func(t *testing.T, _ *taskrouting.Client, _ *taskrouting.WorkerClient, srv *mockserver.Server, _ string) {
				drop("POST", "/portal/tasks/*/reject")(t, srv)
			},
			call: func(_ *taskrouting.Client, w *taskrouting.WorkerClient, id string, opts ...taskrouting.RequestOption) error {
				_, err := w.EnsureRejected(ctx, id, opts...)
				return err
			},
			write: "/portal/tasks/*/reject", read: "/portal/tasks/*", writeErr: taskrouting.ErrOutcomeUnknown,
			readStatus: 404, // the worker no longer sees the task: rejected
			member:     "workerId", value: "agent_1",
		},
		{
			name: "WorkerClient.EnsureBreakStarted", worker: true,
			before: func(t *testing.T, _ *taskrouting.Client, w *taskrouting.WorkerClient, _ *mockserver.Server, _ string) {
				b, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
				must(t, b, err)
			},
			call: func(_ *taskrouting.Client, w *taskrouting.WorkerClient, _ string, opts ...taskrouting.RequestOption) error {
				_, err := w.EnsureBreakStarted(ctx, taskrouting.StartBreakParams{Reason: "lunch"}, opts...)
				return err
			},
			write: "/portal/breaks/start", read: "/portal/breaks/today", writeErr: taskrouting.ErrBreakAlreadyOpen, writeStatus: 409,
			member: "reason", value: "coffee",
		},
		{
			name: "WorkerClient.EnsureBreakEnded", worker: true,
			before: func(t *testing.T, _ *taskrouting.Client, w *taskrouting.WorkerClient, srv *mockserver.Server, _ string) {
				b, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: "lunch"})
				must(t, b, err)
				drop("POST", "/portal/breaks/end")(t, srv)
			},
			call: func(_ *taskrouting.Client, w *taskrouting.WorkerClient, _ string, opts ...taskrouting.RequestOption) error {
				_, err := w.EnsureBreakEnded(ctx, opts...)
				return err
			},
			write: "/portal/breaks/end", read: "/portal/breaks/today", writeErr: taskrouting.ErrOutcomeUnknown,
		},
	}
}

// setUpReadBack starts a mock server with a task offered to agent_1 and
// brings it where tc's write fails.
func setUpReadBack(t *testing.T, tc readBackCase) (*mockserver.Server, *taskrouting.Client, *taskrouting.WorkerClient, string) {
	t.Helper()
	srv := mockserver.Start(t)
	c := mockClient(t, srv, taskrouting.WithMaxRetries(0))
	id := offered(t, c, "agent_1", "english")
	var w *taskrouting.WorkerClient
	if tc.worker {
		w = signedInWorker(t, c, srv, "agent_1")
	}
	tc.before(t, c, w, srv, id)
	return srv, c, w, id
}

// lastRequest is the last request recorded with method and a path that
// matches pattern.
func lastRequest(t *testing.T, srv *mockserver.Server, method, pattern string) mockserver.Request {
	t.Helper()
	reqs := srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if ok, err := pathMatch(pattern, reqs[i].Path); err == nil && ok && reqs[i].Method == method {
			return reqs[i]
		}
	}
	t.Fatalf("no %s %s recorded", method, pattern)
	return mockserver.Request{}
}

// TestEnsureReadFailureKeepsTheWritesError: when the read-back fails, the
// Ensure form returns the write's own error (the accept's 409, or the
// ErrOutcomeUnknown of an answer lost), never the read's; the read's
// failure is on the *ReadBackError, and does not answer errors.Is.
func TestEnsureReadFailureKeepsTheWritesError(t *testing.T) {
	for _, tc := range readBackCases() {
		t.Run(tc.name, func(t *testing.T) {
			srv, c, w, id := setUpReadBack(t, tc)
			require.NoError(t, srv.InjectFault(mockserver.Fault{Method: "GET", Path: tc.read, Status: 503}))
			err := tc.call(c, w, id)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.writeErr)
			assert.NotErrorIs(t, err, taskrouting.ErrServer, "the read's 503 must not answer for the write")

			var apiErr *taskrouting.APIError
			if tc.writeStatus != 0 {
				if assert.ErrorAs(t, err, &apiErr) {
					assert.Equal(t, tc.writeStatus, apiErr.StatusCode)
					ok, _ := pathMatch(tc.write, apiErr.Path)
					assert.True(t, ok, "the *APIError found is the read's: %s %s", apiErr.Method, apiErr.Path)
				}
			} else {
				assert.False(t, errors.As(err, &apiErr), "an *APIError found in %v: the write had no answer", err)
			}

			var rb *taskrouting.ReadBackError
			if assert.ErrorAs(t, err, &rb) {
				var readErr *taskrouting.APIError
				if assert.ErrorAs(t, rb.Read, &readErr) {
					assert.Equal(t, 503, readErr.StatusCode)
					assert.Equal(t, "GET", readErr.Method)
				}
				assert.True(t, strings.Contains(err.Error(), rb.Err.Error()) && strings.Contains(err.Error(), rb.Read.Error()),
					"the message names both failures: %v", err)
			}
		})
	}
}

// TestEnsureReadTakesNoWriteOnlyOptions: WithIdempotencyKey, WithJSONSet
// and WithResponseInto belong to the write: the read sends no body and no
// key, its answer does not fill the Response (the write's does), and a
// set the read would refuse does not stop it.
func TestEnsureReadTakesNoWriteOnlyOptions(t *testing.T) {
	for _, tc := range readBackCases() {
		t.Run(tc.name, func(t *testing.T) {
			srv, c, w, id := setUpReadBack(t, tc)
			var resp taskrouting.Response
			opts := []taskrouting.RequestOption{taskrouting.WithResponseInto(&resp)}
			if tc.member != "" {
				opts = append(opts, taskrouting.WithJSONSet(tc.member, tc.value))
			}
			if !tc.worker {
				opts = append(opts, taskrouting.WithIdempotencyKey("ensure-"+tc.name))
			}
			require.NoError(t, tc.call(c, w, id, opts...))
			assert.Equal(t, tc.writeStatus, resp.StatusCode, "the Response is the write's")

			write := lastRequest(t, srv, "POST", tc.write)
			if tc.member != "" {
				assert.Contains(t, string(write.Body), tc.value, "the write carries the set")
			}
			if !tc.worker {
				assert.Equal(t, "ensure-"+tc.name, write.Header.Get("Idempotency-Key"), "the write carries the key")
			}
			read := lastRequest(t, srv, "GET", tc.read)
			assert.Empty(t, read.Body, "the read sends no body")
			assert.Empty(t, read.Header.Get("Idempotency-Key"), "the read sends no key")
			wantRead := tc.readStatus
			if wantRead == 0 {
				wantRead = 200
			}
			assert.Equal(t, wantRead, read.StatusCode)
		})
	}
}
