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
