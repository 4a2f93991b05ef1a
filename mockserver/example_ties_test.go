package mockserver_test

import (
	"context"
	"fmt"
	"log"
	"slices"

	taskrouting "github.com/taskrouting/taskrouting-go"
	"github.com/taskrouting/taskrouting-go/mockserver"
)

// Two workers rank equal for a task: the platform may give it to either, so a test asserts
// the tied set (Server.Ties), not which one won. Distinct weights would make it strict.
func ExampleServer_Ties() {
	srv, err := mockserver.New(mockserver.WithTieBreak(mockserver.TieShuffle), mockserver.WithSeed(42))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c, err := taskrouting.NewClient(srv.URL(), srv.APIKey())
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for _, w := range []taskrouting.UpsertWorkerParams{
		{ID: "w001", Tags: []string{"g3"}, RoutingWeights: map[string]float64{"g3": 5}, Available: taskrouting.Ptr(true)},
		{ID: "w002", Tags: []string{"g7"}, RoutingWeights: map[string]float64{"g7": 5}, Available: taskrouting.Ptr(true)},
	} {
		if _, err := c.Workers.Upsert(ctx, w); err != nil {
			log.Fatal(err)
		}
	}
	ref, err := c.Tasks.Create(ctx, taskrouting.CreateTaskParams{Tags: []string{"g3", "g7"}, Priority: 1})
	if err != nil {
		log.Fatal(err)
	}
	task, err := c.Tasks.Get(ctx, ref.ID)
	if err != nil {
		log.Fatal(err)
	}
	ties := srv.Ties()
	tied := slices.Sorted(slices.Values(ties[0].Workers))
	fmt.Println("tied:", tied)
	fmt.Println("holder is one of them:", slices.Contains(tied, task.WorkerID))
	// Output:
	// tied: [w001 w002]
	// holder is one of them: true
}
