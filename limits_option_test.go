package taskrouting_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// limitCase is a call with one value over a limit of today's platform.
type limitCase struct {
	name  string
	param string // the ParamError's Param without the option
	call  func(ctx context.Context, c *taskrouting.Client, w *taskrouting.WorkerClient, opts ...taskrouting.RequestOption) error
}

func limitCases() []limitCase {
	long := func(n int) string { return strings.Repeat("x", n) }
	return []limitCase{
		{"tag over 64 characters", "CreateTaskParams.Tags[0]", func(ctx context.Context, c *taskrouting.Client, _ *taskrouting.WorkerClient, opts ...taskrouting.RequestOption) error {
			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{long(65)}}, opts...)
			return err
		}},
		{"worker with a tag over 64 characters", "UpsertWorkerParams.Tags[0]", func(ctx context.Context, c *taskrouting.Client, _ *taskrouting.WorkerClient, opts ...taskrouting.RequestOption) error {
			_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_9", Tags: []string{long(65)}}, opts...)
			return err
		}},
		{"33 tags", "CreateTaskParams.Tags", func(ctx context.Context, c *taskrouting.Client, _ *taskrouting.WorkerClient, opts ...taskrouting.RequestOption) error {
			tags := make([]string, 33)
			for i := range tags {
				tags[i] = "tag" + strconv.Itoa(i)
			}
			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: tags}, opts...)
			return err
		}},
		{"respond-within over 24 hours", "CreateTaskParams.Escalation.RespondWithin", func(ctx context.Context, c *taskrouting.Client, _ *taskrouting.WorkerClient, opts ...taskrouting.RequestOption) error {
			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"},
				Escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: 48 * time.Hour})}, opts...)
			return err
		}},
		{"an on-no-response value today's platform lacks", "CreateTaskParams.Escalation.OnNoResponse", func(ctx context.Context, c *taskrouting.Client, _ *taskrouting.WorkerClient, opts ...taskrouting.RequestOption) error {
			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"english"},
				Escalation: taskrouting.Some(taskrouting.Escalation{RespondWithin: time.Minute, OnNoResponse: "escalate"})}, opts...)
			return err
		}},
		{"break reason over 100 characters", "StartBreakParams.Reason", func(ctx context.Context, _ *taskrouting.Client, w *taskrouting.WorkerClient, opts ...taskrouting.RequestOption) error {
			_, err := w.StartBreak(ctx, taskrouting.StartBreakParams{Reason: long(101)}, opts...)
			return err
		}},
	}
}

// TestWithoutLimitChecks: a value over a limit of today's platform is a
// *ParamError with Limit set and nothing is sent; with WithoutLimitChecks,
// at the client or on the call, it reaches the server, whose 400 comes back
// as an *APIError.
func TestWithoutLimitChecks(t *testing.T) {
	for _, tc := range limitCases() {
		for _, where := range []string{"checked", "client", "call"} {
			t.Run(tc.name+" "+where, func(t *testing.T) {
				ctx := context.Background()
				srv := mockserver.Start(t)
				var clientOpts []taskrouting.RequestOption
				if where == "client" {
					clientOpts = append(clientOpts, taskrouting.WithoutLimitChecks())
				}
				c := mockClient(t, srv, clientOpts...)
				if _, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{ID: "agent_1", Tags: []string{"english"}}); err != nil {
					t.Fatal(err)
				}
				w := signedInWorker(t, c, srv, "agent_1")
				if where == "client" {
					session := w.Session()
					var err error
					w, err = taskrouting.NewWorkerClient(srv.URL(), taskrouting.WithoutLimitChecks(), taskrouting.WithMaxRetries(0))
					require.NoError(t, err)
					require.NoError(t, w.Resume(session.WorkerID, session.Token(), session.ExpiresAt))
				}
				var callOpts []taskrouting.RequestOption
				if where == "call" {
					callOpts = append(callOpts, taskrouting.WithoutLimitChecks())
				}
				before := len(srv.Requests())
				err := tc.call(ctx, c, w, callOpts...)
				sent := len(srv.Requests()) - before

				if where == "checked" {
					var pe *taskrouting.ParamError
					require.ErrorAs(t, err, &pe)
					assert.Equal(t, tc.param, pe.Param)
					assert.True(t, pe.Limit, "a limit, not a mistake")
					assert.Zero(t, sent, "nothing sent")
					return
				}
				var apiErr *taskrouting.APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, 400, apiErr.StatusCode)
				assert.ErrorIs(t, err, taskrouting.ErrValidation)
				assert.Equal(t, 1, sent, "the server decided")
			})
		}
	}
}

// TestWithoutLimitChecksKeepsMistakes: an empty id or an empty required
// list is refused before sending with or without the option, also when a
// value over a limit comes first.
func TestWithoutLimitChecksKeepsMistakes(t *testing.T) {
	ctx := context.Background()
	srv := mockserver.Start(t)
	c := mockClient(t, srv, taskrouting.WithoutLimitChecks())
	tests := []struct {
		name  string
		param string
		call  func() error
	}{
		{"empty task id", "taskID", func() error {
			_, err := c.Decisions.Complete(ctx, "", "agent_1", nil)
			return err
		}},
		{"empty tags", "CreateTaskParams.Tags", func() error {
			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{}, taskrouting.WithoutLimitChecks())
			return err
		}},
		{"empty skill id behind an id over its limit", "CreateTaskParams.RequiredSkills[0].SkillID", func() error {
			_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{ID: strings.Repeat("x", 129), Tags: []string{"english"},
				RequiredSkills: []taskrouting.RequiredSkill{{SkillID: "", MinLevel: 1}}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Requests())
			err := tt.call()
			var pe *taskrouting.ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.param, pe.Param)
			assert.False(t, pe.Limit)
			assert.True(t, errors.Is(err, taskrouting.ErrInvalidParams))
			assert.Equal(t, before, len(srv.Requests()), "nothing sent")
		})
	}
}
