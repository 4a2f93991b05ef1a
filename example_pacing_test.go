package taskrouting_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// Goroutines sharing one client create tasks as fast as they can; the
// client spreads the 60 creates over the quota of 50 a second, so none is
// refused (without pacing, 10 would be).
func ExampleWithQuotaPacing() {
	srv, err := mockserver.New(mockserver.WithLimits(mockserver.Limits{TaskRate: 50, TaskRateWindow: time.Second}))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	// The window is the server's: the platform counts per minute (pass 0).
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey(),
		taskrouting.WithQuotaPacing(time.Second), taskrouting.WithMaxRetries(0))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	var created, refused atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 15 {
				_, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"billing"}})
				switch {
				case errors.Is(err, taskrouting.ErrRateLimited):
					refused.Add(1)
				case err != nil:
					panic(err)
				default:
					created.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	fmt.Println(created.Load(), "created,", refused.Load(), "refused")
	// Output: 60 created, 0 refused
}
