package taskrouting

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const parkedTaskWire = `{"id":"task_8fk2","tags":["billing"],"priority":90,"status":"parked","workerId":null,
	"createdAt":1763700000000,"escalationLevel":3}`

// taskClocksCases are the task-clock calls on the wire: the request each sends and how it
// decodes the platform's answer. Every request and answer is also held to api/openapi.json.
var taskClocksCases = []struct {
	name       string
	op         string
	call       func(ctx context.Context, c *Client) (any, error)
	wantMethod string
	wantPath   string
	wantBody   string // "" for none
	status     int
	answer     string
	want       any
}{
	{"fail sends the worker and the reason", "tasks.fail", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Fail(ctx, "task_8fk2", FailTaskParams{WorkerID: "agent_1", Reason: "customer gone"})
	}, "POST", "/tasks/task_8fk2/fail", `{"workerId":"agent_1","reason":"customer gone"}`, 200,
		`{"id":"task_8fk2","status":"failed"}`, &TaskRef{ID: "task_8fk2", Status: TaskStatusFailed}},
	{"fail without a reason leaves it out", "tasks.fail", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Fail(ctx, "task 1", FailTaskParams{WorkerID: "agent_1"})
	}, "POST", "/tasks/task%201/fail", `{"workerId":"agent_1"}`, 200,
		`{"id":"task 1","status":"failed"}`, &TaskRef{ID: "task 1", Status: TaskStatusFailed}},
	{"ack", "tasks.ack", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Ack(ctx, "task_8fk2", "agent_1")
	}, "POST", "/tasks/task_8fk2/ack", `{"workerId":"agent_1"}`, 200,
		`{"id":"task_8fk2","status":"accepted"}`, &TaskRef{ID: "task_8fk2", Status: TaskStatusAccepted}},
	{"escalate without a worker sends an empty body", "tasks.escalate", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Escalate(ctx, "task_8fk2", EscalateTaskParams{})
	}, "POST", "/tasks/task_8fk2/escalate", `{}`, 200,
		`{"id":"task_8fk2","escalated":true,"parked":false,"escalationLevel":1}`,
		&EscalationStep{ID: "task_8fk2", Escalated: true, Level: 1}},
	{"escalate at the end of the ladder parks", "tasks.escalate", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Escalate(ctx, "task_8fk2", EscalateTaskParams{WorkerID: "agent_1"})
	}, "POST", "/tasks/task_8fk2/escalate", `{"workerId":"agent_1"}`, 200,
		`{"id":"task_8fk2","escalated":false,"parked":true,"escalationLevel":3}`,
		&EscalationStep{ID: "task_8fk2", Parked: true, Level: 3}},
	{"unpark without resets sends an empty body", "tasks.unpark", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Unpark(ctx, "task_8fk2", UnparkTaskParams{})
	}, "POST", "/tasks/task_8fk2/unpark", `{}`, 200,
		`{"id":"task_8fk2","status":"queued"}`, &TaskRef{ID: "task_8fk2", Status: TaskStatusQueued}},
	{"unpark sends set flags, false included", "tasks.unpark", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Unpark(ctx, "task_8fk2", UnparkTaskParams{ResetEscalation: Ptr(true), ResetSLA: Ptr(true), ResetSchedule: Ptr(false)})
	}, "POST", "/tasks/task_8fk2/unpark", `{"resetEscalation":true,"resetSla":true,"resetSchedule":false}`, 200,
		`{"id":"task_8fk2","status":"queued"}`, &TaskRef{ID: "task_8fk2", Status: TaskStatusQueued}},
	{"parked", "tasks.parked", func(ctx context.Context, c *Client) (any, error) {
		s, err := c.Tasks.Parked(ctx)
		if err != nil {
			return nil, err
		}
		return []any{s.Count, s.Tasks[0].ID, s.Tasks[0].Status, s.Tasks[0].EscalationLevel, s.Tasks[0].CreatedAt.Equal(t0)}, nil
	}, "GET", "/tasks/parked", "", 200, `{"tasks":[` + parkedTaskWire + `],"count":1}`,
		[]any{1, "task_8fk2", TaskStatusParked, 3, true}},
	{"scheduled", "tasks.scheduled", func(ctx context.Context, c *Client) (any, error) {
		return c.Tasks.Scheduled(ctx)
	}, "GET", "/tasks/scheduled", "", 200, `{"tasks":[],"count":0}`, &TaskSet{Tasks: []Task{}, Count: 0}},
}

func TestTaskClocksWire(t *testing.T) {
	for _, tc := range taskClocksCases {
		runWireCase(t, wireCase{tc.name, tc.op, tc.call, tc.wantMethod, tc.wantPath, "", tc.wantBody, tc.status, tc.answer, tc.want})
	}
}

// ignoreRaw drops the Raw bytes of decoded tasks, which the cases do not spell out.
func ignoreRaw(v any) any {
	if s, ok := v.(*TaskSet); ok {
		for i := range s.Tasks {
			s.Tasks[i].Raw = nil
		}
	}
	return v
}

// TestTaskClocksRefusedBeforeSending checks that input the platform would refuse is a
// *ParamError and nothing reaches the server.
func TestTaskClocksRefusedBeforeSending(t *testing.T) {
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *Client) error
		param string
	}{
		{"fail without a worker", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Fail(ctx, "t1", FailTaskParams{})
			return err
		}, "FailTaskParams.WorkerID"},
		{"fail without a task", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Fail(ctx, "", FailTaskParams{WorkerID: "w1"})
			return err
		}, "taskID"},
		{"ack without a worker", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Ack(ctx, "t1", "")
			return err
		}, "workerID"},
		{"escalate a dot segment", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Escalate(ctx, "..", EscalateTaskParams{})
			return err
		}, "taskID"},
		{"escalate with a dot-segment worker id", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Escalate(ctx, "t1", EscalateTaskParams{WorkerID: ".."})
			return err
		}, "EscalateTaskParams.WorkerID"},
		{"unpark without a task", func(ctx context.Context, c *Client) error {
			_, err := c.Tasks.Unpark(ctx, "", UnparkTaskParams{})
			return err
		}, "taskID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := serveOnce(t, 200, nil, `{}`)
			c := newTestClient(t, srv.URL+"/v1", WithMaxRetries(0))
			err := tc.call(context.Background(), c)
			var pe *ParamError
			require.True(t, errors.As(err, &pe), "%v", err)
			assert.Equal(t, tc.param, pe.Param)
			assert.Empty(t, rec.all(), "nothing is sent")
		})
	}
}
