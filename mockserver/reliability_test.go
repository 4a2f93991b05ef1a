package mockserver

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/internal/match"
)

// TestNoDuplicateNoLoss creates tasks through the SDK client while the server drops 30% of
// answers after committing, answers 10% with 503 + Retry-After and resets 5% of connections
// before doing anything: exactly as many tasks exist afterwards as were created. The client's
// idempotency keys are what make this hold. TASKROUTING_LONG=1 runs the 10,000 of docs/reliability.md section 1.
func TestNoDuplicateNoLoss(t *testing.T) {
	t.Parallel()
	total := 300
	if os.Getenv("TASKROUTING_LONG") == "1" {
		total = 10_000
	}
	const goroutines = 32
	srv := Start(t)
	for _, f := range []Fault{
		{Method: "POST", Path: "/tasks", DropAfterCommit: true, Fraction: 0.30, Seed: 1},
		{Method: "POST", Path: "/tasks", Status: 503, RetryAfter: time.Second, Fraction: 0.10, Seed: 2},
		{Method: "POST", Path: "/tasks", DropBeforeCommit: true, Fraction: 0.05, Seed: 3},
	} {
		require.NoError(t, srv.InjectFault(f))
	}
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(), taskrouting.WithMaxRetries(20),
		taskrouting.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	work := make(chan int)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"x"}})
				assert.NoError(t, err)
			}
		}()
	}
	for i := range total {
		work <- i
	}
	close(work)
	wg.Wait()

	ws := srv.workspaces[srv.APIKey()]
	ws.mu.Lock()
	page, err := ws.engine.Tasks(match.TaskQuery{Status: match.FilterAll, Limit: total + 1})
	ws.mu.Unlock()
	require.NoError(t, err)
	assert.Len(t, page.Tasks, total, "no task lost, none created twice")

	var dropped, refused int
	for _, r := range srv.Requests() {
		switch r.Fault {
		case "drop-after-commit":
			dropped++
		case "status":
			refused++
		}
	}
	assert.Positive(t, dropped, "the faults did fire")
	assert.Positive(t, refused)
}
