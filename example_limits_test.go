package taskrouting_test

import (
	"context"
	"errors"
	"fmt"

	taskrouting "github.com/taskrouting/taskrouting-go"
)

// The client holds requests to the platform's limits and refuses one past
// them before sending it.
func ExampleUpsertWorkerParams_limits() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()

	_, err := c.Workers.Upsert(ctx, taskrouting.UpsertWorkerParams{
		Skills: []taskrouting.SkillAssignment{{SkillID: "plumbing", Level: 6}},
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, taskrouting.ErrInvalidParams), "requests sent:", len(sb.srv.Requests()))
	// Output:
	// taskrouting: invalid parameter UpsertWorkerParams.Skills[0].Level: must be between 1 and 5
	// true requests sent: 0
}

// WithoutLimitChecks leaves a limit to the server: the value is sent, and
// the server's refusal is an *APIError. A platform that has raised the
// limit would accept it.
func ExampleWithoutLimitChecks() {
	c, sb := newSandbox()
	defer sb.Close()
	ctx := context.Background()
	p := taskrouting.UpsertWorkerParams{ID: "agent_7", Skills: []taskrouting.SkillAssignment{{SkillID: "plumbing", Level: 6}}}

	_, err := c.Workers.Upsert(ctx, p)
	var pe *taskrouting.ParamError
	fmt.Println(errors.As(err, &pe) && pe.Limit, "requests sent:", len(sb.srv.Requests()))

	_, err = c.Workers.Upsert(ctx, p, taskrouting.WithoutLimitChecks())
	var apiErr *taskrouting.APIError
	fmt.Println(errors.As(err, &apiErr), apiErr.StatusCode, "requests sent:", len(sb.srv.Requests()))
	// Output:
	// true requests sent: 0
	// true 400 requests sent: 1
}
